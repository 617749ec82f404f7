import { execFile, execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  dropPersistedCredentials,
  loadConfig,
  saveConfig,
  type SavedConfig,
} from '../../src/git/config-guard.js';
import { GitRepo } from '../../src/git/repo.js';
import { ForcedRemoval } from '../../src/git/forced-removal.js';
import {
  asNotRoot,
  cloneNewOrigin,
  commitFiles,
  git,
  GIT_ENV,
  useGitScratch,
} from '../support/git-fixture.js';

const env = GIT_ENV;
const TOKEN = 'ghs_configGuardToken000000000000000000001';
const HEADER = `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;

const scratch = useGitScratch('todo-agent-guard-', () => {
  cloneNewOrigin(scratch, scratch.dir);
  commitFiles(scratch.dir, { 'README.md': '# hello\n' }, 'init');
  git(scratch.dir, 'push', '-q', 'origin', 'main');
});

describe('dropPersistedCredentials', () => {
  it("removes actions/checkout's header, its credentials include and user:password in remote URLs", async () => {
    // v4: the header in .git/config. v6: an includeIf to a file in RUNNER_TEMP. Older: a token in the URL.
    git(scratch.dir, 'config', 'http.https://github.com/.extraheader', HEADER);
    const included = join(scratch.root, 'git-credentials-1234.config');
    writeFileSync(included, `[http "https://github.com/"]\n\textraheader = ${HEADER}\n`);
    git(scratch.dir, 'config', `includeIf.gitdir:${scratch.dir}/.git.path`, included);
    const harmless = join(scratch.root, 'harmless.config');
    writeFileSync(harmless, '[core]\n\tautocrlf = false\n');
    git(scratch.dir, 'config', '--add', 'include.path', harmless);
    git(scratch.dir, 'config', 'remote.mirror.url', `https://x-access-token:${TOKEN}@github.com/o/r.git`);
    const submodule = join(scratch.dir, '.git', 'modules', 'lib');
    mkdirSync(submodule, { recursive: true });
    writeFileSync(join(submodule, 'config'), `[http "https://github.com/"]\n\textraheader = ${HEADER}\n`);

    const removed = await dropPersistedCredentials(new GitRepo(scratch.dir, { env }));

    expect(removed).toBe(4);
    const config = git(scratch.dir, 'config', '--list', '--includes', '--show-origin');
    expect(config).not.toContain(TOKEN);
    expect(config).not.toContain('extraheader');
    expect(config).toContain('remote.mirror.url=https://github.com/o/r.git');
    expect(config).toContain(`include.path=${harmless}`);
    expect(readFileSync(join(submodule, 'config'), 'utf8')).not.toContain('extraheader');
  });

  it('finds nothing to remove after persist-credentials: false', async () => {
    const before = readFileSync(join(scratch.dir, '.git', 'config'), 'utf8');
    expect(await dropPersistedCredentials(new GitRepo(scratch.dir, { env }))).toBe(0);
    expect(readFileSync(join(scratch.dir, '.git', 'config'), 'utf8')).toBe(before);
  });
});

