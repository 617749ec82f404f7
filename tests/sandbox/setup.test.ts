// Building the sandbox here: through sudo, from user namespaces, and which paths it may hide. It needs what
// tests/sandbox/namespaces.test.ts needs; the tests that become another user need root.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCommand } from '../../src/sandbox/commands/run-command.js';
import { Sandbox, type SandboxConfig } from '../../src/sandbox/namespaces.js';
import { openSandbox, openSibling, sandboxConfig, type SandboxRequest } from '../../src/sandbox/setup.js';
import { lockdownEnv } from '../../src/git/git-process.js';
import { SNAPSHOT_MOUNT } from '../../src/sandbox/init.js';
import { asRoot, expectOk, runnerLayout } from '../support/sandbox-layout.js';

const execFileAsync = promisify(execFile);

const { root, home, ws, hiddenDir, sandbox, run, env: layoutEnv } = await runnerLayout();

/** The settings for the layout's workspace with these paths to hide, and the warnings they gave. */
async function withWarnings(
  request: Pick<SandboxRequest, 'hidden' | 'toolCache'>,
): Promise<{ config: SandboxConfig; warnings: string[] }> {
  const warnings: string[] = [];
  const config = await sandboxConfig({
    workspace: ws,
    network: 'host',
    ...request,
    warn: (line) => warnings.push(line),
  });
  return { config, warnings };
}

