// A comment that asks the action for something, as the runner hands it over: the GitHub emulator (per test)
// holding the issue and the comment, the event file and runner environment for it (per-test temporary
// directory), and what src/action/start.ts reads from them.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readStart, type Start } from '../../src/action/start.js';
import type { EmulatorOptions, GitHubEmulator } from './github/types.js';
import type { CommentState } from './github/types.js';
import { issueCommentEvent } from './github/webhook-events.js';
import { TEST_TOKEN, useEmulatorPerTest } from './github/per-test.js';
import { RUNNER_ENV } from './runner-env.js';
import { useTempDir } from './temp-dir.js';

export interface Asked {
  emu: GitHubEmulator;
  /** The comment that asks, on issue 1. */
  comment: CommentState;
  /** The runner's environment for it: the event file, RUNNER_TEMP and GITHUB_OUTPUT in the test's directory. */
  env: NodeJS.ProcessEnv;
  start: Start;
  /** The test's directory. */
  dir: string;
}

/** Registers the emulator and directory per test; the function posts `body` as `user` and reads the start. */
export function useActionStart(): (
  body: string,
  options?: { user?: string; env?: NodeJS.ProcessEnv; emulator?: EmulatorOptions },
) => Promise<Asked> {
  const startEmulator = useEmulatorPerTest();
  const tempDir = useTempDir('action-start');
  return async (body, { user = 'maintainer', env = {}, emulator = {} } = {}) => {
    const emu = await startEmulator({
      permissions: { maintainer: 'admin', reader: 'read' },
      issues: [{ number: 1, title: 'Tidy up', body: 'Please tidy.' }],
      ...emulator,
    });
    const comment = emu.addComment(1, user, body);
    const dir = tempDir();
    const eventPath = join(dir, 'event.json');
    await writeFile(eventPath, JSON.stringify(issueCommentEvent({ body, user, commentId: comment.id })));
    await writeFile(join(dir, 'output'), '');
    const runner: NodeJS.ProcessEnv = {
      ...RUNNER_ENV,
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_API_URL: emu.url,
      GITHUB_OUTPUT: join(dir, 'output'),
      RUNNER_TEMP: dir,
      INPUT_GITHUB_TOKEN: TEST_TOKEN,
      INPUT_ANTHROPIC_API_KEY: 'sk-ant-action-start-test',
      ...env,
    };
    return { emu, comment, env: runner, start: await readStart(runner), dir };
  };
}
