// What the tools' sandbox hides of the runner: runnerFiles' paths, and, in a sandbox built from them on the
// hosted runner's layout and on a self-hosted runner's, what a command can still read.
import { chmod, mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv } from '../../src/sandbox/commands/child-env.js';
import { runCommand } from '../../src/sandbox/commands/run-command.js';
import { runnerFiles } from '../../src/sandbox/runner-files.js';
import { openSandbox } from '../../src/sandbox/setup.js';
import {
  hostedRunnerFolders,
  selfHostedRunnerFolders,
  type RunnerFolders,
} from '../support/sandbox-layout.js';

describe('runnerFiles', () => {
  it("names RUNNER_TEMP, every file-command and event file, the runner's installation and its work folder", () => {
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
        RUNNER_WORKSPACE: '/home/runner/work/repo',
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
      // The hosted runner's folder `cached` is one of its kind: the folder that holds it is the runner's.
      '/home/runner/actions-runner',
      '/home/runner/work',
    ]);
  });

  it('hides a versioned runner with its siblings, and a self-hosted runner as its folder', () => {
    expect(runnerFiles({}, '/home/runner/runners/2.330.0/externals/node24/bin/node')).toEqual([
      '/home/runner/runners',
    ]);
    const selfHosted = {
      GITHUB_WORKSPACE: '/opt/actions-runner/_work/repo/repo',
      RUNNER_WORKSPACE: '/opt/actions-runner/_work/repo',
    };
    expect(runnerFiles(selfHosted, '/opt/actions-runner/externals/node20/bin/node')).toEqual([
      '/opt/actions-runner',
      '/opt/actions-runner/_work',
    ]);
  });

  it("leaves out what is unset or relative, a node that is not the runner's, and a work folder it cannot tell", () => {
    expect(runnerFiles({ RUNNER_TEMP: '', GITHUB_ENV: 'relative/file' }, '/usr/bin/node')).toEqual([]);
    for (const env of [
      { GITHUB_WORKSPACE: '/repo/repo', RUNNER_WORKSPACE: '/repo' }, // its parent is /
      { GITHUB_WORKSPACE: '/home/runner/elsewhere', RUNNER_WORKSPACE: '/home/runner/work/repo' },
      { GITHUB_WORKSPACE: '/home/runner/work/repo', RUNNER_WORKSPACE: '/home/runner/work/repo' },
      { GITHUB_WORKSPACE: 'work/repo/repo', RUNNER_WORKSPACE: 'work/repo' },
      { GITHUB_WORKSPACE: '/home/runner/work/repo/repo' },
    ])
      expect(runnerFiles(env, '/usr/bin/node'), JSON.stringify(env)).toEqual([]);
  });
});

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

describe.each([
  ['the hosted runner', hostedRunnerFolders],
  ['a self-hosted runner', selfHostedRunnerFolders],
])('a sandbox on %s’s layout', (_name, layOut: (root: string) => Promise<RunnerFolders>) => {
  it('hides the work folder’s other entries and the runner’s installation; keeps the workspace and the tool cache', async () => {
    const root = await realpath(await mkdtemp(path.join(tmpdir(), 'todo-agent-runner-')));
    roots.push(root);
    await chmod(root, 0o755);
    const folders = await layOut(root);
    const sandbox = await openSandbox({
      workspace: folders.workspace,
      network: 'none',
      home: folders.home,
      toolCache: folders.toolCache,
      hidden: runnerFiles(folders.env, folders.execPath),
    });
    try {
      const quoted = (files: string[]) => files.map((file) => `'${file}'`).join(' ');
      const result = await runCommand(
        [
          `cat ${quoted(folders.kept)}`,
          `cat ${quoted(folders.secrets)} 2>/dev/null`,
          // Whatever a search of the whole work folder and the runner's finds.
          `grep -rs SECRET '${root}' | head -n 20`,
          'echo written > new-file.txt && echo WRITTEN',
        ].join('; '),
        {
          cwd: folders.workspace,
          env: { ...childEnv(process.env), HOME: folders.home },
          timeoutMs: 20_000,
          sandbox,
        },
      );
      for (const kept of folders.kept) expect(result.output).toContain(`KEPT ${kept}`);
      expect(result.output).toContain('WRITTEN');
      expect(result.output).not.toContain('SECRET');
      expect(await readFile(path.join(folders.workspace, 'new-file.txt'), 'utf8')).toBe('written\n');
    } finally {
      sandbox.close();
    }
  });
});
