// One end-to-end world: a bare origin and its clone, the GitHub emulator, the scripted model, a trigger comment.
import { createServer, type RequestListener } from 'node:http';
import { Server, type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, expect } from 'vitest';
import {
  startGitHubEmulator,
  type GitHubEmulator,
  type Permission,
  type SeedIssue,
} from '../support/github/emulator.js';
import {
  MODE_MODEL_ID,
  reply,
  startModelServer,
  text,
  toolUse,
  type ModelMode,
  type RecordedRequest,
  type ScriptStep,
  type ScriptedModelServer,
} from '../support/anthropic/server.js';
import {
  createSandbox,
  issueCommentEvent,
  OWNER,
  REPO,
  runAction,
  shallowCheckout,
  type ActionRun,
  type CommentEventOptions,
  type RunActionOptions,
  type Sandbox,
} from '../support/action-harness.js';
import { HELLO_FILES, pushFeatureBranch } from '../support/anthropic/scenarios.js';
import type { FederationServerOptions } from '../support/anthropic/federation.js';

export const TOKEN = 'ghs_e2eToken0000000000000000000000000001';

/** GitHub's hosted runners run jobs as `runner` (uid 1001), with passwordless sudo; so does CI here. */
export const RUNNER_USER = { uid: 1001, gid: 1001 };

/**
 * Who runs the action in the tests that must hold for both: root, and the unprivileged runner user with
 * sudo. When the tests themselves run as someone else (CI, as `runner`), just that user. CI's root pass sets
 * E2E_ACTION_USERS=root: its `runner` pass runs the same files as that user already.
 */
export const ACTION_USERS: Array<{ who: string; as: { uid: number; gid: number } | undefined }> =
  process.getuid?.() === 0
    ? [
        { who: 'root', as: undefined },
        ...(process.env.E2E_ACTION_USERS === 'root'
          ? []
          : [{ who: 'the runner user, with sudo', as: RUNNER_USER }]),
      ]
    : [{ who: `uid ${process.getuid?.()}`, as: undefined }];
export const KEY = 'sk-ant-e2e-key-00000000000000000000000001';

type RunOptions = Pick<
  RunActionOptions,
  'inputs' | 'env' | 'onSpawn' | 'runId' | 'as' | 'bindMounts' | 'node' | 'postOf' | 'nodeArgs' | 'entry'
>;

export interface World {
  sandbox: Sandbox;
  github: GitHubEmulator;
  model: ScriptedModelServer;
  close(): Promise<void>;
  /** Posts the comment on the emulated issue, then runs dist/index.js for its event. */
  trigger(body: string, options?: Partial<CommentEventOptions> & RunOptions): Promise<ActionRun>;
  /**
   * Runs dist/index.js for an event whose comment or review the test already added to the emulator. With
   * `mergeOf` (a pull request's head branch), the workspace is what actions/checkout gives a pull request
   * event: the PR's merge commit, detached, with no remote-tracking branches.
   */
  runEvent(
    eventName: string,
    event: Record<string, unknown>,
    options?: RunOptions & { mergeOf?: string },
  ): Promise<ActionRun>;
  /** The post step of `run` (dist/post.js), as the runner runs it after the main step, whatever its end. */
  post(run: ActionRun, options?: Omit<RunOptions, 'postOf'>): Promise<ActionRun>;
  /** The comments the action wrote (as the bot, or as the token's user), oldest first. */
  botComments(): Array<{ id: number; body: string; versions: string[] }>;
}

