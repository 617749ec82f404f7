import { describe, expect, it } from 'vitest';
import { readPostState, saveCleaned, savePostState } from '../../src/runner/post-state.js';

/** What the runner makes of saved state for the post step: STATE_<name> in its environment. */
function runnerState(): { save: (name: string, value: string) => void; env: NodeJS.ProcessEnv } {
  const env: NodeJS.ProcessEnv = {};
  return { save: (name, value) => (env[`STATE_${name}`] = value), env };
}

describe('the post step’s state', () => {
  it('reads back what the main step saved, and whether it put the git directories right itself', () => {
    const { save, env } = runnerState();
    const state = {
      workspace: '/w',
      ownGitDir: '/t/todo-agent-git-1',
      escalate: ['/usr/bin/sudo', '-n', '--'],
      sandbox: {
        dir: '/tmp/todo-agent-sandbox-1',
        escalate: ['/usr/bin/sudo', '-n', '--'],
        rm: '/usr/bin/rm',
      },
    };
    savePostState(save, state);
    expect(readPostState(env)).toEqual({ state, cleaned: false });
    saveCleaned(save);
    expect(readPostState(env)).toEqual({ state, cleaned: true });
  });

  it('is nothing when the main step never reached the tools, and a throw when it is not what was saved', () => {
    expect(readPostState({})).toEqual({ cleaned: false });
    expect(() => readPostState({ STATE_todo_agent: '{"workspace":1}' })).toThrow();
    expect(() => readPostState({ STATE_todo_agent: '{' })).toThrow();
  });
});
