// A sandbox laid out as on a hosted runner, for the tests of src/sandbox/: HOME holds work/, which holds the
// workspace and the runner's files (some of them hidden). Each test file opens one as it loads
// (`const { ws, run } = await runnerLayout()`), and it is closed and removed after the file's last test.
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { childEnv } from '../../src/sandbox/child-env.js';
import { runCommand, type CommandResult } from '../../src/sandbox/run-command.js';
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
