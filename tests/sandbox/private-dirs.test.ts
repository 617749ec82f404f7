// The sandbox's own HOME layer, /tmp and /var/tmp, for real: what tools write there stays from the runner and
// goes when the sandbox closes. It needs root, passwordless sudo, or
// unprivileged user namespaces (CI runs it as root and again as a user with neither).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../src/sandbox/commands/run-command.js';
import { openSandbox } from '../../src/sandbox/setup.js';
import { asRoot, expectOk, runnerLayout } from '../support/sandbox-layout.js';

const execFileAsync = promisify(execFile);

const { root, home, ws, env, run } = await runnerLayout();

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

  it.runIf(asRoot)(
    "works as the runner's own user (not root): HOME and /tmp take its writes, the runner's HOME keeps none",
    async () => {
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
    },
  );

  it('removes what the tools wrote when it closes', async () => {
    const own = await openSandbox({ workspace: ws, network: 'host', home });
    try {
      expectOk(await run(`echo x > ~/${mark} && echo y > /tmp/${mark}`, { sandbox: own }));
      expect(existsSync(path.join(own.privateDir, 'home-upper', mark))).toBe(true);
      // /tmp is a tmpfs of the sandbox's own: nothing of it reaches the runner's disk.
      expect(existsSync(path.join(own.privateDir, 'tmp', mark))).toBe(false);
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

  it.runIf(asRoot)(
    "keeps the private HOME working where the host's temp directory is an overlayfs (as in containers)",
    async () => {
      // A child process in a mount namespace of its own, whose TMPDIR is an overlayfs: the private layer
      // cannot live there, so it must go to a tmpfs.
      const layers = path.join(root, 'container-tmp');
      for (const dir of ['lower', 'upper', 'work', 'merged'])
        await mkdir(path.join(layers, dir), { recursive: true });
      const merged = path.join(layers, 'merged');
      const script = `
      import { openSandbox } from ${JSON.stringify(path.resolve('src/sandbox/setup.ts'))};
      import { runCommand } from ${JSON.stringify(path.resolve('src/sandbox/commands/run-command.ts'))};
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
    },
  );

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
