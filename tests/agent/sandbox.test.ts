// The sandbox on this machine, for real: namespaces, mounts, identities. It needs root (CI runs as root) or
// passwordless sudo; without them openSandbox throws and these tests fail with its reason.
import { processesNamed } from '../support/processes.js';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { chown, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '../../src/agent/child-env.js';
import { runCommand, type CommandResult } from '../../src/agent/sandbox.js';
import { Sandbox } from '../../src/agent/sandbox-namespaces.js';
import { openSandbox, sandboxConfig, SandboxError } from '../../src/agent/sandbox-setup.js';

const execFileAsync = promisify(execFile);

let root: string;
let ws: string;
let hiddenDir: string;
let hiddenFile: string;
let sandbox: Sandbox;
const env = childEnv(process.env);

beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'todo-agent-sandbox-')));
  ws = path.join(root, 'workspace');
  hiddenDir = path.join(root, 'runner-temp');
  hiddenFile = path.join(root, 'github-env');
  await mkdir(ws);
  await mkdir(hiddenDir);
  await writeFile(path.join(hiddenDir, 'credentials'), 'SECRET-IN-DIR\n');
  await writeFile(hiddenFile, 'SECRET-IN-FILE\n');
  sandbox = await openSandbox({ workspace: ws, network: 'host', hidden: [hiddenDir, hiddenFile] });
});

afterAll(async () => {
  sandbox?.close();
  await rm(root, { recursive: true, force: true });
});

const run = (command: string, options: { sandbox?: Sandbox; timeoutMs?: number; cwd?: string } = {}) =>
  runCommand(command, {
    cwd: options.cwd ?? ws,
    env,
    timeoutMs: options.timeoutMs ?? 20_000,
    sandbox: options.sandbox ?? sandbox,
  });

function expectOk(result: CommandResult): string {
  expect(result.output).toBeDefined();
  expect({ exitCode: result.exitCode, output: result.output }).toMatchObject({ exitCode: 0 });
  return result.output;
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
    const output = expectOk(await run('grep -E "^(CapEff|CapBnd|CapPrm|NoNewPrivs)" /proc/self/status'));
    expect(output).toMatch(/CapEff:\s+0+\n/);
    expect(output).toMatch(/CapPrm:\s+0+\n/);
    expect(output).toMatch(/CapBnd:\s+0+\n/);
    expect(output).toMatch(/NoNewPrivs:\s+1/);
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

  it('kills every process a call started when it ends: setsid and double-forked ones too', async () => {
    const marker = `sandbox-leftover-${process.pid}`;
    expectOk(
      await run(
        `setsid bash -c 'exec -a ${marker} sleep 300' >/dev/null 2>&1 < /dev/null & ` +
          `( ( exec -a ${marker} sleep 300 ) & ) >/dev/null 2>&1; nohup bash -c 'exec -a ${marker} sleep 300' >/dev/null 2>&1 & sleep 0.2`,
      ),
    );
    expect(await processesNamed(marker)).toEqual([]);
  });

  it('kills them on timeout too', async () => {
    const marker = `sandbox-timeout-${process.pid}`;
    const result = await run(
      `setsid bash -c 'exec -a ${marker} sleep 300' >/dev/null 2>&1 < /dev/null & sleep 300`,
      {
        timeoutMs: 500,
      },
    );
    expect(result.timedOut).toBe(true);
    expect(await processesNamed(marker)).toEqual([]);
  });

  it('kills them when the run is cancelled', async () => {
    const marker = `sandbox-abort-${process.pid}`;
    const controller = new AbortController();
    const pending = runCommand(
      `setsid bash -c 'exec -a ${marker} sleep 300' >/dev/null 2>&1 < /dev/null & sleep 300`,
      {
        cwd: ws,
        env,
        timeoutMs: 60_000,
        signal: controller.signal,
        sandbox,
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    controller.abort();
    expect((await pending).aborted).toBe(true);
    expect(await processesNamed(marker)).toEqual([]);
  });

  it('runs as the workspace owner when that is not root, with no supplementary groups', async () => {
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
  });

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

  it("is built the same way through sudo, with exactly the tools' environment (a stand-in sudo here)", async () => {
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
  });

  it('never hides the workspace or a folder holding it', async () => {
    const config = await sandboxConfig({ workspace: ws, network: 'host', hidden: [root, ws, hiddenDir] });
    expect(config.hidden).toContain(hiddenDir);
    expect(config.hidden).not.toContain(root);
    expect(config.hidden).not.toContain(ws);
  });

  it('says why it cannot be built for a user who is not root and has no sudo', async () => {
    const script = `
      import { sandboxConfig } from ${JSON.stringify(path.resolve('src/agent/sandbox-setup.ts'))};
      sandboxConfig({ workspace: '/tmp', network: 'host' }).then(
        () => console.log('built'),
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
    expect(stdout.trim()).toMatch(
      /^SandboxError: the action does not run as root and (sudo is not installed|`sudo -n` needs a password)$/,
    );
    expect(SandboxError.name).toBe('SandboxError');
  });
});
