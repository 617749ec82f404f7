// Rules GitHub enforces on a push, played by a pre-receive hook in the test origin, printing GitHub's own
// wording: a token without the `workflows` permission may not create or change a workflow file.
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Makes the bare origin refuse any pushed change under .github/workflows/, as GitHub refuses it. */
export async function refuseWorkflowPushes(originDir: string, defaultBranch = 'main'): Promise<void> {
  const hook = `#!/bin/sh
zero=0000000000000000000000000000000000000000
refused=0
while read old new ref; do
  [ "$new" = "$zero" ] && continue
  if [ "$old" = "$zero" ]; then from=refs/heads/${defaultBranch}; else from=$old; fi
  file=$(git diff --name-only "$from" "$new" -- .github/workflows | head -n 1)
  if [ -n "$file" ]; then
    echo "error: refusing to allow a GitHub App to create or update workflow \\\`$file\\\` without \\\`workflows\\\` permission" >&2
    refused=1
  fi
done
exit $refused
`;
  const path = join(originDir, 'hooks', 'pre-receive');
  await writeFile(path, hook);
  await chmod(path, 0o755);
}
