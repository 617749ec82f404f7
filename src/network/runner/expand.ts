// Variables in a settings value, resolved as the toolchain resolves them, from the runner's environment at
// the start of the run: npm's `.npmrc` (`${NAME}`, left as it is when NAME is not set; `${NAME?}`, empty
// then; a backslash before `$` keeps it literal) and yarn's `.yarnrc.yml` (`${NAME}`, an error when NAME is
// not set; `${NAME:-fallback}` when NAME is unset or empty; `${NAME-fallback}` when it is unset). Used for
// the paths of CA files alone, never to write a variable's value into what the tools see unless it names
// a CA file that is shown. Pure.

/** `value` with npm's variables resolved. */
export function expandNpm(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/(\\*)\$\{([^${}?]+)(\?)?\}/g, (whole, slashes: string, name: string, optional) => {
    if (slashes.length % 2 === 1) return whole;
    const found = env[name];
    return found !== undefined ? `${slashes}${found}` : optional ? slashes : whole;
  });
}

/** `value` with yarn's variables resolved; undefined when yarn would stop at one (unset, with no fallback). */
export function expandYarn(value: string, env: NodeJS.ProcessEnv): string | undefined {
  let failed = false;
  const expanded = value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}/g,
    (_whole, name: string, operator: string | undefined, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && !(operator === ':-' && found === '')) return found;
      if (operator !== undefined) return fallback ?? '';
      failed = true;
      return '';
    },
  );
  return failed ? undefined : expanded;
}