export async function createWorld(
  script: ScriptStep[],
  options: {
    permissions?: Record<string, Permission>;
    files?: Record<string, string>;
    latencyMs?: number;
    /** Every GitHub answer waits this long (the emulator's `latencyMs`). */
    githubLatencyMs?: number;
    issue?: Partial<SeedIssue>;
    /** The token is a personal access token of this user (see the emulator's `tokenUser`). */
    tokenUser?: string;
    /** The workflow grants `actions: write` (default true). */
    actionsWrite?: boolean;
    /** The model the server plays; given, the `model` input names it. */
    mode?: ModelMode;
    /** The token is an app's installation token writing as this bot (see the emulator's `appBot`). */
    appBot?: string;
    /** Forks' repositories in `<root>/forks/<owner>/<repo>.git`, served by the emulator (its `forksDir`). */
    forks?: boolean;
    /** Every run starts from a `fetch-depth: 1` checkout of main instead of a full clone. */
    shallow?: boolean;
    /** The token may change workflow files (default true; see the emulator's `workflowsPermission`). */
    workflowsPermission?: boolean;
    /** Where the emulator's rendered HTML sends images on other hosts (its camo). */
    camoUrl?: string;
    /** What the emulator's `GET /meta` lists as GitHub's package hosts (null: no such field). */
    packageHosts?: readonly string[] | null;
    /** The workspace and HOME under the world's root, as a runner lays them out (see createSandbox). */
    layout?: { workspace?: string; home?: string };
    /** The model server plays keyless auth (its token endpoint) instead of taking the key. */
    federation?: FederationServerOptions;
  } = {},
): Promise<World> {
  const sandbox = await createSandbox(options.files ?? HELLO_FILES, options.layout);
  const github = await startGitHubEmulator({
    owner: OWNER,
    repo: REPO,
    token: TOKEN,
    ...(options.tokenUser ? { tokenUser: options.tokenUser } : {}),
    ...(options.actionsWrite === false ? { actionsWrite: false } : {}),
    ...(options.appBot ? { appBot: options.appBot } : {}),
    ...(options.workflowsPermission === false ? { workflowsPermission: false } : {}),
    ...(options.camoUrl ? { camoUrl: options.camoUrl } : {}),
    ...(options.packageHosts !== undefined ? { packageHosts: options.packageHosts } : {}),
    ...(options.githubLatencyMs ? { latencyMs: options.githubLatencyMs } : {}),
    remoteDir: sandbox.origin,
    ...(options.forks ? { forksDir: path.join(sandbox.root, 'forks') } : {}),
    permissions: options.permissions ?? { maintainer: 'admin', writer: 'write', reader: 'read' },
    issues: [
      {
        number: 1,
        title: 'Tidy up hello.py',
        body: 'hello.py could use type hints and a main guard.',
        ...options.issue,
      },
    ],
  });
  const model = await startModelServer(script, {
    apiKey: KEY,
    latencyMs: options.latencyMs ?? 0,
    ...(options.mode ? { mode: options.mode } : {}),
    ...(options.federation ? { federation: options.federation } : {}),
  });
  const modelInput: Record<string, string> = options.mode ? { model: MODE_MODEL_ID[options.mode] } : {};
  let runs = 0;
  // Every workflow run starts from a fresh checkout of main, as actions/checkout gives it.
  const freshCheckout = async () => {
    if (options.shallow) {
      runs++;
      await shallowCheckout(sandbox);
    } else if (runs++ > 0) {
      await sandbox.git(['fetch', '-q', 'origin']);
      await sandbox.git(['switch', '-q', '-f', '-C', 'main', 'origin/main']);
      await sandbox.git(['clean', '-q', '-fdx']);
    }
  };
  const run = async (eventName: string, event: Record<string, unknown>, how: RunOptions) =>
    await runAction({
      sandbox,
      apiUrl: github.url,
      eventName,
      event,
      inputs: {
        github_token: TOKEN,
        anthropic_api_key: KEY,
        anthropic_base_url: model.url,
        ...modelInput,
        ...how.inputs,
      },
      ...(how.env ? { env: how.env } : {}),
      ...(how.onSpawn ? { onSpawn: how.onSpawn } : {}),
      ...(how.runId ? { runId: how.runId } : {}),
      ...(how.as ? { as: how.as } : {}),
      ...(how.bindMounts ? { bindMounts: how.bindMounts } : {}),
      ...(how.node ? { node: how.node } : {}),
      ...(how.postOf ? { postOf: how.postOf } : {}),
      ...(how.nodeArgs ? { nodeArgs: how.nodeArgs } : {}),
      ...(how.entry ? { entry: how.entry } : {}),
    });
  return {
    sandbox,
    github,
    model,
    async close() {
      await Promise.all([github.close(), model.close()]);
      await sandbox.cleanup();
    },
    async trigger(
      body,
      { inputs, env, onSpawn, runId, as, bindMounts, node, nodeArgs, entry, ...event } = {},
    ) {
      await freshCheckout();
      const user = event.user ?? 'maintainer';
      const comment = github.addComment(event.issueNumber ?? 1, user, body);
      const payload = issueCommentEvent({
        body,
        user,
        commentId: comment.id,
        createdAt: comment.created_at,
        ...event,
      });
      return await run('issue_comment', payload, {
        inputs,
        env,
        onSpawn,
        runId,
        as,
        bindMounts,
        node,
        nodeArgs,
        entry,
      });
    },
    async runEvent(eventName, event, { mergeOf, ...rest } = {}) {
      await freshCheckout();
      if (mergeOf) await mergeCheckout(sandbox, mergeOf);
      return await run(eventName, event, rest);
    },
    async post(main, how = {}) {
      return await run('issue_comment', {}, { ...how, postOf: main });
    },
    botComments() {
      return [...github.state.comments.values()]
        .filter((comment) => comment.user === (options.tokenUser ?? options.appBot ?? 'github-actions[bot]'))
        .map(({ id, body, versions }) => ({ id, body, versions }));
    },
  };
}

