// One end-to-end world: a bare origin and its clone, the GitHub emulator, the scripted model, a trigger comment.
import {
  startGitHubEmulator,
  type GitHubEmulator,
  type Permission,
  type SeedIssue,
} from '../support/github-emulator.js';
import { startModelServer, type ScriptStep, type ScriptedModelServer } from '../support/anthropic-server.js';
import {
  createSandbox,
  issueCommentEvent,
  OWNER,
  REPO,
  runAction,
  type ActionRun,
  type CommentEventOptions,
  type RunActionOptions,
  type Sandbox,
} from '../support/action-harness.js';
import { HELLO_FILES } from '../support/scenarios.js';

export const TOKEN = 'ghs_e2eToken0000000000000000000000000001';
export const KEY = 'sk-ant-e2e-key-00000000000000000000000001';

export interface World {
  sandbox: Sandbox;
  github: GitHubEmulator;
  model: ScriptedModelServer;
  close(): Promise<void>;
  /** Posts the comment on the emulated issue, then runs dist/index.js for its event. */
  trigger(
    body: string,
    options?: Partial<CommentEventOptions> & Pick<RunActionOptions, 'inputs' | 'env' | 'onSpawn' | 'runId'>,
  ): Promise<ActionRun>;
  /** The comments the action wrote (as the bot, or as the token's user), oldest first. */
  botComments(): Array<{ id: number; body: string; versions: string[] }>;
}

export async function createWorld(
  script: ScriptStep[],
  options: {
    permissions?: Record<string, Permission>;
    files?: Record<string, string>;
    latencyMs?: number;
    issue?: Partial<SeedIssue>;
    /** The token is a personal access token of this user (see the emulator's `tokenUser`). */
    tokenUser?: string;
    /** The workflow grants `actions: write` (default true). */
    actionsWrite?: boolean;
  } = {},
): Promise<World> {
  const sandbox = await createSandbox(options.files ?? HELLO_FILES);
  const github = await startGitHubEmulator({
    owner: OWNER,
    repo: REPO,
    token: TOKEN,
    ...(options.tokenUser ? { tokenUser: options.tokenUser } : {}),
    ...(options.actionsWrite === false ? { actionsWrite: false } : {}),
    remoteDir: sandbox.origin,
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
  const model = await startModelServer(script, { apiKey: KEY, latencyMs: options.latencyMs ?? 0 });
  let runs = 0;
  return {
    sandbox,
    github,
    model,
    async close() {
      await Promise.all([github.close(), model.close()]);
      await sandbox.cleanup();
    },
    async trigger(body, { inputs, env, onSpawn, runId, ...event } = {}) {
      // Every workflow run starts from a fresh checkout of main, as actions/checkout gives it.
      if (runs++ > 0) {
        await sandbox.git(['fetch', '-q', 'origin']);
        await sandbox.git(['switch', '-q', '-f', '-C', 'main', 'origin/main']);
        await sandbox.git(['clean', '-q', '-fdx']);
      }
      const user = event.user ?? 'maintainer';
      const comment = github.addComment(event.issueNumber ?? 1, user, body);
      return await runAction({
        sandbox,
        apiUrl: github.url,
        event: issueCommentEvent({
          body,
          user,
          commentId: comment.id,
          createdAt: comment.created_at,
          ...event,
        }),
        inputs: { github_token: TOKEN, anthropic_api_key: KEY, anthropic_base_url: model.url, ...inputs },
        ...(env ? { env } : {}),
        ...(onSpawn ? { onSpawn } : {}),
        ...(runId ? { runId } : {}),
      });
    },
    botComments() {
      return [...github.state.comments.values()]
        .filter((comment) => comment.user === (options.tokenUser ?? 'github-actions[bot]'))
        .map(({ id, body, versions }) => ({ id, body, versions }));
    },
  };
}