describe('the sandbox', () => {
  it("gives a server a sandbox of its own: the snapshot read-only, and HOME, /tmp and .git layers the tools' writes never reach", async () => {
    const snapshot = path.join(root, 'snapshot');
    await mkdir(snapshot, { recursive: true });
    await writeFile(path.join(snapshot, 'server.mjs'), 'from the snapshot\n');
    await chmod(snapshot, 0o755);
    // The tools write where a server would read: HOME, /tmp.
    expectOk(await run('echo planted > "$HOME/.gitconfig" && echo planted > /tmp/planted'));
    const server = await openSibling(sandbox, snapshot);
    onTestFinished(() => server.close());
    // Its own directory lies in the tools' sandbox's, which goes with it (the post step's after a kill).
    expect(path.dirname(server.privateDir)).toBe(sandbox.privateDir);
    const seen = expectOk(
      await run(
        `cat ${SNAPSHOT_MOUNT}/server.mjs; cat "$HOME/.gitconfig" /tmp/planted 2>&1; ` +
          `touch ${SNAPSHOT_MOUNT}/x 2>&1; echo server > /tmp/own; true`,
        { sandbox: server },
      ),
    );
    expect(seen).toContain('from the snapshot');
    expect(seen).not.toContain('planted\n');
    expect(seen).toMatch(/x'?: Read-only file system/);
    // What the server wrote stays its own; the tools never saw the snapshot.
    expectOk(await run('! cat /tmp/own && ! ls /tmp/todo-agent-snapshot'));
  });

  it("holds a server's git to the workspace's own repository: a nested one the tools make runs nothing of theirs", async () => {
    const secret = 'server-secret-9f2c41d07e';
    const repo = path.join(root, 'repo');
    await mkdir(repo);
    const git = (...args: string[]) =>
      execFileAsync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo });
    await writeFile(path.join(repo, 'hello.txt'), 'hello\n');
    await git('init', '-q');
    await git('add', '-A');
    await git('commit', '-qm', 'base');
    const tools = await openSandbox({ workspace: repo, network: 'host', home, layerGitDir: true });
    onTestFinished(() => tools.close());
    // The tools make repositories of their own in the work tree, whose drivers write the secret out.
    const leak = (name: string) =>
      `sh -c 'printf %s "$TOKEN" > ${repo}/leak-${name}; printf %s "$TOKEN" | od -An -tx1 > ${repo}/leak-${name}-hex; cat'`;
    const commit = 'git -c user.name=m -c user.email=m@example.com commit -qm x';
    expectOk(
      await run(
        [
          `git init -q sub && cd sub && echo x > x && git add x && ${commit}`,
          `git config filter.leak.clean "${leak('clean')}"`,
          `git config diff.leak.textconv "${leak('textconv')}"`,
          `git config core.fsmonitor "${leak('fsmonitor')}"`,
          `echo '* filter=leak diff=leak' > .git/info/attributes && echo more >> x && cd ..`,
          `git init -q --bare bare.git && git --git-dir=bare.git config core.alternateRefsCommand "${leak('bare')}"`,
          `mkdir linked && echo "gitdir: ${repo}/sub/.git" > linked/.git`,
          'echo changed >> hello.txt',
        ].join(' && '),
        { sandbox: tools, cwd: repo },
      ),
    );
    await mkdir(path.join(root, 'snapshot'), { recursive: true });
    await chmod(path.join(root, 'snapshot'), 0o755);
    const server = await openSibling(tools, path.join(root, 'snapshot'));
    onTestFinished(() => server.close());
    const seen = await runCommand(
      [
        'git status --porcelain; git add -A; git status --porcelain; git diff HEAD',
        'git -C sub status; (cd sub && git diff); git --git-dir=sub/.git --work-tree=sub diff',
        'GIT_DIR=sub/.git git status; (cd linked && git status); (cd bare.git && git log); true',
      ].join('; '),
      {
        cwd: repo,
        env: { ...layoutEnv, TOKEN: secret, ...lockdownEnv() },
        timeoutMs: 30_000,
        sandbox: server,
      },
    );
    // Nothing of the tools' repositories ran with its secret; its git works in the workspace's own repository
    // (it sees the tools' change there), and in none of theirs.
    expect((await readdir(repo)).filter((name) => name.startsWith('leak-'))).toEqual([]);
    const forms = [secret, Buffer.from(secret).toString('hex'), Buffer.from(secret).toString('base64')];
    for (const form of [...forms, [...secret].reverse().join('')]) expect(seen.output).not.toContain(form);
    expect(seen.output).toMatch(/^ M hello\.txt$/m);
    expect(seen.output).toContain(
      "that is not its own: an MCP server's git works in the workspace's own repository only",
    );
  });

  it.runIf(asRoot)(
    "is built the same way through sudo, with exactly the tools' environment (a stand-in sudo here)",
    async () => {
      // Real sudo is not on this machine (CI runs as root); the stand-in forks and runs its command as sudo
      // would, after dropping its own environment, which is what `env -i` in the command line restores.
      const fakeSudo = path.join(root, 'sudo');
      await writeFile(
        fakeSudo,
        '#!/bin/sh\n[ "$1 $2" = "-n --" ] || exit 99\nshift 2\nexec 3<&0\nenv -i "$@" <&3 3<&- &\nwait $!\n',
        {
          mode: 0o755,
        },
      );
      const config = {
        ...(await sandboxConfig({ workspace: ws, network: 'host' })),
        isolation: 'sudo' as const,
        escalate: [fakeSudo, '-n', '--'],
      };
      const viaSudo = await Sandbox.open(config);
      try {
        const result = await runCommand(
          'echo "[$TOOL_ONLY]"; env | sort | cut -d= -f1 | tr "\\n" " "; ls /proc | grep -cE "^[0-9]+$"',
          {
            cwd: ws,
            env: { PATH: '/usr/bin:/bin', TOOL_ONLY: 'kept' },
            timeoutMs: 20_000,
            sandbox: viaSudo,
          },
        );
        expect(result.output).toContain('[kept]');
        const output = expectOk(result);
        // Only what the tools were given (and what the shells add), in a PID namespace of its own.
        expect(output).toMatch(/^(OLDPWD )?PATH PWD SHLVL TOOL_ONLY _ [1-9]$/m);
      } finally {
        viaSudo.close();
      }
      expect(existsSync(viaSudo.privateDir)).toBe(false); // removed through the stand-in sudo
    },
  );

  it("shows a file in place of the runner's, read-only, over a hidden file and inside a hidden directory", async () => {
    const npmrc = path.join(home, '.npmrc');
    await writeFile(
      npmrc,
      'registry=https://npm.corp.test/\n//npm.corp.test/:_authToken=npm_hiddenToken01\n',
    );
    const ca = path.join(hiddenDir, 'corp', 'ca.pem');
    const seen = path.join(home, 'seen-anyway.pem');
    const shown = await openSandbox({
      workspace: ws,
      network: 'host',
      home,
      hidden: [hiddenDir],
      shown: [
        { path: npmrc, text: 'registry=https://npm.corp.test/\n' },
        { path: ca, text: 'CA FOR THE TOOLS\n', ifHidden: true },
        { path: seen, text: 'never written\n', ifHidden: true },
      ],
    });
    onTestFinished(() => shown.close());
    // Only what the sandbox would hide is shown: a CA file the tools see anyway is left as it is.
    expect(shown.config.shown?.map((file) => file.path)).toEqual([npmrc, ca]);
    const out = expectOk(
      await run(
        `cat "$HOME/.npmrc" ${ca}; cat ${hiddenDir}/credentials 2>&1; ` +
          `echo x >> "$HOME/.npmrc" 2>&1; touch ${hiddenDir}/planted 2>&1; echo x >> ${ca} 2>&1; true`,
        { sandbox: shown },
      ),
    );
    expect(out).toContain('registry=https://npm.corp.test/\nCA FOR THE TOOLS\n');
    expect(out).not.toMatch(/npm_hiddenToken01|SECRET-IN-DIR/);
    // Not theirs to change: read-only, or (as root builds it) not their file either.
    expect(out.match(/Read-only file system|Permission denied/g)).toHaveLength(3);
  });

  it('never hides the workspace or a folder holding it, but covers what stands beside the way down', async () => {
    const config = await sandboxConfig({ workspace: ws, network: 'host', hidden: [root, ws, hiddenDir] });
    expect(config.hidden).toContain(hiddenDir);
    expect(config.hidden).not.toContain(root);
    expect(config.hidden).not.toContain(ws);
    // As a self-hosted runner's install folder holds _work and, beside it, .credentials and its RSA key.
    const asRunner = await sandboxConfig({ workspace: ws, network: 'host', hidden: [home] });
    expect(asRunner.hidden).toEqual(
      expect.arrayContaining([path.join(home, 'preinstalled'), path.join(home, '.ssh')]),
    );
    expect(asRunner.hidden).not.toContain(home);
    expect(asRunner.hidden).not.toContain(path.join(home, 'work'));
  });

  it('hides what stands beside the way down to the tool cache in a path it hides, at every level, and says so', async () => {
    // As hiding /opt would hide /opt/hostedtoolcache: /opt/other, /opt/tools/secret beside the cache stay hidden.
    const opt = path.join(root, 'opt');
    const cache = path.join(opt, 'tools', 'hostedtoolcache');
    await mkdir(path.join(cache, 'Python'), { recursive: true });
    await mkdir(path.join(opt, 'other'));
    await writeFile(path.join(opt, 'tools', 'secret'), 'SECRET\n');
    const { config, warnings } = await withWarnings({ hidden: [opt, hiddenDir], toolCache: cache });
    expect(config.toolCache).toBe(cache);
    expect(config.hidden).toEqual(
      expect.arrayContaining([path.join(opt, 'other'), path.join(opt, 'tools', 'secret'), hiddenDir]),
    );
    for (const kept of [opt, path.join(opt, 'tools'), cache, path.join(cache, 'Python')])
      expect(config.hidden).not.toContain(kept);
    expect(warnings).toEqual([
      `${opt}, a path the sandbox hides, holds the tool cache ${cache}: everything in it is hidden but the ` +
        'way down to the tool cache, which the tools keep.',
    ]);

    // The tool cache itself to hide: hiding wins, and the tools go without it.
    const { config: hiddenCache, warnings: lost } = await withWarnings({ hidden: [cache], toolCache: cache });
    expect([hiddenCache.toolCache, hiddenCache.hidden.includes(cache)]).toEqual([undefined, true]);
    expect(lost).toEqual([`The tool cache ${cache} is a path the sandbox hides: the tools do without it.`]);

    // A self-hosted runner's folder holds both `_work/_tool` and the workspace: that is the usual layout, no
    // warning, and what stands beside either way is hidden.
    const { config: selfHosted, warnings: quiet } = await withWarnings({
      hidden: [home],
      toolCache: path.join(home, 'work', 'runner-temp'),
    });
    expect(quiet).toEqual([]);
    expect(selfHosted.hidden).toEqual(expect.arrayContaining([path.join(home, 'work', 'github-env')]));
    expect(selfHosted.hidden).not.toContain(path.join(home, 'work', 'runner-temp'));
  });

  it.skipIf(asRoot)('says so when a path it hides holds the tool cache but may not be listed', async () => {
    // Root may list anything: this runs as a plain user (sudo or rootless).
    const locked = path.join(root, 'locked');
    const cache = path.join(locked, 'toolcache');
    await mkdir(cache, { recursive: true });
    await chmod(locked, 0o311);
    onTestFinished(() => chmod(locked, 0o755));
    const { config, warnings } = await withWarnings({ hidden: [locked], toolCache: cache });
    expect(config.toolCache).toBe(cache);
    expect(warnings.at(-1)).toBe(
      `${locked}, a path the sandbox hides, cannot be listed (EACCES): nothing in it is hidden.`,
    );
  });

  it.runIf(asRoot)(
    'is built from user namespaces for a user who is not root and has no sudo, with that isolation',
    async () => {
      const script = `
      import { sandboxConfig } from ${JSON.stringify(path.resolve('src/sandbox/setup.ts'))};
      sandboxConfig({ workspace: '/tmp', network: 'host' }).then(
        (config) => console.log(config.isolation, config.uid, config.escalate.slice(1).join(' ')),
        (error) => console.log(error.name + ': ' + error.message),
      );`;
      const { stdout } = await execFileAsync(
        'setpriv',
        [
          '--reuid=65534',
          '--regid=65534',
          '--clear-groups',
          '--',
          process.execPath,
          '--import',
          'tsx',
          '--input-type=module',
          '-e',
          script,
        ],
        { cwd: path.resolve('.'), env: { PATH: process.env.PATH, HOME: '/tmp' } },
      );
      // The tools are that user itself (its uid 0 in the template's namespace only), never root.
      expect(stdout.trim()).toBe('rootless 65534 --user --map-root-user --');
    },
  );
});