/** What a git command prints in the world's origin (the repository as GitHub holds it). */
export const originGit = (w: World, ...args: string[]): Promise<string> =>
  w.sandbox.git(['--git-dir', w.sandbox.origin, ...args], w.sandbox.root);

/**
 * `/agent add a changelog` (changelogScript's run) on the pull request whose head is `feature`, pushed first and
 * then changed by `before`: the run completes on `feature`, says nothing on stderr and opens no pull request.
 */
export async function changelogOnFeatureHead(world: World, before?: () => Promise<void>): Promise<ActionRun> {
  await pushFeatureBranch((args) => world.sandbox.git(args));
  await before?.();
  const seeded = world.github.state.pulls.length;
  const run = await world.trigger('/agent add a changelog', { pullRequest: true });
  expect(run.stderr).toBe('');
  expect(run.outputs.status).toBe('completed');
  expect(run.outputs.branch).toBe('feature');
  expect(world.github.state.pulls).toHaveLength(seeded);
  return run;
}

/** What else a test may start beside its world: a server with a promised close, or a node:net server. */
type Closable = { close(): Promise<unknown> } | Server;

/** The worlds and servers of the current test, all closed after it. */
export interface WorldsPerTest {
  /** createWorld, its world closed after the test. */
  create: typeof createWorld;
  /** Closes `server` (another server the test started) after the test, once its worlds are closed; returns it. */
  closeAfter<T extends Closable>(server: T): T;
  /** Starts an HTTP server on a free port of 127.0.0.1 that answers with `handler`, closed after the test. */
  listen(handler: RequestListener): Promise<{ port: number; url: string }>;
}

/** Registers, in the calling test file, the closing after each test of what the returned object started in it. */
export function useWorldsPerTest(): WorldsPerTest {
  const worlds: World[] = [];
  const others: Closable[] = [];
  afterEach(async () => {
    for (const world of worlds.splice(0)) await world.close();
    for (const other of others.splice(0)) {
      if (other instanceof Server) await new Promise((done) => other.close(done));
      else await other.close();
    }
  });
  const closeAfter = <T extends Closable>(server: T): T => {
    others.push(server);
    return server;
  };
  return {
    async create(...args) {
      const world = await createWorld(...args);
      worlds.push(world);
      return world;
    },
    closeAfter,
    async listen(handler) {
      const server = closeAfter(createServer(handler));
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      const { port } = server.address() as AddressInfo;
      return { port, url: `http://127.0.0.1:${port}` };
    },
  };
}

/**
 * Where a run's text reaches people, by name: the comments (every version), the pull request `pr`, the job log
 * (less its ::add-mask:: lines, which name what they mask), the step summary and the outputs.
 */
