// Why GitHub refused the work, in words a maintainer can act on: which rule, and what to change. Pure: it
// reads the refusal's text (git's "remote:" lines, or the API's error message).

export interface Refusal {
  /** The rule that refused, as GitHub names it. */
  rule: string;
  /** What to change so that the next run gets through. */
  advice: string;
}

const RULES: Array<{ pattern: RegExp; refusal: (match: RegExpMatchArray) => Refusal }> = [
  {
    pattern:
      /refusing to allow an? (?:GitHub App|OAuth App|Personal Access Token)[^\n]*?workflow `?([^`\n]*)`?[^\n]*without `?workflows?`? (?:permission|scope)/i,
    refusal: (match) => ({
      rule: `the token may not create or change workflow files (${match[1]?.trim() || '.github/workflows/'})`,
      advice:
        'Ask for the task without touching `.github/workflows/` and apply the workflow part from the patch yourself; or, knowing that it lets the agent’s pull requests change the workflows that run it (see SECURITY.md), give `github_token` a token with Workflows: write.',
    }),
  },
  {
    pattern: /GH013[^\n]*|push declined due to repository rule violations/i,
    refusal: () => ({
      rule: 'a repository ruleset (GH013)',
      advice:
        'Read the rules the refusal names under the repository’s Settings → Rules; if they require signed commits, leave `signed_commits` on (its default) or let this token bypass the ruleset.',
    }),
  },
  {
    pattern: /GH006[^\n]*|protected branch hook declined|Protected branch update failed/i,
    refusal: () => ({
      rule: 'a protected branch (GH006)',
      advice:
        'Let the action push to its own branches (`branch_prefix`), outside the branch protection rule, or let this token bypass it.',
    }),
  },
  {
    pattern: /GH001[^\n]*|exceeds GitHub's file size limit of 100(?:\.00)? MB/i,
    refusal: () => ({
      rule: 'GitHub’s 100 MB file size limit (GH001)',
      advice: 'Keep the large file out of the change (or track it with Git LFS in a later step).',
    }),
  },
];

/** The rule that refused, when the text is one of GitHub's known refusals. */
export function refusalOf(text: string): Refusal | undefined {
  for (const { pattern, refusal } of RULES) {
    const match = text.match(pattern);
    if (match) return refusal(match);
  }
  return undefined;
}
