// Runs the bundled action (`node dist/index.js`) as a GitHub runner does: GITHUB_* and INPUT_* variables,
// an event file, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, in a clone of a real bare "origin".
import { execFile, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { OWNER, REPO } from './github/webhook-events.js';

const run = promisify(execFile);
export const ROOT = resolve(import.meta.dirname, '../..');
export {
  OWNER,
  REPO,
  issueCommentEvent,
  pullRequestReviewCommentEvent,
  pullRequestReviewEvent,
} from './github/webhook-events.js';
export type {
  CommentEventOptions,
  EventPull,
  EventReview,
  EventReviewComment,
  ReviewCommentEventOptions,
  ReviewEventOptions,
} from './github/webhook-events.js';

/** Only the test's own git commands use this identity; the action gets none (a runner has none). */
const TEST_GIT_ENV = {
  GIT_AUTHOR_NAME: 'Test Maintainer',
  GIT_AUTHOR_EMAIL: 'maintainer@example.com',
  GIT_COMMITTER_NAME: 'Test Maintainer',
  GIT_COMMITTER_EMAIL: 'maintainer@example.com',
};

/**
 * The test's own git reads repositories the action ran in as another user (`as`): no dubious ownership here.
 * A global file (the local transport's upload-pack does not see `-c` or GIT_CONFIG_COUNT), never the HOME
 * the action gets.
 */
const SAFE_DIRECTORIES = '[safe]\n\tdirectory = *\n';

export interface Sandbox {
  root: string;
  origin: string;
  workspace: string;
  home: string;
  git(args: string[], cwd?: string): Promise<string>;
  cleanup(): Promise<void>;
}

/**
 * A bare origin with one commit on `main` holding `files`, and a fresh clone of it as the workspace.
 * `layout` places the workspace and HOME under the root as a runner does (default `workspace`, `home`).
 */
export async function createSandbox(
  files: Record<string, string>,
  layout: { workspace?: string; home?: string } = {},
): Promise<Sandbox> {
  const root = await mkdtemp(join(tmpdir(), 'todo-agent-e2e-'));
  const origin = join(root, 'origin.git');
  const workspace = join(root, layout.workspace ?? 'workspace');
  const home = join(root, layout.home ?? 'home');
  await mkdir(home, { recursive: true });
  await mkdir(dirname(workspace), { recursive: true });
  const globalConfig = join(root, 'test.gitconfig');
  await writeFile(globalConfig, SAFE_DIRECTORIES);
  const env = { ...process.env, ...TEST_GIT_ENV, HOME: home, GIT_CONFIG_GLOBAL: globalConfig };
  const git = async (args: string[], cwd = workspace) => (await run('git', args, { cwd, env })).stdout.trim();
  await git(['init', '--bare', '--initial-branch=main', origin], root);
  await git(['clone', '--quiet', origin, workspace], root);
  await git(['checkout', '-q', '-B', 'main']);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(workspace, path)), { recursive: true });
    await writeFile(join(workspace, path), content);
  }
  await git(['add', '-A']);
  await git(['commit', '-q', '-m', 'Initial commit']);
  await git(['push', '-q', 'origin', 'main']);
  return { root, origin, workspace, home, git, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/**
 * Replaces the workspace with a checkout like `actions/checkout` with `fetch-depth: 1` makes: only main's
 * tip, no other branches, no tags, no history.
 */
export async function shallowCheckout(sandbox: Sandbox): Promise<void> {
  await rm(sandbox.workspace, { recursive: true, force: true });
  await sandbox.git(
    ['clone', '--quiet', '--depth', '1', '--no-tags', `file://${sandbox.origin}`, sandbox.workspace],
    sandbox.root,
  );
}

export interface ActionRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  /** What the step saved for its post step (GITHUB_STATE), by name. */
  state: Record<string, string>;
}

export interface RunActionOptions {
  sandbox: Sandbox;
  event: Record<string, unknown>;
  /** GITHUB_EVENT_NAME; default 'issue_comment'. */
  eventName?: string;
  apiUrl: string;
  inputs?: Record<string, string>;
  env?: Record<string, string>;
  runId?: string;
  /** Run the action as this user instead of ours (its files are made readable and writable for it). */
  as?: { uid: number; gid: number };
  /**
   * Directories bind-mounted onto themselves for the action alone: it runs in a mount namespace of its own
   * (private, so nothing reaches the host's), where they are mounted before it starts. A test's mount made on
   * the host would be in every sandbox built there meanwhile, another run's of the suite too. Root only.
   */
  bindMounts?: readonly string[];
  /** Called once the process is running, e.g. to send it SIGTERM later. */
  onSpawn?: (child: ReturnType<typeof spawn>) => void;
  entry?: string;
  /** The node that runs the action (default this one): a runner's own, `<runner>/externals/node24/bin/node`. */
  node?: string;
  /**
   * The post step of an earlier run (action.yml's `post:`, dist/post.js): the runner gives it what the main
   * step saved as STATE_<name>, with the same inputs and variables.
   */
  postOf?: ActionRun;
  /**
   * Flags for node before the entry: `--import` of a probe that measures the process, or of a test's
   * preload (tests/support/network/).
   */
  nodeArgs?: readonly string[];
}

