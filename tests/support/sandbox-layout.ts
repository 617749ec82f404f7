// A sandbox laid out as on a hosted runner, for the tests of src/sandbox/: HOME holds work/, which holds the
// workspace and the runner's files (some of them hidden). Each test file opens one as it loads
// (`const { ws, run } = await runnerLayout()`), and it is closed and removed after the file's last test.
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { childEnv } from '../../src/sandbox/commands/child-env.js';
import { runCommand, type CommandResult } from '../../src/sandbox/commands/run-command.js';
import type { Sandbox } from '../../src/sandbox/namespaces.js';
import { openSandbox } from '../../src/sandbox/setup.js';

/**
 * Whether these tests run as root. The sandbox's tests also run as a user with neither root nor sudo (CI's
 * rootless pass); the few that need root itself (to give a file away, to be another user) run only as root.
 */
export const asRoot = process.getuid?.() === 0;

export interface RunnerLayout {
  root: string;
  home: string;
  ws: string;
  hiddenDir: string;
  hiddenFile: string;
  sandbox: Sandbox;
  env: NodeJS.ProcessEnv;
  /** One command in the workspace, in this layout's sandbox unless another is given. */
  run: (
    command: string,
    options?: { sandbox?: Sandbox; timeoutMs?: number; cwd?: string },
  ) => Promise<CommandResult>;
}

/** Opens the layout and its sandbox, and registers their removal after the calling test file. */
export async function runnerLayout(): Promise<RunnerLayout> {
  // Laid out as on a hosted runner: HOME holds work/, which holds the workspace and the runner's files.
  const root = await realpath(await mkdtemp(path.join(tmpdir(), 'todo-agent-sandbox-')));
  const home = path.join(root, 'home');
  const ws = path.join(home, 'work', 'workspace');
  const hiddenDir = path.join(home, 'work', 'runner-temp');
  const hiddenFile = path.join(home, 'work', 'github-env');
  await mkdir(ws, { recursive: true });
  await mkdir(hiddenDir);
  await writeFile(path.join(hiddenDir, 'credentials'), 'SECRET-IN-DIR\n');
  await writeFile(hiddenFile, 'SECRET-IN-FILE\n');
  // Writable by the tools, who are not root even where the test is (the workspace is then shown to them).
  await writeFile(path.join(home, 'preinstalled'), 'from-setup\n');
  await chmod(path.join(home, 'preinstalled'), 0o666);
  await mkdir(path.join(home, '.ssh'));
  await writeFile(path.join(home, '.ssh', 'id_ed25519'), 'SECRET-SSH-KEY\n');
  const env = { ...childEnv(process.env), HOME: home };
  const sandbox = await openSandbox({
    workspace: ws,
    network: 'host',
    home,
    hidden: [hiddenDir, hiddenFile],
  });
  const run: RunnerLayout['run'] = (command, options = {}) =>
    runCommand(command, {
      cwd: options.cwd ?? ws,
      env,
      timeoutMs: options.timeoutMs ?? 20_000,
      sandbox: options.sandbox ?? sandbox,
    });
  afterAll(async () => {
    sandbox.close();
    await rm(root, { recursive: true, force: true });
  });
  return { root, home, ws, hiddenDir, hiddenFile, sandbox, env, run };
}

/** The output of a command that must have succeeded. */
export function expectOk(result: CommandResult): string {
  expect(result.output).toBeDefined();
  expect({ exitCode: result.exitCode, output: result.output }).toMatchObject({ exitCode: 0 });
  return result.output;
}

/**
 * A runner's folders, as one kind of runner lays them out under `root`: the job's environment and the node
 * the action runs on (runner-files.ts reads both), the workspace, HOME and the tool cache, what the tools
 * must keep (`kept`: a file in the workspace and one in the tool cache) and what they must not read
 * (`secrets`: each file holds the text SECRET and its own path).
 */
export interface RunnerFolders {
  env: NodeJS.ProcessEnv;
  execPath: string;
  workspace: string;
  home: string;
  toolCache: string;
  kept: string[];
  secrets: string[];
}

