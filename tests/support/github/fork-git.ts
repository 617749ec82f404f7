// The forks' own repositories, served as GitHub serves a repository over git's smart HTTP
// (`<server>/<owner>/<repo>.git`), from the bare repositories under the emulator's `forksDir`: over HTTPS
// (our git speaks nothing else), on 127.0.0.1 with a certificate made for the test. A push is
// let through as GitHub lets one through to a fork that is not the token's: only for a person (a user's
// token, `tokenUser`) with push access to this repository, and only to the head branch of an open pull
// request from that fork whose author allows edits from maintainers. The workflow's token and an app's
// installation token reach this repository alone: 403, in GitHub's words. A branch that moved since the
// pusher's look is refused by git itself (never forced here). Once a pull request's head branch is pushed,
// the origin's `refs/pull/N/head` follows it, as GitHub's does.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveGitBackend } from '../git-backend.js';
import { selfSigned } from '../network/git-https.js';
import { originGit } from './origin-git.js';
import type { Emu } from './state.js';

const GIT_PATH = /^\/([^/]+)\/([^/]+)\.git\/(info\/refs|git-upload-pack|git-receive-pack)$/;

/** Every push a fork's repository answered: who, to which repository, and whether it was let through. */
export interface ForkPushCall {
  repo: string;
  login: string;
  allowed: boolean;
}

export interface ForkGitServer {
  /** `https://127.0.0.1:PORT`: GITHUB_SERVER_URL, as far as the forks' repositories go. */
  url: string;
  /** The certificate to trust (GIT_SSL_CAINFO), as PEM. */
  certificate: string;
  close(): Promise<void>;
}

/** Serves the forks under `emu.options.forksDir`; every push asked for lands in `pushes`. */
export async function startForkGit(emu: Emu, pushes: ForkPushCall[]): Promise<ForkGitServer> {
  const dir = await mkdtemp(join(tmpdir(), 'todo-agent-fork-git-'));
  const { key, cert } = await selfSigned(dir, '127.0.0.1').finally(() =>
    rm(dir, { recursive: true, force: true }),
  );
  const server = createServer({ key, cert }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    forkGit(emu, req, res, url, pushes).catch((error: unknown) => {
      emu.violations.push(`emulator error on git ${url.pathname}: ${String(error)}`);
      res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as { port: number }).port}`,
    certificate: cert,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Answers one git request for a fork's repository; resolves once the answer is sent. */
function forkGit(
  emu: Emu,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  pushes: ForkPushCall[],
): Promise<void> {
  const root = emu.options.forksDir ?? '';
  const match = GIT_PATH.exec(url.pathname);
  if (!match) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('Not Found\n');
    return Promise.resolve();
  }
  const [, owner = '', repo = '', service] = match;
  if (basicToken(req.headers.authorization) !== emu.options.token) {
    res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Basic realm="GitHub"' });
    res.end('Invalid username or token. Password authentication is not supported for Git operations.\n');
    return Promise.resolve();
  }
  const pushing = service === 'git-receive-pack' || url.searchParams.get('service') === 'git-receive-pack';
  if (!pushing) return serveGitBackend(req, res, { root, url });
  // A fork keeps the repository's name: another name is a repository GitHub does not have.
  if (repo !== emu.repo) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('Repository not found.\n');
    return Promise.resolve();
  }
  // The pusher is whoever the token belongs to: a user's token, else the workflow's app.
  const login = emu.options.tokenUser ?? emu.actor;
  const pushable = pushableRefs(emu, owner);
  if (url.pathname.endsWith('/info/refs'))
    pushes.push({ repo: `${owner}/${repo}`, login, allowed: pushable.length > 0 });
  if (pushable.length === 0) {
    res.writeHead(403, { 'content-type': 'text/plain' });
    res.end(`Permission to ${owner}/${repo}.git denied to ${login}.\n`);
    return Promise.resolve();
  }
  const gitDir = join(root, owner, `${repo}.git`);
  return (async () => {
    await onlyTheseRefs(gitDir);
    await serveGitBackend(req, res, {
      root,
      url,
      env: { REMOTE_USER: login, EMU_PUSHABLE: pushable.join(' ') },
      ...(service === 'git-receive-pack' ? { beforeEnd: () => followHeads(emu, owner, gitDir) } : {}),
    });
  })();
}

/** The token of `Authorization: Basic base64(x-access-token:<token>)`, as git sends it. */
function basicToken(header: string | undefined): string | undefined {
  const encoded = /^basic\s+(\S+)$/i.exec(header ?? '')?.[1];
  return encoded ? Buffer.from(encoded, 'base64').toString().split(':').slice(1).join(':') : undefined;
}

/** The branches of `owner`'s fork this token may push to: none but for a maintainer's own token. */
function pushableRefs(emu: Emu, owner: string): string[] {
  const { tokenUser, permissions = {} } = emu.options;
  if (tokenUser === undefined) return [];
  const level = permissions[tokenUser];
  if (level !== 'admin' && level !== 'write') return [];
  return emu.state.pulls
    .filter((pull) => pull.state === 'open' && pull.fork?.owner === owner && pull.fork.maintainer_can_modify)
    .map((pull) => `refs/heads/${pull.head}`);
}

/** A pre-receive hook that lets through only the refs `EMU_PUSHABLE` names (set per push). */
async function onlyTheseRefs(gitDir: string): Promise<void> {
  const hook = join(gitDir, 'hooks', 'pre-receive');
  await writeFile(
    hook,
    `#!/bin/sh
while read old new ref; do
  case " $EMU_PUSHABLE " in
    *" $ref "*) ;;
    *) echo "error: Permission to push to $ref denied: it is not the head of a pull request that allows edits from maintainers" >&2; exit 1 ;;
  esac
done
`,
  );
  await chmod(hook, 0o755);
}

/** The origin's `refs/pull/N/head` of each open pull request from `owner`'s fork, moved to its branch's tip. */
async function followHeads(emu: Emu, owner: string, gitDir: string): Promise<void> {
  const origin = emu.options.remoteDir;
  if (!origin) return;
  for (const pull of emu.state.pulls) {
    if (pull.state !== 'open' || pull.fork?.owner !== owner) continue;
    await originGit(origin, [
      'fetch',
      '-q',
      '--no-tags',
      gitDir,
      `+refs/heads/${pull.head}:refs/pull/${pull.number}/head`,
    ]).catch(() => undefined);
  }
}