/** Runs `node dist/index.js` the way a runner does and collects what it wrote. */
export async function runAction(options: RunActionOptions): Promise<ActionRun> {
  const { sandbox } = options;
  if (options.as && options.bindMounts?.length)
    throw new Error('runAction: bindMounts need root to mount, so they cannot go with `as`');
  const runnerDir = await mkdtemp(join(sandbox.root, 'runner-'));
  const eventPath = join(runnerDir, 'event.json');
  const outputPath = join(runnerDir, 'output');
  const summaryPath = join(runnerDir, 'summary.md');
  const statePath = join(runnerDir, 'state');
  await writeFile(eventPath, JSON.stringify(options.event));
  await writeFile(outputPath, '');
  await writeFile(summaryPath, '');
  await writeFile(statePath, '');
  const runId = options.runId ?? '4242';
  const inputs: Record<string, string> = {
    github_token: 'ghs_emulatortoken000000000000000000000000',
    anthropic_api_key: 'sk-ant-emulator-key-000000000000000000',
    trigger: '/agent',
    ...options.inputs,
  };
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: sandbox.home,
    LANG: 'C.UTF-8',
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
    GITHUB_REPOSITORY_OWNER: OWNER,
    GITHUB_EVENT_NAME: options.eventName ?? 'issue_comment',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_OUTPUT: outputPath,
    GITHUB_STEP_SUMMARY: summaryPath,
    GITHUB_STATE: statePath,
    GITHUB_WORKSPACE: sandbox.workspace,
    GITHUB_RUN_ID: runId,
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_API_URL: options.apiUrl,
    GITHUB_ACTOR: 'maintainer',
    GITHUB_REF: 'refs/heads/main',
    RUNNER_TEMP: runnerDir,
    RUNNER_OS: 'Linux',
    ...Object.fromEntries(
      Object.entries(inputs).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value]),
    ),
    ...options.env,
    ...Object.fromEntries(
      Object.entries(options.postOf?.state ?? {}).map(([name, value]) => [`STATE_${name}`, value]),
    ),
  };
  if (options.as) {
    // As on a runner: its user owns the workspace, HOME, RUNNER_TEMP, and here the origin it pushes to.
    await chmod(sandbox.root, 0o755);
    const owned = [sandbox.workspace, sandbox.home, sandbox.origin, runnerDir, env.RUNNER_TEMP ?? runnerDir];
    await run('chown', ['-R', `${options.as.uid}:${options.as.gid}`, ...new Set(owned)]);
  }
  const entry = options.entry ?? join(ROOT, options.postOf ? 'dist/post.js' : 'dist/index.js');
  const [program, ...args] = inOwnMounts(options.bindMounts ?? [], [
    options.node ?? process.execPath,
    ...(options.nodeArgs ?? []),
    entry,
  ]);
  const child = spawn(program!, args, {
    cwd: sandbox.workspace,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options.as,
  });
  options.onSpawn?.(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) =>
    child.on('close', (c, s) => done([c, s])),
  );
  return {
    code,
    signal,
    stdout,
    stderr,
    outputs: parseOutputs(await readFile(outputPath, 'utf8')),
    summary: await readFile(summaryPath, 'utf8'),
    state: parseOutputs(await readFile(statePath, 'utf8')),
  };
}

/**
 * `argv` in a private mount namespace of its own where each of `dirs` is first bind-mounted onto itself:
 * unshare(1) and sh exec, so the process is the one spawned (its pid, its signals). Unchanged without dirs.
 */
function inOwnMounts(dirs: readonly string[], argv: string[]): string[] {
  if (dirs.length === 0) return argv;
  const mountThenRun =
    'n=$1; shift; while [ "$n" -gt 0 ]; do mount --bind -- "$1" "$1" || exit 125; shift; n=$((n - 1)); done; exec "$@"';
  return [
    'unshare',
    '--mount',
    '--propagation',
    'private',
    '--',
    'sh',
    '-c',
    mountThenRun,
    'todo-agent-test-mounts',
    String(dirs.length),
    ...dirs,
    ...argv,
  ];
}

/** Reads the `name<<DELIMITER … DELIMITER` records that @actions/core writes to GITHUB_OUTPUT and GITHUB_STATE. */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const match = /^([^<=]+)<<(.+)$/.exec(lines[i] ?? '');
    if (match) {
      const [, name, delimiter] = match;
      const value: string[] = [];
      while (++i < lines.length && lines[i] !== delimiter) value.push(lines[i] ?? '');
      outputs[name!] = value.join('\n');
    } else if (lines[i]?.includes('=')) {
      const [name, ...rest] = lines[i]!.split('=');
      outputs[name!] = rest.join('=');
    }
  }
  return outputs;
}
