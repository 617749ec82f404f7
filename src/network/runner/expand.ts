// Variables in a settings value, resolved as the toolchain resolves them, from the runner's environment at
// the start of the run: npm's `.npmrc` (`${NAME}`, left as it is when NAME is not set; `${NAME?}`, empty
// then; a backslash before `$` keeps it literal) and yarn's `.yarnrc.yml` (`${NAME}`, an error when NAME is
// not set; `${NAME:-fallback}` when NAME is unset or empty; `${NAME-fallback}` when it is unset). Used for
// the paths of CA files alone, never to write a variable's value into what the tools see unless it names
// a CA file that is shown. Pure.

/**
 * `value` with npm's variables resolved. The backslashes before each `${` are counted back from it, no
 * further than the previous variable (a pattern that starts with `\\*` tries every run of backslashes again
 * from each of its characters: quadratic); a name runs to the next `$`, `{`, `}` or `?`, so no character is
 * read twice.
 */
export function expandNpm(value: string, env: NodeJS.ProcessEnv): string {
  let done = 0;
  return value.replace(/\$\{([^${}?]+)(\?)?\}/g, (whole, name: string, optional, at: number) => {
    let slashes = 0;
    while (at - slashes > done && value[at - slashes - 1] === '\\') slashes++;
    done = at + whole.length;
    if (slashes % 2 === 1) return whole;
    const found = env[name];
    return found ?? (optional ? '' : whole);
  });
}

/**
 * `value` with yarn's variables resolved; undefined when yarn would stop at one (unset, with no fallback).
 * Read up to the last `}` alone: a fallback runs to the next `}`, so each is then read once (past the last
 * one, every `${NAME-` would read the rest again: quadratic), and nothing past it is a variable.
 */
export function expandYarn(value: string, env: NodeJS.ProcessEnv): string | undefined {
  let failed = false;
  const end = value.lastIndexOf('}') + 1;
  const expanded = value
    .slice(0, end)
    .replace(
      /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}/g,
      (_whole, name: string, operator: string | undefined, fallback: string | undefined) => {
        const found = env[name];
        if (found !== undefined && !(operator === ':-' && found === '')) return found;
        if (operator !== undefined) return fallback ?? '';
        failed = true;
        return '';
      },
    );
  return failed ? undefined : expanded + value.slice(end);
}
