// The harness keeps what one run of the suite makes to itself, so that two runs on one host at once (CI as
// `runner` beside a run as root) never meet: its directories are its own, and the mounts a test makes for
// the action are in the action's own mount namespace, never in the host's, where every sandbox built on the
// host meanwhile would meet them (tests/e2e/sandbox-root.test.ts's mount that cannot be made read-only
// stopped the other run's sandboxes).
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, runAction, type Sandbox } from './action-harness.js';

/** Stands in for dist/index.js: says who it is, its RUNNER_TEMP, and its mounts and its parent's. */
const PROBE = `
import { readFileSync } from 'node:fs';
const mounts = (pid) => readFileSync(\`/proc/\${pid}/mountinfo\`, 'utf8');
process.stdout.write(JSON.stringify({
  pid: process.pid,
  runnerTemp: process.env.RUNNER_TEMP,
  own: mounts('self'),
  parent: mounts(process.ppid),
}));
`;

interface Probe {
  pid: number;
  runnerTemp: string;
  own: string;
  parent: string;
}

const sandboxes: Sandbox[] = [];
afterEach(async () => {
  for (const sandbox of sandboxes.splice(0)) await sandbox.cleanup();
});

async function probe(bindMounts?: string[]): Promise<{ seen: Probe; spawnedPid: number | undefined }> {
  const sandbox = await createSandbox({ 'README.md': 'probe\n' });
  sandboxes.push(sandbox);
  const entry = join(sandbox.root, 'probe.mjs');
  await writeFile(entry, PROBE);
  let spawnedPid: number | undefined;
  const run = await runAction({
    sandbox,
    event: {},
    apiUrl: 'http://127.0.0.1:9',
    entry,
    ...(bindMounts ? { bindMounts } : {}),
    onSpawn: (child) => (spawnedPid = child.pid),
  });
  expect([run.code, run.stderr]).toEqual([0, '']);
  return { seen: JSON.parse(run.stdout) as Probe, spawnedPid };
}

describe('two runs of the harness', () => {
  it('get sandboxes and RUNNER_TEMP directories of their own', async () => {
    const [first, second] = [await probe(), await probe()];
    const [a, b] = sandboxes;
    expect(new Set([a!.root, b!.root]).size).toBe(2);
    expect(new Set([a!.home, b!.home]).size).toBe(2);
    expect(first.seen.runnerTemp.startsWith(`${a!.root}/`)).toBe(true);
    expect(second.seen.runnerTemp.startsWith(`${b!.root}/`)).toBe(true);
  });
});

describe.runIf(process.getuid?.() === 0)('bindMounts', () => {
  it('are mounted for the action alone: its mount namespace has them, the host never does', async () => {
    const dir = join('/mnt', `todo-agent-harness-${process.pid}-${Date.now()}`);
    await mkdir(dir, { recursive: true });
    try {
      const { seen, spawnedPid } = await probe([dir]);
      // Read by the action while it ran: the mount in its namespace, none in its parent's (the host's).
      expect([seen.own.includes(` ${dir} `), seen.parent.includes(dir)]).toEqual([true, false]);
      expect((await readFile('/proc/self/mountinfo', 'utf8')).includes(dir)).toBe(false);
      // unshare and sh exec in place: the process spawned is the action (its pid, its signals).
      expect(seen.pid).toBe(spawnedPid);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('cannot go with `as` (mounting needs root)', async () => {
    const sandbox = await createSandbox({ 'README.md': 'probe\n' });
    sandboxes.push(sandbox);
    await expect(
      runAction({
        sandbox,
        event: {},
        apiUrl: 'http://127.0.0.1:9',
        bindMounts: ['/mnt'],
        as: { uid: 1, gid: 1 },
      }),
    ).rejects.toThrow(/bindMounts need root/);
  });
});
