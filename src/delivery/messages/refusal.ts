// Why GitHub refused the work, in words a maintainer can act on: which rule, and what to change. Pure: it
// reads the refusal's text (git's "remote:" lines, or the API's error message), as GitHub words it:
// - a push: `remote: error: GH013: Repository rule violations found for refs/heads/x.`, then one
//   `remote: - <rule>.` line per rule broken (`Commits must have verified signatures.`), and
//   `! [remote rejected] … (push declined due to repository rule violations)`;
//   `GH006: Protected branch update failed for refs/heads/x.` (`protected branch hook declined`);
//   `GH001: Large files detected.` with `File x is 120.00 MB; this exceeds GitHub's file size limit of 100.00 MB`;
//   `refusing to allow a GitHub App to create or update workflow `x` without `workflows` permission` (an
//   OAuth App or a Personal Access Token: `without `workflow` scope`);
// - the API: `Repository rule violations found` followed by the rules, one a line.

export interface Refusal {
  /** The rule that refused, as GitHub names it. */
  rule: string;
  /** What to change so that the next run gets through. */
  advice: string;
}

/** What to change for each rule a ruleset (or a branch protection rule) names, by its words. */
const RULE_ADVICE: Array<[RegExp, string]> = [
  [
    /verified signatures|signed/i,
    'GitHub signs the commits it makes through its API: leave `signed_commits` on (its default), keep the change to what the API can carry (no executable bits, links or submodules), or let this token bypass the rule.',
  ],
  [
    /creations? being restricted|cannot create ref/i,
    'Let this token create the action’s branches: leave the `branch_prefix` pattern out of the ruleset, or add the token’s app to its bypass list.',
  ],
  [
    /through a pull request/i,
    'The rule covers the action’s own branches: leave the `branch_prefix` pattern out of it (the pull request is where the rule belongs), or let this token bypass it.',
  ],
];

const GENERIC_RULESET_ADVICE =
  'Read the rules the refusal names under the repository’s Settings → Rules, then change the ruleset or let this token bypass it.';

/** GitHub's refusal of a workflow file, for a token without the workflows permission (or `workflow` scope). */
const WORKFLOW_REFUSAL =
  /refusing to allow an? (?:GitHub App|OAuth App|Personal Access Token)[^\n]*?workflow `?([^`\n]*)`?[^\n]*without `?workflows?`? (?:permission|scope)/i;

/**
 * The rule that keeps workflow files out of the work (`files`: the ones named, or the folder), whether
 * GitHub refused them or the token is known not to have the workflows permission.
 */
export function workflowRule(files: readonly string[]): Refusal {
  return {
    rule: `the token may not create or change workflow files (${files.join(', ') || '.github/workflows/'})`,
    advice:
      'Apply the workflow part from the patch yourself, or ask for the task without touching `.github/workflows/`; or, knowing that it lets the agent’s pull requests change the workflows that run it (see SECURITY.md), give `github_token` a token with Workflows: write.',
  };
}

/** Whether GitHub refused the work for a workflow file the token may not change. */
export function refusedWorkflowFile(text: string): boolean {
  return WORKFLOW_REFUSAL.test(text);
}

const RULES: Array<{ pattern: RegExp; refusal: (match: RegExpMatchArray, text: string) => Refusal }> = [
  {
    pattern: WORKFLOW_REFUSAL,
    refusal: (match) => workflowRule(match[1]?.trim() ? [match[1].trim()] : []),
  },
  {
    pattern: /GH013|push declined due to repository rule violations|Repository rule violations found/i,
    refusal: (_match, text) => ruleRefusal('a repository ruleset (GH013)', text),
  },
  {
    pattern: /GH006|protected branch hook declined|Protected branch update failed/i,
    refusal: (_match, text) => ({
      ...ruleRefusal('a protected branch (GH006)', text),
      ...(brokenRules(text).length === 0
        ? {
            advice:
              'Let the action push to its own branches (`branch_prefix`), outside the branch protection rule, or let this token bypass it.',
          }
        : {}),
    }),
  },
  {
    pattern: /GH001|exceeds GitHub's file size limit of 100(?:\.00)? MB/i,
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
    if (match) return refusal(match, text);
  }
  return undefined;
}

/** A ruleset's or protection rule's refusal: the rules it names, and the advice for the first known one. */
function ruleRefusal(what: string, text: string): Refusal {
  const rules = brokenRules(text);
  const advice = rules
    .map((rule) => RULE_ADVICE.find(([pattern]) => pattern.test(rule))?.[1])
    .find((found) => found !== undefined);
  return {
    rule: rules.length > 0 ? `${what}: ${rules.join('; ')}` : what,
    advice: advice ?? GENERIC_RULESET_ADVICE,
  };
}

/**
 * The rules a refusal says were broken, as GitHub words them: `remote: - <rule>.` lines (`remote: error:
 * <rule>` in older refusals), or the API's lines after `Repository rule violations found`.
 */
function brokenRules(text: string): string[] {
  const rules: string[] = [];
  const add = (rule: string) => {
    const clean = rule
      .replace(/\s+/g, ' ')
      .replace(/[.\s]+$/, '')
      .trim();
    // Octokit lists a GraphQL error's messages as ` - ` bullets: the API's heading is not a rule.
    if (/^Repository rule violations found$/i.test(clean)) return;
    if (clean && !rules.includes(clean) && rules.length < 5) rules.push(clean);
  };
  for (const line of text.split('\n')) {
    const bullet = /^\s*(?:remote:)?\s*(?:error:\s*)?-\s+(?!https?:)(.+)$/.exec(line);
    if (bullet) add(bullet[1]!);
    else {
      const old =
        /^\s*remote:\s*error:\s*(?!GH\d{3})(.+\b(?:must|required|cannot|not authorized)\b.+)$/i.exec(line);
      if (old) add(old[1]!);
    }
  }
  if (rules.length === 0) {
    const api = /Repository rule violations found\s*\n+([^\n]+)/i.exec(text);
    if (api) for (const sentence of api[1]!.split(/(?<=\.)\s+/)) add(sentence.replace(/ - https?:\S+$/, ''));
  }
  return rules;
}