describe('saveConfig', () => {
  /** Saved into a folder of its own (our own git directory in a run), and put back with a fresh collector. */
  const save = async () => {
    const into = join(scratch.root, 'saved');
    mkdirSync(into, { recursive: true });
    return await saveConfig(scratch.dir, into);
  };
  const restore = async (saved: SavedConfig) => {
    const entries = new ForcedRemoval({ root: scratch.dir });
    return { restored: await saved.restore(entries), found: entries.found };
  };

  it('puts back the configuration as it was, dropping what the model added, even through a symlink', async () => {
    const before = readFileSync(join(scratch.dir, '.git', 'config'), 'utf8');
    const saved = await save();
    git(scratch.dir, 'config', 'core.fsmonitor', 'touch /tmp/x');
    git(scratch.dir, 'config', 'remote.origin.url', 'https://attacker.example/r.git');
    writeFileSync(join(scratch.dir, '.git', 'commondir'), '/tmp/elsewhere\n');
    const elsewhere = join(scratch.root, 'elsewhere.config');
    writeFileSync(elsewhere, '[core]\n\thooksPath = /tmp\n');
    rmSync(join(scratch.dir, '.git', 'config'));
    symlinkSync(elsewhere, join(scratch.dir, '.git', 'config'));

    const hooks = join(scratch.dir, '.git', 'hooks');
    const sample = readdirSync(hooks).sort();
    writeFileSync(join(hooks, 'pre-push'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    writeFileSync(join(hooks, sample[0]!), 'changed\n');

    expect(await restore(saved)).toEqual({ restored: true, found: { left: [], unread: [] } });

    expect(readFileSync(join(scratch.dir, '.git', 'config'), 'utf8')).toBe(before);
    expect(readdirSync(hooks).sort()).toEqual(sample); // the new hook is gone, the changed one is back
    expect(readFileSync(join(hooks, sample[0]!), 'utf8')).not.toBe('changed\n');
    expect(existsSync(join(scratch.dir, '.git', 'commondir'))).toBe(false);
    expect(readFileSync(elsewhere, 'utf8')).toContain('hooksPath'); // the link was replaced, not followed
  });

  it('changes nothing when .git is no longer a directory (a link or a file): the caller makes a new one', async () => {
    const saved = await save();
    const originConfig = readFileSync(join(scratch.origin, 'config'), 'utf8');
    rmSync(join(scratch.dir, '.git'), { recursive: true });
    writeFileSync(join(scratch.dir, '.git'), `gitdir: ${scratch.origin}\n`);
    expect((await restore(saved)).restored).toBe(false);
    expect(readFileSync(join(scratch.dir, '.git'), 'utf8')).toBe(`gitdir: ${scratch.origin}\n`);
    expect(readFileSync(join(scratch.origin, 'config'), 'utf8')).toBe(originConfig);
  });

  it('replaces a hooks link by a directory of the saved hooks, never emptying what the link named', async () => {
    const saved = await save();
    const hooks = join(scratch.dir, '.git', 'hooks');
    const sample = readdirSync(hooks).sort();
    const outside = join(scratch.root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep.txt'), 'keep\n');
    rmSync(hooks, { recursive: true });
    symlinkSync(outside, hooks);

    await restore(saved);

    expect(readdirSync(outside)).toEqual(['keep.txt']);
    expect(readdirSync(hooks).sort()).toEqual(sample);
  });

  it('puts back a shallow file replaced by a link, without writing through it', async () => {
    const shallowFile = join(scratch.dir, '.git', 'shallow');
    writeFileSync(shallowFile, `${git(scratch.dir, 'rev-parse', 'HEAD')}\n`);
    const saved = await save();
    const secret = join(scratch.root, 'npmrc');
    writeFileSync(secret, '//npm.registry.example/:_authToken=npm_notForGit\n');
    rmSync(shallowFile);
    symlinkSync(secret, shallowFile);

    await restore(saved);

    expect(readFileSync(shallowFile, 'utf8')).toBe(`${git(scratch.dir, 'rev-parse', 'HEAD')}\n`);
    expect(readFileSync(secret, 'utf8')).toContain('npm_notForGit');
  });

  it('is read back from where it was saved (the post step of a killed run), and nothing when nothing was', async () => {
    const before = readFileSync(join(scratch.dir, '.git', 'config'), 'utf8');
    await save();
    git(scratch.dir, 'config', 'core.fsmonitor', 'touch /tmp/x');
    writeFileSync(join(scratch.dir, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\ntouch /tmp/x\n', {
      mode: 0o755,
    });
    const loaded = await loadConfig(scratch.dir, join(scratch.root, 'saved'));
    expect(loaded?.config).toBe(before);
    expect((await restore(loaded!)).restored).toBe(true);
    expect(readFileSync(join(scratch.dir, '.git', 'config'), 'utf8')).toBe(before);
    expect(existsSync(join(scratch.dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(await loadConfig(scratch.dir, join(scratch.root, 'nothing-saved-here'))).toBeUndefined();
  });

  it('puts the configuration back past hooks and a .git the model made unreadable and unwritable', async () => {
    const before = readFileSync(join(scratch.dir, '.git', 'config'), 'utf8');
    const saved = await save();
    const hooks = join(scratch.dir, '.git', 'hooks');
    const sample = readdirSync(hooks).sort();
    mkdirSync(join(hooks, 'zz.d', 'x'), { recursive: true });
    git(scratch.dir, 'config', 'core.fsmonitor', `touch ${scratch.marks}/fsmonitor; false`);
    chmodSync(join(hooks, 'zz.d'), 0o000);
    chmodSync(hooks, 0o000);
    chmodSync(join(scratch.dir, '.git'), 0o555);
    // As the user the workspace belongs to (modes stop no root).
    chmodSync(scratch.root, 0o755);
    const outcome = await asNotRoot([scratch.dir], async () => await restore(saved));
    expect(outcome).toEqual({ restored: true, found: { left: [], unread: [] } });
    expect(readFileSync(join(scratch.dir, '.git', 'config'), 'utf8')).toBe(before);
    expect(readdirSync(hooks).sort()).toEqual(sample);
  });
});

describe("GitRepo runs only git, whatever the repository's configuration says", () => {
  it('commits and pushes with a planted fsmonitor, post-commit, reference-transaction and pre-push hook, and a hooksPath, none of which runs', async () => {
    const hook = (name: string, exit = 0) => {
      const file = join(scratch.dir, '.git', 'hooks', name);
      writeFileSync(file, `#!/bin/sh\ntouch ${scratch.marks}/${name}\nexit ${exit}\n`);
      chmodSync(file, 0o755);
    };
    hook('post-commit');
    hook('pre-commit', 1);
    hook('commit-msg', 1);
    hook('reference-transaction', 1);
    hook('pre-push', 1);
    mkdirSync(join(scratch.dir, 'hooks'));
    writeFileSync(
      join(scratch.dir, 'hooks', 'post-commit'),
      `#!/bin/sh\ntouch ${scratch.marks}/hooks-path\n`,
    );
    chmodSync(join(scratch.dir, 'hooks', 'post-commit'), 0o755);
    git(scratch.dir, 'config', 'core.hooksPath', 'hooks');
    git(scratch.dir, 'config', 'core.fsmonitor', `touch ${scratch.marks}/fsmonitor; false`);
    git(scratch.dir, 'config', 'credential.helper', `!touch ${scratch.marks}/credential-helper; echo`);
    git(scratch.dir, 'config', 'core.sshCommand', `touch ${scratch.marks}/ssh`);
    writeFileSync(join(scratch.dir, '.gitattributes'), '*.txt filter=evil\n');
    git(scratch.dir, 'config', 'filter.evil.clean', `touch ${scratch.marks}/filter; cat`);
    git(scratch.dir, 'config', 'filter.evil.required', 'false');
    writeFileSync(join(scratch.dir, 'work.txt'), 'work\n');

    const repo = new GitRepo(scratch.dir, { env });
    await repo.createBranch('agent/issue-1-1');
    expect(await repo.hasChanges()).toBe(true);
    const sha = await repo.commitAll('work');
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(await repo.push('agent/issue-1-1')).toEqual({ ok: true });
    expect(git(scratch.origin, 'rev-parse', 'refs/heads/agent/issue-1-1')).toBe(sha);
    // The filter is the repository's own content rule, not a hook: the config guard is what drops it.
    expect(readdirSync(scratch.marks).filter((name) => name !== 'filter')).toEqual([]);
  });

  it('sends the token to the server from its own process only, over https', async () => {
    // A TLS server standing in for GitHub's smart HTTP: it records the Authorization header of each request.
    const key = join(scratch.root, 'key.pem');
    const cert = join(scratch.root, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const seen: (string | undefined)[] = [];
    const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (request, response) => {
      seen.push(request.headers.authorization);
      response.statusCode = request.headers.authorization ? 404 : 401;
      if (!request.headers.authorization) response.setHeader('WWW-Authenticate', 'Basic realm="test"');
      response.end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const serverUrl = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      git(scratch.dir, 'remote', 'set-url', 'origin', `${serverUrl}/o/r.git`);
      const tlsEnv = { ...env, GIT_SSL_CAINFO: cert };
      const repo = new GitRepo(scratch.dir, { env: tlsEnv, auth: { serverUrl, token: TOKEN } });
      await expect(repo.remoteBranchExists('main')).rejects.toThrow(/git ls-remote/);
      const basic = `basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
      expect(seen.map((header) => header?.toLowerCase())).toContain(basic.toLowerCase());
      // A git the model runs, in the same repository, has nothing to send.
      seen.length = 0;
      // (execFile, not execFileSync: the server answers from this same process.)
      await new Promise((done) =>
        execFile(
          'git',
          ['ls-remote', 'origin'],
          { cwd: scratch.dir, env: { ...tlsEnv, GIT_TERMINAL_PROMPT: '0' } },
          done,
        ),
      );
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((header) => header === undefined)).toBe(true);
      expect(readFileSync(join(scratch.dir, '.git', 'config'), 'utf8')).not.toContain(TOKEN);
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it('sends the token only as its own process configuration, never into .git/config', async () => {
    const repo = new GitRepo(scratch.dir, { env, auth: { serverUrl: 'https://github.com', token: TOKEN } });
    await repo.createBranch('agent/issue-2-1');
    writeFileSync(join(scratch.dir, 'a.txt'), 'a\n');
    await repo.commitAll('a');
    expect(await repo.push('agent/issue-2-1')).toEqual({ ok: true });
    expect(readFileSync(join(scratch.dir, '.git', 'config'), 'utf8')).not.toContain('extraheader');
    expect(readFileSync(join(scratch.dir, '.git', 'config'), 'utf8')).not.toContain(TOKEN);
  });
});
