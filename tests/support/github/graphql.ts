// GitHub's GraphQL endpoint (POST /graphql), as far as todo-agent uses it: the createCommitOnBranch mutation.
// Every query is validated, and its variables coerced, against GitHub's published schema
// (@octokit/graphql-schema); the commit is written into the origin with git plumbing, as GitHub would make
// it: authored by the token's owner, committed by GitHub, and recorded as signed (Verified).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { schema as published } from '@octokit/graphql-schema';
import { buildClientSchema, execute, GraphQLError, parse, validate, type GraphQLSchema } from 'graphql';
import { userJson, WEB } from './json.js';
import { originBranch, originGit } from './origin-git.js';
import type { Reply } from './replies.js';
import type { Emu } from './state.js';

let built: GraphQLSchema | undefined;
/**
 * GitHub's schema, built once per process (it is large), from its introspection JSON: the published SDL
 * defines two EnterpriseOwnerInfo fields twice, which graphql-js refuses.
 */
const githubSchema = () =>
  (built ??= buildClientSchema(published.json as unknown as Parameters<typeof buildClientSchema>[0]));

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** GitHub's committer for commits made on the web and through this mutation. */
const WEB_COMMITTER = { name: 'GitHub', email: 'noreply@github.com' };

interface CommitInput {
  branch: { repositoryNameWithOwner?: string; branchName?: string; id?: string };
  message: { headline: string; body?: string };
  fileChanges?: {
    additions?: Array<{ path: string; contents: string }>;
    deletions?: Array<{ path: string }>;
  };
  expectedHeadOid: string;
}

/** Answers one GraphQL request: 200 with `data` and/or `errors`, as GitHub does. */
export async function answerGraphql(emu: Emu, body: unknown): Promise<Reply> {
  const { query, variables } = (body ?? {}) as { query?: unknown; variables?: Record<string, unknown> };
  if (typeof query !== 'string') {
    emu.violations.push('POST /graphql: no query');
    return { status: 400, body: { message: 'Problems parsing JSON' } };
  }
  let document;
  try {
    document = parse(query);
  } catch (error) {
    emu.violations.push(`POST /graphql: ${String(error)}`);
    return { status: 200, body: { errors: [{ message: String((error as Error).message) }] } };
  }
  const problems = validate(githubSchema(), document);
  if (problems.length) {
    for (const problem of problems) emu.violations.push(`POST /graphql: ${problem.message}`);
    return { status: 200, body: { errors: problems.map((p) => ({ message: p.message })) } };
  }
  const rootValue = {
    createCommitOnBranch: ({ input }: { input: CommitInput }) => createCommitOnBranch(emu, input),
  };
  const result = await execute({
    schema: githubSchema(),
    document,
    variableValues: variables ?? {},
    rootValue,
  });
  if (!result.data)
    for (const error of result.errors ?? []) emu.violations.push(`POST /graphql: ${error.message}`);
  return {
    status: 200,
    body: {
      ...(result.data ? { data: result.data } : {}),
      ...(result.errors
        ? {
            errors: result.errors.map((e) => ({
              type: e.extensions?.type ?? 'UNPROCESSABLE',
              message: e.message,
              path: e.path,
            })),
          }
        : {}),
    },
  };
}

const refuse = (message: string, type = 'UNPROCESSABLE') =>
  new GraphQLError(message, { extensions: { type } });

async function createCommitOnBranch(emu: Emu, input: CommitInput) {
  const { remoteDir } = emu.options;
  if (!remoteDir || input.branch.id) {
    emu.violations.push('not emulated: createCommitOnBranch without a remoteDir, or by branch id');
    throw refuse('Not emulated');
  }
  const nameWithOwner = `${emu.owner}/${emu.repo}`.toLowerCase();
  if (input.branch.repositoryNameWithOwner?.toLowerCase() !== nameWithOwner) {
    throw refuse(
      `Could not resolve to a Repository with the name '${input.branch.repositoryNameWithOwner}'.`,
      'NOT_FOUND',
    );
  }
  const branch = (input.branch.branchName ?? '').replace(/^refs\/heads\//, '');
  const head = await originBranch(remoteDir, branch);
  if (!head) throw refuse(`A ref named "refs/heads/${branch}" does not exist.`, 'NOT_FOUND');
  if (head !== input.expectedHeadOid) {
    throw refuse(
      `Expected branch to point to "${input.expectedHeadOid}" but it did not. Pull and try again.`,
      'STALE_DATA',
    );
  }
  const additions = input.fileChanges?.additions ?? [];
  const deletions = input.fileChanges?.deletions ?? [];
  const workflow = [...additions, ...deletions].find(({ path }) => path.startsWith('.github/workflows/'));
  if (workflow && emu.options.workflowsPermission === false) {
    throw refuse(
      `refusing to allow a GitHub App to create or update workflow \`${workflow.path}\` without \`workflows\` permission`,
      'FORBIDDEN',
    );
  }
  for (const { path, contents } of additions) {
    if (!BASE64.test(contents)) {
      emu.violations.push(`createCommitOnBranch: contents of ${path} is not RFC 4648 base64`);
      throw refuse(`Invalid Base64 for ${path}`);
    }
  }
  const scratch = await mkdtemp(join(tmpdir(), 'emu-index-'));
  try {
    const env = { GIT_INDEX_FILE: join(scratch, 'index') };
    await originGit(remoteDir, ['read-tree', head], { env });
    for (const { path, contents } of additions) {
      const blob = await originGit(remoteDir, ['hash-object', '-w', '--stdin'], {
        input: Buffer.from(contents, 'base64'),
      });
      await originGit(remoteDir, ['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], { env });
    }
    // A bare origin has no work tree, which `--force-remove` wants: mode 0 in --index-info removes the entry.
    if (deletions.length > 0) {
      const removed = deletions.map(({ path }) => `0 ${'0'.repeat(40)}\t${path}\n`).join('');
      await originGit(remoteDir, ['update-index', '--index-info'], { env, input: removed });
    }
    const tree = await originGit(remoteDir, ['write-tree'], { env });
    const author = userJson(emu, emu.actor);
    const message = input.message.body
      ? `${input.message.headline}\n\n${input.message.body}`
      : input.message.headline;
    const oid = await originGit(remoteDir, ['commit-tree', tree, '-p', head, '-F', '-'], {
      input: message,
      env: {
        GIT_AUTHOR_NAME: author.login,
        GIT_AUTHOR_EMAIL: `${author.id}+${author.login}@users.noreply.github.com`,
        GIT_COMMITTER_NAME: WEB_COMMITTER.name,
        GIT_COMMITTER_EMAIL: WEB_COMMITTER.email,
      },
    });
    await originGit(remoteDir, ['update-ref', `refs/heads/${branch}`, oid, head]);
    emu.state.apiCommits.push({ oid, branch, verified: true });
    return { commit: { oid, url: `${WEB}/${emu.owner}/${emu.repo}/commit/${oid}` } };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
