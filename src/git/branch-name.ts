// The name of the branch a run pushes, made valid whatever the prefix and run id hold (git's
// check-ref-format rules).

/** Characters git refuses anywhere in a ref name (check-ref-format), control characters included. */
// eslint-disable-next-line no-control-regex
const FORBIDDEN_REF_CHARS = /[\x00-\x20\x7f~^:?*[\\]+/g;

/**
 * `${prefix}issue-${issueNumber}-${runId}`, made a valid branch name: forbidden characters become '-',
 * and no component starts or ends with '.' or '-', ends with '.lock', or is empty; no '..' and no '@{'.
 */
export function branchName(prefix: string, issueNumber: number, runId: string): string {
  const raw = `${prefix}issue-${issueNumber}-${runId}`;
  const cleaned = raw
    .replace(FORBIDDEN_REF_CHARS, '-')
    .replace(/@\{/g, '-')
    .replace(/\.{2,}/g, '.');
  const components = cleaned
    .split('/')
    .map(cleanComponent)
    .filter((component) => component !== '');
  return components.join('/');
}

function cleanComponent(component: string): string {
  let value = component.replace(/-{2,}/g, '-');
  for (let previous = ''; previous !== value;) {
    previous = value;
    value = value
      .replace(/^[.-]+/, '')
      .replace(/\.lock$/i, '-lock')
      .replace(/[.-]+$/, '');
  }
  return value === '@' ? '' : value;
}