/**
 * GitHub's hosted runner: HOME `/home/runner` holds the work folder `work/` (the workspace
 * `work/<repo>/<repo>`, `_temp`, `_actions`, `_PipelineMapping`, and on a runner kept between jobs other
 * repositories' checkouts) and the runner, `actions-runner/cached` (its node) beside its own files one level
 * up; the tool cache is `/opt/hostedtoolcache`.
 */
export async function hostedRunnerFolders(
  root: string,
  { checkout = false }: { checkout?: boolean } = {},
): Promise<RunnerFolders> {
  const home = path.join(root, 'home', 'runner');
  const work = path.join(home, 'work');
  const runner = path.join(home, 'actions-runner');
  return await runnerFolders({
    home,
    workspace: path.join(work, 'hello-world', 'hello-world'),
    checkout,
    runnerWorkspace: path.join(work, 'hello-world'),
    toolCache: path.join(root, 'opt', 'hostedtoolcache'),
    runnerTemp: path.join(work, '_temp'),
    execPath: path.join(runner, 'cached', 'externals', 'node24', 'bin', 'node'),
    secrets: [
      path.join(work, 'hello-world', 'beside-the-workspace.txt'),
      path.join(work, 'other-repo', 'other-repo', '.env'),
      path.join(work, '_actions', 'someone', 'deploy', 'v1', 'token.txt'),
      path.join(work, '_PipelineMapping', 'octo-org', 'hello-world', 'PipelineFolder.json'),
      path.join(work, '_temp', '_runner_file_commands', 'set_env_1'),
      path.join(runner, '.credentials'),
      path.join(runner, 'cached', '.runner'),
      path.join(runner, 'cached', '_diag', 'Worker_1.log'),
    ],
  });
}

/**
 * A self-hosted runner: its folder holds its credentials, its node and the work folder `_work` (the
 * workspace, `_temp`, `_actions`, the tool cache `_tool`, other repositories' checkouts).
 */
export async function selfHostedRunnerFolders(root: string): Promise<RunnerFolders> {
  const runner = path.join(root, 'actions-runner');
  const work = path.join(runner, '_work');
  return await runnerFolders({
    home: path.join(root, 'home', 'builder'),
    workspace: path.join(work, 'hello-world', 'hello-world'),
    checkout: false,
    runnerWorkspace: path.join(work, 'hello-world'),
    toolCache: path.join(work, '_tool'),
    runnerTemp: path.join(work, '_temp'),
    execPath: path.join(runner, 'externals', 'node24', 'bin', 'node'),
    secrets: [
      path.join(runner, '.credentials'),
      path.join(runner, '.credentials_rsaparams'),
      path.join(runner, '_diag', 'Runner_1.log'),
      path.join(work, 'other-repo', 'other-repo', '.env'),
      path.join(work, '_actions', 'someone', 'deploy', 'v1', 'token.txt'),
      path.join(work, '_temp', 'git-credentials-1.config'),
    ],
  });
}

async function runnerFolders(layout: {
  home: string;
  workspace: string;
  /** The workspace is a checkout made already (an end-to-end world's): nothing is written in it. */
  checkout: boolean;
  runnerWorkspace: string;
  toolCache: string;
  runnerTemp: string;
  execPath: string;
  secrets: string[];
}): Promise<RunnerFolders> {
  const kept = [
    ...(layout.checkout ? [] : [path.join(layout.workspace, 'README.md')]),
    path.join(layout.toolCache, 'node', 'bin', 'tool'),
  ];
  for (const file of [...kept, ...layout.secrets, layout.execPath]) {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, kept.includes(file) ? `KEPT ${file}\n` : `SECRET ${file}\n`);
  }
  await mkdir(layout.home, { recursive: true });
  // The tools are not root even where the test is: they must be able to write the workspace.
  if (!layout.checkout) await chmod(layout.workspace, 0o777);
  return {
    env: {
      GITHUB_WORKSPACE: layout.workspace,
      RUNNER_WORKSPACE: layout.runnerWorkspace,
      RUNNER_TEMP: layout.runnerTemp,
      RUNNER_TOOL_CACHE: layout.toolCache,
    },
    execPath: layout.execPath,
    workspace: layout.workspace,
    home: layout.home,
    toolCache: layout.toolCache,
    kept,
    secrets: layout.secrets,
  };
}
