import { describe, expect, it } from 'vitest';
import { runnerFiles } from '../../src/sandbox/runner-files.js';

describe('runnerFiles', () => {
  it("names RUNNER_TEMP, every file-command and event file, and the runner's installation", () => {
    const files = runnerFiles(
      {
        RUNNER_TEMP: '/home/runner/work/_temp',
        GITHUB_ENV: '/home/runner/work/_temp/_runner_file_commands/set_env_1',
        GITHUB_OUTPUT: '/home/runner/work/_temp/_runner_file_commands/set_output_1',
        GITHUB_STATE: '/home/runner/work/_temp/_runner_file_commands/save_state_1',
        GITHUB_PATH: '/home/runner/work/_temp/_runner_file_commands/add_path_1',
        GITHUB_STEP_SUMMARY: '/home/runner/work/_temp/_runner_file_commands/step_summary_1',
        GITHUB_EVENT_PATH: '/home/runner/work/_temp/_github_workflow/event.json',
        GITHUB_WORKSPACE: '/home/runner/work/repo/repo',
      },
      '/home/runner/actions-runner/cached/externals/node24/bin/node',
    );
    expect(files).toEqual([
      '/home/runner/work/_temp',
      '/home/runner/work/_temp/_runner_file_commands/set_env_1',
      '/home/runner/work/_temp/_runner_file_commands/set_output_1',
      '/home/runner/work/_temp/_runner_file_commands/save_state_1',
      '/home/runner/work/_temp/_runner_file_commands/add_path_1',
      '/home/runner/work/_temp/_runner_file_commands/step_summary_1',
      '/home/runner/work/_temp/_github_workflow/event.json',
      '/home/runner/actions-runner/cached',
    ]);
  });

  it("leaves out what is unset or relative, and a node that is not the runner's", () => {
    expect(runnerFiles({ RUNNER_TEMP: '', GITHUB_ENV: 'relative/file' }, '/usr/bin/node')).toEqual([]);
  });
});
