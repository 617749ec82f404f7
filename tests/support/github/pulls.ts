// Pull requests: opening one (checked against the origin's branches when there is one), listing,
// reading, updating, and the files one changes.
import { diffFiles, headRef } from './diff.js';
import { WEB } from './json.js';
import { originBranch, originGit } from './origin-git.js';
import { pullJson } from './pull-json.js';
import { DOCS, HttpError, intParam, paged, rejectLongBody, validationFailed } from './replies.js';
import type { HandlerTable, Reply } from './replies.js';
import { addIssue, discussionCounts, placeholderSha, requirePull } from './state.js';
import type { Emu } from './state.js';
import type { PullState } from './types.js';

/** A 422 with one custom error message, as GitHub words the refusal of a pull request. */
const refusePull = (message: string, docs: string) =>
  validationFailed([{ resource: 'PullRequest', code: 'custom', message }], docs);

/** The head and base commits in the origin; a 422 when either branch is missing or head adds nothing. */
async function headAndBase(remoteDir: string, head: string, base: string, docs: string) {
  const [headSha, baseSha] = await Promise.all([
    originBranch(remoteDir, head),
    originBranch(remoteDir, base),
  ]);
  if (!headSha || !baseSha) {
    const invalid = [...(headSha ? [] : ['head']), ...(baseSha ? [] : ['base'])];
    throw validationFailed(
      invalid.map((field) => ({ resource: 'PullRequest', field, code: 'invalid' })),
      docs,
    );
  }
  const headInBase = await originGit(remoteDir, ['merge-base', '--is-ancestor', headSha, baseSha]).then(
    () => true,
    () => false,
  );
  if (headInBase) {
    throw refusePull(`No commits between ${base} and ${head}`, docs);
  }
  return { headSha, baseSha };
}

async function createPull(emu: Emu, body: Record<string, unknown>): Promise<Reply> {
  const docs = `${DOCS}/pulls/pulls#create-a-pull-request`;
  const { owner, repo } = emu;
  const rawHead = String(body.head);
  const ownPrefix = `${owner.toLowerCase()}:`;
  const head = rawHead.toLowerCase().startsWith(ownPrefix) ? rawHead.slice(ownPrefix.length) : rawHead;
  const base = String(body.base);
  if (typeof body.title !== 'string' && body.issue === undefined) {
    throw validationFailed([{ resource: 'PullRequest', field: 'title', code: 'missing_field' }], docs);
  }
  if (typeof body.body === 'string') rejectLongBody('PullRequest', body.body, docs);
  if (body.issue !== undefined) {
    emu.violations.push('not emulated: POST pulls with `issue` (converting an issue into a pull request)');
    throw new HttpError(501, { message: 'Not emulated' });
  }
  const { remoteDir } = emu.options;
  const { headSha, baseSha } = remoteDir
    ? await headAndBase(remoteDir, head, base, docs)
    : { headSha: placeholderSha(head), baseSha: placeholderSha(base) };
  if (emu.state.pulls.some((p) => p.state === 'open' && p.head === head)) {
    throw refusePull(`A pull request already exists for ${owner}:${head}.`, docs);
  }
  const number = Math.max(0, ...emu.state.issues.keys()) + 1;
  const issue = addIssue(emu, {
    number,
    title: String(body.title),
    body: typeof body.body === 'string' ? body.body : '',
    user: emu.actor,
    pull_request: { head },
  });
  const pull: PullState = {
    number,
    title: issue.title,
    body: issue.body,
    head,
    base,
    state: 'open',
    html_url: `${WEB}/${owner}/${repo}/pull/${number}`,
    draft: body.draft === true,
    user: emu.actor,
    head_sha: headSha,
    base_sha: baseSha,
    created_at: issue.created_at,
  };
  emu.state.pulls.push(pull);
  return {
    status: 201,
    body: pullJson(emu, pull, { comments: 0, reviewComments: 0 }, true),
    headers: { location: `${emu.api}/repos/${owner}/${repo}/pulls/${number}` },
  };
}

function listPulls(emu: Emu, url: URL): Reply {
  const wanted = url.searchParams.get('state') ?? 'open';
  const head = url.searchParams.get('head');
  const base = url.searchParams.get('base');
  // GitHub only honours `head` in the `owner:branch` form; a bare branch name filters nothing.
  const headFilter = head?.includes(':') ? head : undefined;
  const pulls = emu.state.pulls
    .filter((p) => wanted === 'all' || p.state === wanted)
    .filter((p) => !headFilter || headFilter.toLowerCase() === `${emu.owner}:${p.head}`.toLowerCase())
    .filter((p) => !base || p.base === base)
    .sort((a, b) => b.number - a.number);
  return paged(pulls, url, emu.api, (p) => pullJson(emu, p, discussionCounts(emu, p.number), false));
}

async function listFiles(emu: Emu, pull: PullState, url: URL): Promise<Reply> {
  if (!emu.options.remoteDir) {
    emu.violations.push('not emulated: pulls/list-files without a remoteDir to diff');
    throw new HttpError(501, { message: 'Not emulated' });
  }
  const files = await diffFiles(emu.options.remoteDir, pull.base, headRef(pull));
  const web = `${WEB}/${emu.owner}/${emu.repo}`;
  return paged(files, url, emu.api, (file) => ({
    ...file,
    changes: file.additions + file.deletions,
    blob_url: `${web}/blob/${file.sha}/${encodeURI(file.filename)}`,
    raw_url: `${web}/raw/${file.sha}/${encodeURI(file.filename)}`,
    contents_url: `${emu.api}/repos/${emu.owner}/${emu.repo}/contents/${encodeURI(file.filename)}?ref=${file.sha}`,
  }));
}

export function pullHandlers(emu: Emu): HandlerTable {
  const fullPull = (pull: PullState): Reply => ({
    status: 200,
    body: pullJson(emu, pull, discussionCounts(emu, pull.number), true),
  });
  return {
    'pulls/create': ({ body }) => createPull(emu, body as Record<string, unknown>),
    'pulls/list': ({ url }) => listPulls(emu, url),
    'pulls/get': ({ match }) => fullPull(requirePull(emu, intParam(match, 'pull_number'))),
    'pulls/update': ({ match, body }) => {
      const pull = requirePull(emu, intParam(match, 'pull_number'));
      const patch = body as { title?: string; body?: string; state?: 'open' | 'closed' };
      if (typeof patch.title === 'string') pull.title = patch.title;
      if (typeof patch.body === 'string') pull.body = patch.body;
      if (patch.state) pull.state = patch.state;
      return fullPull(pull);
    },
    'pulls/list-files': ({ match, url }) =>
      listFiles(emu, requirePull(emu, intParam(match, 'pull_number')), url),
  };
}
