/**
 * A stateful stand-in for api.github.com, served over real HTTP on 127.0.0.1 for end-to-end tests.
 *
 * It emulates the handful of REST operations todo-agent uses, keeps what they change in `state`,
 * and checks every request against GitHub's OpenAPI description (see ./openapi.ts): anything GitHub
 * would refuse, and any real operation that is not emulated, lands in `violations`.
 *
 * This is the public entry; the parts live under ./github/: types, state, JSON shapes, the HTTP server,
 * and one module per resource group, each contributing a table of handlers by operationId.
 */
import { actionsHandlers, addWorkflowRun } from './actions.js';
import { gitRefHandlers } from './git-refs.js';
import { addAttachment } from './attachments.js';
import { addCheckRun, addStatus, checkHandlers } from './checks.js';
import { searchHandlers } from './search.js';
import { startServer } from './http.js';
import { startForkGit, type ForkPushCall } from './fork-git.js';
import { addComment, editComment, issueHandlers, transferIssue } from './issues.js';
import { addReview, addReviewComment, pullReviewHandlers } from './pull-reviews.js';
import { pullHandlers } from './pulls.js';
import type { Handler, HandlerTable } from './replies.js';
import { repoHandlers } from './repos.js';
import { createEmu } from './state.js';
import type { Emu } from './state.js';
import type { EmulatorOptions, GitHubEmulator, InjectedResponse } from './types.js';

export type * from './types.js';
export { PACKAGE_HOSTS } from './repos.js';

/** The resource modules; adding a resource is adding a module and its line here. */
const RESOURCES: Array<(emu: Emu) => HandlerTable> = [
  repoHandlers,
  issueHandlers,
  pullHandlers,
  pullReviewHandlers,
  actionsHandlers,
  gitRefHandlers,
  checkHandlers,
  searchHandlers,
];

/** One table of every handler; an operationId claimed twice is a mistake in the emulator. */
function combine(emu: Emu): HandlerTable {
  const handlers: HandlerTable = {};
  for (const table of RESOURCES.map((resource) => resource(emu))) {
    for (const [operationId, handler] of Object.entries(table) as Array<[string, Handler]>) {
      if (handlers[operationId]) throw new Error(`GitHub emulator: ${operationId} is handled twice`);
      handlers[operationId] = handler;
    }
  }
  return handlers;
}

/** GitHub's answer when content is created too fast; plugin-throttling recognises the message. */
export function secondaryRateLimit(retryAfterSeconds = 1): InjectedResponse {
  return {
    status: 403,
    headers: { 'retry-after': String(retryAfterSeconds) },
    body: {
      message:
        'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. ' +
        'If you reach out to GitHub Support for help, please include the request ID.',
      documentation_url:
        'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
    },
  };
}

export async function startGitHubEmulator(options: EmulatorOptions = {}): Promise<GitHubEmulator> {
  const emu = createEmu(options);
  const server = await startServer(emu, combine(emu));
  emu.api = server.url;
  const { calls } = server;
  const forkPushes: ForkPushCall[] = [];
  const forks = options.forksDir ? await startForkGit(emu, forkPushes) : undefined;
  return {
    url: server.url,
    calls,
    forkPushes,
    ...(forks ? { forks: { url: forks.url, certificate: forks.certificate } } : {}),
    violations: emu.violations,
    state: emu.state,
    get notModified() {
      return server.notModified;
    },
    addComment: (issueNumber, user, body) => addComment(emu, issueNumber, user, body),
    editComment: (commentId, body) => editComment(emu, commentId, body),
    addReviewComment: (pullNumber, user, seed) => addReviewComment(emu, pullNumber, user, seed),
    addReview: (pullNumber, user, seed) => addReview(emu, pullNumber, user, seed),
    addWorkflowRun: (run) => addWorkflowRun(emu, run),
    addAttachment: (bytes, contentType) => addAttachment(emu, bytes, contentType),
    addCheckRun: (seed) => addCheckRun(emu, seed),
    addStatus: (seed) => addStatus(emu, seed),
    transferIssue: (number, to) => transferIssue(emu, number, to),
    failNext: (match, response, times) => server.failNext(match, response, times),
    holdNext: (match) => server.holdNext(match),
    writes: () => calls.filter((c) => c.method !== 'GET' && c.method !== 'HEAD'),
    close: async () => {
      await forks?.close();
      await server.close();
    },
  };
}
