// The sandbox on this machine, for real: namespaces, mounts, identities, the network. It needs root,
// passwordless sudo or unprivileged user namespaces (CI runs it as root and again as a user with neither);
// without them openSandbox throws and these tests fail with its reason.
import { createServer, type Server } from 'node:http';
import { chown, mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSandbox } from '../../src/sandbox/setup.js';
import { asRoot, expectOk, runnerLayout } from '../support/sandbox-layout.js';

const { root, ws, hiddenDir, hiddenFile, run } = await runnerLayout();

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
