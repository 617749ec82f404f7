// The sandbox on this machine, for real: namespaces, mounts, identities. It needs root (CI runs as root) or
// passwordless sudo; without them openSandbox throws and these tests fail with its reason.
import { processesNamed } from '../support/processes.js';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import { chown, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '../../src/sandbox/child-env.js';
import { runCommand, type CommandResult } from '../../src/sandbox/run-command.js';
import { Sandbox } from '../../src/sandbox/namespaces.js';
import { openSandbox, sandboxConfig, SandboxError } from '../../src/sandbox/setup.js';

const execFileAsync = promisify(execFile);

let root: string;
let home: string;
let ws: string;
let hiddenDir: string;
let hiddenFile: string;
let sandbox: Sandbox;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  // Laid out as on a hosted runner: HOME holds work/, which holds the workspace and the runner's files.
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'todo-agent-sandbox-')));
  home = path.join(root, 'home');
  ws = path.join(home, 'work', 'workspace');
  hiddenDir = path.join(home, 'work', 'runner-temp');
  hiddenFile = path.join(home, 'work', 'github-env');
  await mkdir(ws, { recursive: true });
  await mkdir(hiddenDir);
  await writeFile(path.join(hiddenDir, 'credentials'), 'SECRET-IN-DIR\n');
  await writeFile(hiddenFile, 'SECRET-IN-FILE\n');
  await writeFile(path.join(home, 'preinstalled'), 'from-setup\n');
  await mkdir(path.join(home, '.ssh'));
  await writeFile(path.join(home, '.ssh', 'id_ed25519'), 'SECRET-SSH-KEY\n');
  env = { ...childEnv(process.env), HOME: home };
  sandbox = await openSandbox({ workspace: ws, network: 'host', home, hidden: [hiddenDir, hiddenFile] });
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
    expect(existsSync(viaSudo.privateDir)).toBe(false); // removed through the stand-in sudo
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

  it('says why it cannot be built for a user who is not root and has no sudo', async () => {
    const script = `
      import { sandboxConfig } from ${JSON.stringify(path.resolve('src/sandbox/setup.ts'))};
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

describe("the tools' own HOME, /tmp and /var/tmp", () => {
  const mark = `todo-agent-private-${process.pid}`;

  it('keeps what a call writes to ~, /tmp and /var/tmp from the runner, and shares it with the next call', async () => {
    const first = expectOk(
      await run(
        'echo "$HOME"; cat ~/preinstalled; echo planted > ~/.bashrc; echo changed > ~/preinstalled; ' +
          "mkdir -p ~/.local/bin && printf '#!/bin/sh\\necho tool-ran\\n' > ~/.local/bin/tool && " +
          `chmod +x ~/.local/bin/tool; echo in-tmp > /tmp/${mark}; echo in-var-tmp > /var/tmp/${mark}; ` +
          'echo kept > kept.txt',
      ),
    );
    // HOME is where it was, with what a setup step put there.
    expect(first).toBe(`${home}\nfrom-setup\n`);
    // A second call finds the tool it installed and the files it left.
    const second = expectOk(
      await run(`~/.local/bin/tool; cat /tmp/${mark} /var/tmp/${mark} ~/.bashrc ~/preinstalled`),
    );
    expect(second).toBe('tool-ran\nin-tmp\nin-var-tmp\nplanted\nchanged\n');
    // The runner sees none of it; only the workspace changed.
    expect(existsSync(path.join(home, '.bashrc'))).toBe(false);
    expect(existsSync(path.join(home, '.local'))).toBe(false);
    expect(await readFile(path.join(home, 'preinstalled'), 'utf8')).toBe('from-setup\n');
    expect(existsSync(path.join('/tmp', mark))).toBe(false);
    expect(existsSync(path.join('/var/tmp', mark))).toBe(false);
    expect(await readFile(path.join(ws, 'kept.txt'), 'utf8')).toBe('kept\n');
  });

  it("shows nothing of the runner's /tmp or /var/tmp", async () => {
    await writeFile(path.join(root, 'left-by-another-step'), 'SECRET-IN-TMP\n');
    const output = expectOk(
      await run(
        `cat ${root}/left-by-another-step 2>&1; for d in /tmp ${root} /var/tmp; do echo $(ls -A $d); done`,
      ),
    );
    expect(output).not.toContain('SECRET');
    const [missing, tmp, inRoot, varTmp] = output.split('\n');
    expect(missing).toContain(`${root}/left-by-another-step: No such file`);
    // Only the way down to HOME and the workspace (made again as empty mount points), and the tools' files.
    const notTools = (listing = '') => listing.split(' ').filter((name) => name && name !== mark);
    expect(notTools(tmp)).toEqual([root.split('/')[2]]);
    expect(inRoot).toBe('home');
    expect(notTools(varTmp)).toEqual([]);
  });

  it('hides credential folders in HOME under the private layer too', async () => {
    const output = expectOk(
      await run('ls -A ~/.ssh | wc -l; cat ~/.ssh/id_ed25519 2>&1; echo x > ~/.ssh/config 2>&1; true'),
    );
    expect(output).not.toContain('SECRET');
    expect(output).toMatch(/^0\n/);
    expect(output).toMatch(/\.ssh\/config: Read-only file system/);
  });

  it("works as the runner's own user (not root): HOME and /tmp take its writes, the runner's HOME keeps none", async () => {
    const userHome = path.join(root, 'runner-home');
    const userWs = path.join(userHome, 'work', 'repo');
    await mkdir(userWs, { recursive: true });
    await writeFile(path.join(userHome, '.profile'), 'from-image\n');
    for (const dir of [userHome, path.join(userHome, 'work'), userWs, path.join(userHome, '.profile')]) {
      await chown(dir, 4242, 4242);
    }
    const asUser = await openSandbox({ workspace: userWs, network: 'host', home: userHome });
    try {
      const output = expectOk(
        await runCommand(
          'echo x > ~/.new && echo more >> ~/.profile && cat ~/.profile && echo t > /tmp/mine && ' +
            'echo w > in-repo && stat -c %u ~ ~/.new ~/.profile /tmp/mine in-repo | sort -u',
          { cwd: userWs, env: { ...env, HOME: userHome }, timeoutMs: 20_000, sandbox: asUser },
        ),
      );
      expect(output).toBe('from-image\nmore\n4242\n');
    } finally {
      asUser.close();
    }
    expect(existsSync(path.join(userHome, '.new'))).toBe(false);
    expect(await readFile(path.join(userHome, '.profile'), 'utf8')).toBe('from-image\n');
    expect(await readFile(path.join(userWs, 'in-repo'), 'utf8')).toBe('w\n');
  });

  it('removes what the tools wrote when it closes', async () => {
    const own = await openSandbox({ workspace: ws, network: 'host', home });
    try {
      expectOk(await run(`echo x > ~/${mark} && echo y > /tmp/${mark}`, { sandbox: own }));
      expect(existsSync(path.join(own.privateDir, 'home-upper', mark))).toBe(true);
      expect(existsSync(path.join(own.privateDir, 'tmp', mark))).toBe(true);
    } finally {
      own.close();
    }
    expect(existsSync(own.privateDir)).toBe(false);
    expect(existsSync(path.join(home, mark))).toBe(false);
  });

  it('removes its directory also when the process exits without closing it', async () => {
    const script = `
      import { openSandbox } from ${JSON.stringify(path.resolve('src/sandbox/setup.ts'))};
      openSandbox({ workspace: ${JSON.stringify(ws)}, network: 'host', home: ${JSON.stringify(home)} }).then(
        (sandbox) => { console.log(sandbox.privateDir); process.exit(0); },
      );`;
    const { stdout } = await execFileAsync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: path.resolve('.') },
    );
    const dir = stdout.trim();
    expect(path.basename(dir)).toMatch(/^todo-agent-sandbox-/);
    expect(existsSync(dir)).toBe(false);
  });

  it("keeps the private HOME working where the host's temp directory is an overlayfs (as in containers)", async () => {
    // A child process in a mount namespace of its own, whose TMPDIR is an overlayfs: the private layer
    // cannot live there, so it must go to a tmpfs.
    const layers = path.join(root, 'container-tmp');
    for (const dir of ['lower', 'upper', 'work', 'merged'])
      await mkdir(path.join(layers, dir), { recursive: true });
    const merged = path.join(layers, 'merged');
    const script = `
      import { openSandbox } from ${JSON.stringify(path.resolve('src/sandbox/setup.ts'))};
      import { runCommand } from ${JSON.stringify(path.resolve('src/sandbox/run-command.ts'))};
      const sandbox = await openSandbox({ workspace: ${JSON.stringify(ws)}, network: 'host', home: ${JSON.stringify(home)} });
      const env = { PATH: '/usr/bin:/bin', HOME: ${JSON.stringify(home)} };
      const first = await runCommand('echo in-home > ~/.container-probe', { cwd: ${JSON.stringify(ws)}, env, timeoutMs: 20000, sandbox });
      const second = await runCommand('cat ~/.container-probe; findmnt -no FSTYPE -T ~', { cwd: ${JSON.stringify(ws)}, env, timeoutMs: 20000, sandbox });
      console.log(JSON.stringify({ dir: sandbox.privateDir, first: first.exitCode, second: second.output }));
      sandbox.close();`;
    const setup =
      `mount -t overlay overlay -o lowerdir=${layers}/lower,upperdir=${layers}/upper,workdir=${layers}/work ${merged} && ` +
      `TMPDIR=${merged} exec "$0" --import tsx --input-type=module -e "$1"`;
    const { stdout } = await execFileAsync(
      'unshare',
      ['--mount', '--propagation', 'private', 'sh', '-c', setup, process.execPath, script],
      { cwd: path.resolve('.') },
    );
    const outcome = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      dir: string;
      first: number;
      second: string;
    };
    expect(path.dirname(outcome.dir)).toBe(merged);
    expect(outcome.first).toBe(0);
    expect(outcome.second).toBe('in-home\noverlay\n');
    expect(existsSync(path.join(home, '.container-probe'))).toBe(false);
  });

  it('with workspaceAccess read-only, no call can change the workspace; HOME and /tmp stay writable', async () => {
    await writeFile(path.join(ws, 'existing.txt'), 'before\n');
    const readOnly = await openSandbox({
      workspace: ws,
      network: 'host',
      home,
      workspaceAccess: 'read-only',
    });
    try {
      const first = expectOk(
        await run(
          'cat existing.txt; touch new.txt 2>&1; echo after >> existing.txt 2>&1; ' +
            'echo x > ~/scratch && echo x > /tmp/scratch && echo scratch-ok; true',
          { sandbox: readOnly },
        ),
      );
      expect(first).toMatch(/^before\n/);
      expect(first).toMatch(/new\.txt.*Read-only file system/);
      expect(first).toMatch(/existing\.txt: Read-only file system/);
      expect(first).toContain('scratch-ok');
      const second = expectOk(await run('rm existing.txt 2>&1; mkdir sub 2>&1; true', { sandbox: readOnly }));
      expect(second).toMatch(/existing\.txt.*Read-only file system/);
      expect(second).toMatch(/sub.*Read-only file system/);
    } finally {
      readOnly.close();
    }
    expect(await readFile(path.join(ws, 'existing.txt'), 'utf8')).toBe('before\n');
    expect(existsSync(path.join(ws, 'new.txt'))).toBe(false);
    expect(existsSync(path.join(ws, 'sub'))).toBe(false);
    // The default is read-write, and the run's sandbox still writes.
    expect(expectOk(await run('echo again >> existing.txt && cat existing.txt'))).toBe('before\nagain\n');
  });
});
