// The line by which a pull request this action opens closes its issue, written and read back in one place.
/** The line by which a pull request closes its issue; `closedBy` reads it back from a description. */
export function closesLine(issue: number): string {
  return `Closes #${issue}`;
}

/** The issue a description this action wrote closes, if it has that line. */
export function closedBy(body: string): number | undefined {
  const issue = /^Closes #(\d+)$/m.exec(body)?.[1];
  return issue === undefined ? undefined : Number(issue);
}
