// Rules GitHub enforces on a push, played by a pre-receive hook in the test origin, printing GitHub's own
// wording: a token without the `workflows` permission may not create or change a workflow file; a ruleset
// may require signed commits. (The `[remote rejected]` line says `pre-receive hook declined` here, where
// GitHub says `push declined due to repository rule violations`.) One rule per origin: each replaces the hook.
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Installs a pre-receive hook that runs `check` for each updated ref (`$old`, `$new`, `$ref` set; deletions
 * skipped); `check` sets `refused=1` to refuse the push.
 */
async function refuseWhen(originDir: string, check: string): Promise<void> {
  const hook = `#!/bin/sh
zero=0000000000000000000000000000000000000000
refused=0
while read old new ref; do
  [ "$new" = "$zero" ] && continue
${check}
done
exit $refused
`;
  const path = join(originDir, 'hooks', 'pre-receive');
  await writeFile(path, hook);
  await chmod(path, 0o755);
}

/**
 * Makes the bare origin refuse a push any of whose new commits changes a file under .github/workflows/, as
 * GitHub refuses it (each commit counts: one that adds a workflow and a later one that takes it out again
 * are refused too), naming the first such file.
 */
export async function refuseWorkflowPushes(originDir: string): Promise<void> {
  await refuseWhen(
    originDir,
    `  file=""
  for commit in $(git rev-list "$new" --not --all); do
    file=$(git diff-tree --no-commit-id --name-only -r --root "$commit" -- .github/workflows | head -n 1)
    [ -n "$file" ] && break
  done
  if [ -n "$file" ]; then
    echo "error: refusing to allow a GitHub App to create or update workflow \\\`$file\\\` without \\\`workflows\\\` permission" >&2
    refused=1
  fi`,
  );
}

/**
 * Makes the bare origin refuse a pushed commit that carries no signature, as a repository ruleset that
 * requires signed commits does, in GitHub's words (GH013, the rule, the commits that broke it). Commits the
 * emulator makes through GraphQL are GitHub's, signed: they reach the origin without a push.
 */
export async function requireSignedCommits(originDir: string, owner: string, repo: string): Promise<void> {
  await refuseWhen(
    originDir,
    `  unsigned=""
  for commit in $(git rev-list "$new" --not --all); do
    git cat-file commit "$commit" | sed '/^$/q' | grep -q '^gpgsig' || unsigned="$unsigned $commit"
  done
  [ -z "$unsigned" ] && continue
  count=$(echo $unsigned | wc -w)
  encoded=$(printf '%s' "$ref" | sed 's|/|%2F|g')
  {
    echo "error: GH013: Repository rule violations found for $ref."
    echo "Review all repository rules at https://github.com/${owner}/${repo}/rules?ref=$encoded"
    echo ""
    echo "- Commits must have verified signatures."
    if [ "$count" = 1 ]; then echo "  Found 1 violation:"; else echo "  Found $count violations:"; fi
    echo ""
    for commit in $unsigned; do echo "  $commit"; done
    echo ""
  } >&2
  refused=1`,
  );
}