export function placesShown(world: World, run: ActionRun, pr: { title: string; body: string }) {
  return {
    comments: world
      .botComments()
      .flatMap((c) => c.versions)
      .join('\n'),
    PR: `${pr.title}\n${pr.body}`,
    log: run.stdout
      .split('\n')
      .filter((line) => !line.startsWith('::add-mask::'))
      .join('\n'),
    summary: run.summary,
    outputs: JSON.stringify(run.outputs),
  };
}

/** The merge of origin's `head` into main, checked out detached, as a pull request event's checkout is. */
async function mergeCheckout(sandbox: Sandbox, head: string): Promise<void> {
  await sandbox.git(['fetch', '-q', 'origin', `+refs/heads/${head}:refs/remotes/origin/${head}`]);
  await sandbox.git(['switch', '-q', '--detach', 'origin/main']);
  await sandbox.git(['merge', '-q', '--no-ff', '--no-edit', `origin/${head}`]);
  const refs = await sandbox.git(['for-each-ref', '--format=%(refname)', 'refs/remotes', 'refs/heads']);
  for (const ref of refs.split('\n').filter(Boolean)) await sandbox.git(['update-ref', '-d', ref]);
}

/** The text of the first user message of a request the model server received: task, context, earlier run. */
export function openingText(request: RecordedRequest): string {
  const content = request.body.messages[0].content as Array<{ type: string; text?: string }>;
  return content.map((block) => block.text ?? '').join('\n');
}

/** The JSON inside one of the opening's blocks (`context` or `earlier_run`). */
export function blockData(opening: string, tag: string): Record<string, unknown> {
  const block = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(opening)?.[1] ?? '';
  return JSON.parse(block.slice(block.indexOf('{'), block.lastIndexOf('}') + 1)) as Record<string, unknown>;
}

const PROBE_PLAN = (status: 'in_progress' | 'completed') =>
  toolUse('todo', { items: [{ id: '1', text: 'Probe the sandbox', activeForm: 'Probing', status }] });

/** The model's script for a run that makes one bash call per command, between its plan and its finish. */
function bashScript(commands: readonly string[]): ScriptStep[] {
  return [
    reply(PROBE_PLAN('in_progress')),
    ...commands.map((command) => reply(toolUse('bash', { command }))),
    reply(PROBE_PLAN('completed')),
    reply(text('Done.')),
  ];
}

export interface BashProbes {
  /**
   * One run whose model makes one bash call per command: each call's result as the model saw it, and the
   * run. `before` prepares the world before the trigger.
   */
  calls(
    commands: readonly string[],
    options?: RunOptions & { before?: (world: World) => Promise<void> },
  ): Promise<{ results: string[]; run: ActionRun }>;
  /** A world of its own script, closed after the test as the probes' are. */
  open(script: ScriptStep[]): Promise<World>;
  /** The world of the test's last run, if any. */
  readonly world: World | undefined;
  /** Undone after each test, last first, once its world is closed. */
  cleanups: Array<() => Promise<void> | void>;
}

/** Bash probes for a test file of the sandbox's: each test's world is closed and its cleanups run after it. */
export function bashProbes(): BashProbes {
  let world: World | undefined;
  const cleanups: BashProbes['cleanups'] = [];
  afterEach(async () => {
    await world?.close();
    world = undefined;
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const open = async (script: ScriptStep[]) => (world = await createWorld(script));
  return {
    open,
    cleanups,
    get world() {
      return world;
    },
    async calls(commands, { before, ...how } = {}) {
      const opened = await open(bashScript(commands));
      await before?.(opened);
      const run = await opened.trigger('/agent probe', how);
      return { results: bashResults(opened.model, commands.length), run };
    },
  };
}

/** Each bash call's result as the model saw it, in a run of bashScript(commands). */
function bashResults(model: ScriptedModelServer, count: number): string[] {
  return Array.from({ length: count }, (_, k) => {
    const content = model.requests[2 + k]?.body.messages.at(-1)?.content as Array<{ content?: unknown }>;
    return JSON.parse(JSON.stringify(content?.[0]?.content ?? '')) as string;
  }).map((result) => (typeof result === 'string' ? result : JSON.stringify(result)));
}
