// The sandbox on this machine, for real: namespaces, mounts, identities, the network. It needs root,
// passwordless sudo or unprivileged user namespaces (CI runs it as root and again as a user with neither);
// without them openSandbox throws and these tests fail with its reason.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { chown, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { SandboxConfig } from '../../src/sandbox/namespaces.js';
import { openSandbox } from '../../src/sandbox/setup.js';
import { runCommand } from '../../src/sandbox/commands/run-command.js';
import { asRoot, expectOk, runnerLayout } from '../support/sandbox-layout.js';

const execFileAsync = promisify(execFile);

const { root, home, ws, hiddenDir, hiddenFile, sandbox, env, run } = await runnerLayout();

/** Every host process's command line, as any user may read it (/proc/PID/cmdline). */
async function commandLines(): Promise<string[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const lines = await Promise.all(
    pids.map((pid) => readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')),
  );
  return lines.map((line) => line.replaceAll('\0', ' '));
}

/** The gid a user namespace shows for a group it does not map (kernel.overflowgid, 65534 by default). */
async function overflowGid(): Promise<number> {
  return Number((await readFile('/proc/sys/kernel/overflowgid', 'utf8')).trim());
}

/**
 * The groups the tools must have, given this process's: as root or through sudo their gid alone (the
 * supplementary groups are cleared); rootless the user's own, kept (a user namespace may not drop them),
 * where only the user's gid is mapped and every other shows as the overflow gid.
 */
async function toolGroups(config: SandboxConfig, own: readonly number[]): Promise<Set<number>> {
  if (config.isolation !== 'rootless') return new Set([config.gid]);
  const overflow = await overflowGid();
  return new Set([config.gid, ...own.map((gid) => (gid === config.gid ? gid : overflow))]);
}

describe('the sandbox', () => {
  it('keeps the workspace writable and every other mount read-only', async () => {
    const output = expectOk(
      await run(
        'echo made > made.txt && cat made.txt; touch /usr/sandbox-probe 2>&1; touch /etc/x 2>&1; true',
      ),
    );
    expect(output).toContain('made');
    expect(output).toMatch(/\/usr\/sandbox-probe.*Read-only file system/);
    expect(await readFile(path.join(ws, 'made.txt'), 'utf8')).toBe('made\n');
  });

  it('hides the paths it is given, also through `..`, and cannot be made to show them again', async () => {
    const output = expectOk(
      await run(
        `ls -A ${hiddenDir}; ls -A ../runner-temp; cat ${hiddenFile} ../github-env; echo x >> ${hiddenFile}; ` +
          `umount ${hiddenDir} 2>&1; umount -l ${hiddenFile} 2>&1; mount -t tmpfs none /mnt 2>&1; ` +
          `cat ../runner-temp/credentials ../github-env 2>&1; true`,
      ),
    );
    expect(output).not.toContain('SECRET');
    expect(output).toMatch(/umount: .*(must be superuser|Operation not permitted|permission denied)/i);
    expect(await readFile(hiddenFile, 'utf8')).toBe('SECRET-IN-FILE\n');
  });

  it('shows only its own processes, so the environment of the action and the runner stays out of reach', async () => {
    const output = expectOk(
      await run(
        'ls /proc | grep -E "^[0-9]+$" | tr "\\n" " "; echo; cat /proc/$PPID/environ 2>&1 | tr "\\0" "\\n"; ' +
          `echo; ls /proc/${process.pid} 2>&1; true`,
      ),
    );
    const pids = output.split('\n')[0]!.trim().split(' ').map(Number);
    expect(pids.every((pid) => pid < 20)).toBe(true);
    expect(output).toMatch(new RegExp(`/proc/${process.pid}.*No such file`));
    expect(output).not.toContain('ANTHROPIC');
    expect(output).not.toContain('INPUT_');
  });

  it('hides the sockets that could start something outside it (D-Bus here)', async () => {
    const output = expectOk(await run('ls -A /run/dbus | wc -l; echo >> /run/dbus/probe 2>&1; true'));
    expect(output.split('\n')[0]).toBe('0');
    expect(output).toMatch(/Read-only file system/);
  });

  it('runs without capabilities or a way to gain them (no_new_privs)', async () => {
    const output = expectOk(
      await run('grep -E "^(CapInh|CapEff|CapPrm|CapAmb|NoNewPrivs)" /proc/self/status; id -u'),
    );
    // The bounding set is that of the call's own user namespace: with no_new_privs nothing can fill it.
    for (const set of ['CapInh', 'CapEff', 'CapPrm', 'CapAmb'])
      expect(output).toMatch(`${set}:\t0000000000000000\n`);
    expect(output).toMatch(/NoNewPrivs:\s+1/);
    expect(output.trim().split('\n').at(-1)).not.toBe('0');
  });

  it('runs the tools as the workspace’s owner as they see it, never uid 0, whichever way it was built', async () => {
    // As root the workspace is root's and shown to an unprivileged uid; through sudo and rootless it is the
    // user's own, and rootless the tools see their real uid again (not the template's 0).
    const output = expectOk(await run('id -u; stat -c %u .; echo x > owner-probe; stat -c %u owner-probe'));
    const [tools, workspace, file] = output.trim().split('\n');
    expect([tools === '0', workspace, file]).toEqual([false, tools, tools]);
    expect((await stat(path.join(ws, 'owner-probe'))).uid).toBe((await stat(ws)).uid);
    expect(Number(tools)).toBe(asRoot ? 64_000 : process.getuid?.());
  });

  it('gives a /dev of harmless devices only, and a read-only /proc/sys', async () => {
    const output = expectOk(
      await run(
        'ls /dev | tr "\\n" " "; echo; echo x > /proc/sys/kernel/core_pattern 2>&1; head -c 4 /dev/urandom | wc -c',
      ),
    );
    const devices = output.split('\n')[0]!.trim().split(' ');
    expect(devices).toEqual(expect.arrayContaining(['null', 'zero', 'urandom']));
    expect(devices.some((name) => /^(vd|sd|nvme|loop|mem|kmsg)/.test(name))).toBe(false);
    expect(output).toMatch(/core_pattern: Read-only file system/);
    expect(output).toMatch(/^4$/m);
  });

  it.runIf(asRoot)(
    'runs as the workspace owner when that is not root, with no supplementary groups',
    async () => {
      const owned = path.join(root, 'owned');
      await mkdir(owned);
      await chown(owned, 4242, 4242);
      const asOwner = await openSandbox({ workspace: owned, network: 'host' });
      try {
        const output = expectOk(
          await run('id -u; id -g; id -G; echo hi > f && stat -c %u f', { sandbox: asOwner, cwd: owned }),
        );
        expect(output.split('\n').slice(0, 4)).toEqual(['4242', '4242', '4242', '4242']);
      } finally {
        asOwner.close();
      }
    },
  );

  it("gives the tools the groups its path intends: their gid alone as root or through sudo, the user's rootless", async () => {
    const groups = expectOk(await run('id -G'))
      .trim()
      .split(' ')
      .map(Number);
    expect(new Set(groups)).toEqual(await toolGroups(sandbox.config, process.getgroups?.() ?? []));
    if (sandbox.config.isolation === 'root') expect(groups).toEqual([64_000]); // the root-owned workspace
  });

  it.runIf(asRoot)(
    "rootless, keeps the user's supplementary groups, each the kernel cannot map shown as the overflow gid",
    async () => {
      // A user with two groups beside its own, as a rootless runner's user may be (docker, adm…).
      // Its own workspace, out of the layout's root (only root may enter that).
      const owned = await mkdtemp(path.join(tmpdir(), 'todo-agent-groups-'));
      onTestFinished(() => rm(owned, { recursive: true, force: true }));
      await chown(owned, 4242, 4242);
      const script = `
        import { openSandbox } from ${JSON.stringify(path.resolve('src/sandbox/setup.ts'))};
        import { runCommand } from ${JSON.stringify(path.resolve('src/sandbox/commands/run-command.ts'))};
        const sandbox = await openSandbox({ workspace: ${JSON.stringify(owned)}, network: 'host' });
        const env = { PATH: '/usr/bin:/bin' };
        const { output } = await runCommand('id -G', { cwd: ${JSON.stringify(owned)}, env, timeoutMs: 20000, sandbox });
        console.log(JSON.stringify({ isolation: sandbox.config.isolation, groups: output.trim() }));
        sandbox.close();`;
      const { stdout } = await execFileAsync(
        'setpriv',
        [
          ...['--reuid=4242', '--regid=4242', '--groups=4243,4244', '--', process.execPath],
          ...['--import', 'tsx', '--input-type=module', '-e', script],
        ],
        { cwd: path.resolve('.'), env: { PATH: process.env.PATH, HOME: owned } },
      );
      expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toEqual({
        isolation: 'rootless',
        groups: `4242 ${await overflowGid()}`,
      });
    },
  );

  it('cuts the network with `none`: not even the host loopback answers', async () => {
    const server: Server = createServer((_request, response) => response.end('reachable'));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as { port: number };
    const offline = await openSandbox({ workspace: ws, network: 'none' });
    try {
      const probe = `curl -s -m 3 http://127.0.0.1:${port}/ || echo unreachable`;
      expect(expectOk(await run(probe))).toContain('reachable');
      expect(expectOk(await run(probe, { sandbox: offline }))).toContain('unreachable');
    } finally {
      offline.close();
      await new Promise((done) => server.close(done));
    }
  });
});

describe("the tools' git and processes", () => {
  /** Runs git as this process, with no configuration of the machine's. */
  const hostGit = async (cwd: string, ...args: string[]) =>
    (
      await execFileAsync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], {
        cwd,
        env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
      })
    ).stdout.trim();

  it("gives the tools' git a layer of its own over .git: it works, the real .git never changes, and stays where it is", async () => {
    const repo = path.join(home, 'work', 'repo');
    await mkdir(repo);
    await hostGit(repo, 'init', '-q', '--initial-branch=main');
    await writeFile(path.join(repo, 'a.txt'), 'a\n');
    await hostGit(repo, 'add', '-A');
    await hostGit(repo, 'commit', '-qm', 'one');
    const listing = async () =>
      (await execFileAsync('find', ['.git', '-printf', '%p %s %m\n'], { cwd: repo })).stdout;
    const before = {
      listing: await listing(),
      config: await readFile(path.join(repo, '.git', 'config'), 'utf8'),
    };
    const layered = await openSandbox({ workspace: repo, network: 'host', home, layerGitDir: true });
    onTestFinished(() => layered.close());
    expect(layered.config.layerGitDir).toBe(true);
    const git = 'git -c safe.directory="*" -c user.name=M -c user.email=m@example.com';
    expectOk(
      await run(
        `${git} config core.fsmonitor "touch /tmp/x" && echo b > b.txt && ${git} add b.txt && ${git} commit -qm two`,
        {
          sandbox: layered,
          cwd: repo,
        },
      ),
    );
    // A second call finds the first call's commit and configuration: the layer lasts as long as the sandbox.
    const second = expectOk(
      await run(`${git} log --format=%s; ${git} config core.fsmonitor`, { sandbox: layered, cwd: repo }),
    );
    expect(second).toBe('two\none\ntouch /tmp/x\n');
    const third = expectOk(
      await run(
        'mv .git moved 2>&1; rm -rf .git 2>&1; mkdir -p .git/hooks/zz.d && chmod 000 .git/hooks/zz.d; true',
        { sandbox: layered, cwd: repo },
      ),
    );
    expect(third).toMatch(/mv: cannot move '\.git' to 'moved': Device or resource busy/);
    expect(third).toMatch(/rm: cannot remove '\.git': Device or resource busy/);
    // The real .git is as it was; the work tree has the tools' file.
    expect(await listing()).toBe(before.listing);
    expect(await readFile(path.join(repo, '.git', 'config'), 'utf8')).toBe(before.config);
    expect(await hostGit(repo, 'log', '--format=%s')).toBe('one');
    expect(await readFile(path.join(repo, 'b.txt'), 'utf8')).toBe('b\n');
  });

  it("keeps the tools' environment (an MCP server's secrets) off every host command line, through sudo too", async () => {
    const value = `env-secret-${process.pid}-${Date.now()}`;
    const call = runCommand('echo "seen=$TODO_AGENT_ENV_PROBE"; sleep 3', {
      cwd: ws,
      env: { ...env, TODO_AGENT_ENV_PROBE: value },
      timeoutMs: 20_000,
      sandbox,
    });
    // Read while the call runs: sudo, and the call's processes, are there for all of it.
    let lines: string[] = [];
    for (let tries = 0; tries < 100 && !lines.some((line) => line.includes('todo-agent-call')); tries++) {
      await new Promise((done) => setTimeout(done, 50));
      lines = await commandLines();
    }
    expect(lines.some((line) => line.includes('todo-agent-call'))).toBe(true);
    expect(lines.filter((line) => line.includes(value))).toEqual([]);
    expect(expectOk(await call)).toContain(`seen=${value}`);
    // The file that carried it through sudo is gone once read.
    expect((await readdir(sandbox.privateDir)).filter((name) => name.startsWith('env-'))).toEqual([]);
  });

  it("ends every process of the tools when the action's process dies, however it dies", async () => {
    const mark = `late-${process.pid}`;
    const script = `
      import { openSandbox } from ${JSON.stringify(path.resolve('src/sandbox/setup.ts'))};
      import { runCommand } from ${JSON.stringify(path.resolve('src/sandbox/commands/run-command.ts'))};
      const sandbox = await openSandbox({ workspace: ${JSON.stringify(ws)}, network: 'host' });
      const env = { PATH: '/usr/bin:/bin' };
      void runCommand('(setsid sleep 3; touch ${mark}-background) & sleep 3; touch ${mark}', { cwd: ${JSON.stringify(ws)}, env, timeoutMs: 20000, sandbox });
      setTimeout(() => process.kill(process.pid, 'SIGKILL'), 1000);`;
    const killed = await execFileAsync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: path.resolve('.'),
      },
    ).catch((error: { signal?: string }) => error);
    expect((killed as { signal?: string }).signal).toBe('SIGKILL');
    await new Promise((done) => setTimeout(done, 4_000));
    expect((await readdir(ws)).filter((name) => name.startsWith(mark))).toEqual([]);
  });
});
