// The action's post step (action.yml's `post:`), run by the runner after the main step whatever became of
// it (a throw, a cancel, a timeout, a SIGKILL or the OOM killer), and before actions/checkout's post step,
// which runs git in the workspace. When the main step repaired the workspace's git directories itself, it
// only removes what a killed run may have left. Otherwise it does it now (workspace-guard.ts): the top
// `.git` as saved before the first tool call, or a clean one in place of a link or a file, and every other
// git directory of the work tree disarmed. It runs nothing the workspace configures, and never fails the
// job: what it cannot do is a warning. It loads the runner's output module (all of @actions/core) only when
// it has something to say, so that the usual case, nothing to do, costs little.
import { rm, stat } from 'node:fs/promises';
import { repairAfterKill, repairSentences } from './git/workspace-guard.js';
import { readPostState, type PostState } from './runner/post-state.js';
import { removePrivateDirs } from './sandbox/private-dirs.js';
import { errorSentence } from './text/error-sentence.js';

async function repairFromState(state: PostState): Promise<string[]> {
  const report = await repairAfterKill({
    workspace: state.workspace,
    ownGitDir: state.ownGitDir,
    ...(state.escalate ? { escalate: state.escalate } : {}),
  });
  return [
    "todo-agent's main step ended before it put the workspace's git directories right; the post step did.",
    ...repairSentences(report),
  ];
}

/** What a killed run leaves: our own git directory and the sandbox's private directory (the MCP servers' in it). */
async function removeLeftovers(state: PostState): Promise<void> {
  await rm(state.ownGitDir, { recursive: true, force: true });
  const sandbox = state.sandbox;
  if (sandbox && (await stat(sandbox.dir).catch(() => undefined)))
    removePrivateDirs(sandbox.dir, sandbox.escalate, sandbox.rm);
}

async function post(): Promise<string[]> {
  const { state, cleaned } = readPostState();
  if (!state) return [];
  const said: string[] = [];
  if (!cleaned) {
    said.push(
      ...(await repairFromState(state).catch((error: unknown) => [
        `todo-agent could not put the workspace's git directories right: ${errorSentence(error)}`,
      ])),
    );
  }
  await removeLeftovers(state).catch((error: unknown) =>
    said.push(`todo-agent could not remove what its run left: ${errorSentence(error)}`),
  );
  return said;
}

const said = await post().catch((error: unknown) => [`todo-agent's post step: ${errorSentence(error)}`]);
if (said.length > 0) {
  const { log } = await import('./runner/output.js');
  for (const sentence of said) log.warning(sentence);
}
