// Issue 18 where the action runs as root (a container job, a self-hosted runner as root), and what only root
// can set up: the tools are never the host's root on a workspace of root's; a mount whose path mountinfo
// escapes is made read-only, one that cannot be stops the build (both mounted in the action's own mount
// namespace, never the host's, where they would reach the sandboxes of another run of the suite);
// `tool_network: none` and the allowlist reach no socket in /run; and a user with neither root nor sudo gets
// the rootless sandbox. CI runs this file as root only; the other end-to-end files run as a plain runner with
// sudo (and the sandbox's again rootless).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { reply, text } from '../support/anthropic/server.js';
import { bashProbes, type World } from './setup.js';

const execFileAsync = promisify(execFile);
const MARK = `todo-agent-root-${process.pid}`;

const probes = bashProbes();
const { calls, cleanups, open } = probes;

describe.runIf(process.getuid?.() === 0)('the sandbox as root', () => {
  it('never the host’s root on a workspace of root’s: uid 64000, /etc/shadow and a 0600 file of root’s closed', async () => {
    const before = async ({ sandbox }: World) => {
      await writeFile(join(sandbox.home, `${MARK}-secret`), 'ROOT-ONLY\n', { mode: 0o600 });
    };
    const { results, run } = await calls(
      [`id -u; stat -c %u .; cat /etc/shadow ~/${MARK}-secret 2>&1 | sed 's/:.*//'; true`],
      { before },
    );
    expect(run.stdout).toMatch(/Sandbox ready in \d+ ms \(isolation: root\)/);
    expect(results[0]).toBe(`exit code: 0\n64000\n64000\ncat\ncat\n`);
  });

  describe('mounts the sandbox must make read-only (mounted for the action alone, never on the host)', () => {
    /**
     * An empty directory on the host that the action sees mounted onto itself (runAction's `bindMounts`). On
     * the host, the mount would be in every sandbox built there meanwhile: another run's of the suite too.
     */
    async function mountPoint(dir: string): Promise<string> {
      await mkdir(dir, { recursive: true });
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      return dir;
    }

    it('a mount whose path mountinfo escapes (a space, \\040) is read-only to the tools', async () => {
      const dir = await mountPoint(`/mnt/${MARK} with space`);
      const { results } = await calls(
        [`grep -cF '${MARK}\\040with\\040space' /proc/self/mountinfo; touch "${dir}/written" 2>&1; true`],
        { bindMounts: [dir] },
      );
      // The tools see the mount, and cannot write through it.
      expect(results[0]).toMatch(/^exit code: 0\n1\ntouch: .*Read-only file system\n$/);
      expect(existsSync(join(dir, 'written'))).toBe(false);
    });

    it('a mount it cannot make read-only stops the build with a clear error, before any tool runs', async () => {
      // The first model request goes beside the sandbox's build (issue 37); the first tool call waits for it.
      const dir = await mountPoint(`/mnt/${MARK}\nnewline`);
      const world = await open([reply(text('asked beside the build'))]);
      await world.trigger('/agent probe', { bindMounts: [dir] });
      expect(world.botComments()[0]!.body).toMatch(/cannot make these mounts read-only/);
      expect(world.botComments()[0]!.body).toMatch(/todo-agent (failed|did not start)/);
    });
  });

  it.each([['none'], ['allowlist']])(
    'with `tool_network: %s` reaches no host unix socket that has a path (one planted in /run)',
    async (network) => {
      const path = `/run/${MARK}-${network}.sock`;
      const connections: string[] = [];
      const server: Server = createServer((socket) => {
        connections.push('connected');
        socket.end('HTTP/1.0 200 OK\r\n\r\nhello');
      });
      await new Promise<void>((done) => server.listen(path, done));
      cleanups.push(() => new Promise<void>((done) => server.close(() => done())));
      await calls([`curl -s -m 3 --unix-socket ${path} http://x/ 2>&1; echo "curl=$?"`], {
        inputs: { tool_network: network },
      });
      expect(connections).toEqual([]);
    },
  );

  it('builds it from user namespaces for a user with neither root nor sudo; the log and comment say so', async () => {
    // Not root, and no passwordless sudo: as on a self-hosted runner without either, which owns its work.
    const before = async ({ sandbox }: World) => {
      await execFileAsync('chown', ['-R', '65534:65534', sandbox.root]);
    };
    const { results, run } = await calls(['id -u; ls /proc | grep -cE "^[0-9]+$"; touch /usr/probe 2>&1'], {
      as: { uid: 65534, gid: 65534 },
      before,
    });
    expect([
      run.stdout.match(/Sandbox ready in \d+ ms \(isolation: [^)]*\)/)?.[0].replace(/\d+ ms/, 'N ms'),
      run.outputs.status,
    ]).toEqual(['Sandbox ready in N ms (isolation: rootless user namespaces)', 'completed']);
    // The checklist says so once the sandbox is built (its first version goes beside the first model request,
    // before that: issue 37), and in every version after.
    const versions = probes.world!.botComments()[0]!.versions;
    const named = versions.findIndex((body) => body.includes('sandbox: rootless user namespaces</sub>'));
    expect(named).toBeGreaterThan(-1);
    expect(
      versions.slice(named).every((body) => body.includes('sandbox: rootless user namespaces</sub>')),
    ).toBe(true);
    // The user itself (65534), never root, in a PID namespace of its own, with the host read-only.
    expect(results[0]).toMatch(
      /^exit code: 1\n65534\n[1-9]\ntouch: cannot touch '\/usr\/probe': Read-only file system\n$/,
    );
  });
});
