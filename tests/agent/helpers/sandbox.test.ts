import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ReadOnlySandbox } from '../../../src/agent/helpers/sandbox.js';
import { openWorkspace } from '../../../src/agent/workspace.js';
import { runCommand } from '../../../src/sandbox/commands/run-command.js';
import { openSandbox } from '../../../src/sandbox/setup.js';

const dir = await openWorkspace(await mkdtemp(join(tmpdir(), 'helpers-sandbox-')));
await writeFile(join(dir, 'a.txt'), 'kept\n');
const run = await openSandbox({ workspace: dir, network: 'none' });
afterAll(async () => {
  run.close();
  await rm(dir, { recursive: true, force: true });
});

const write = (sandbox: Parameters<typeof runCommand>[1]['sandbox']) =>
  runCommand('{ echo changed > a.txt; } 2>&1; echo "status $?"; cat a.txt', {
    cwd: dir,
    env: { PATH: '/usr/bin:/bin' },
    timeoutMs: 15_000,
    ...(sandbox ? { sandbox } : {}),
  });

describe("the explore helpers' sandbox", () => {
  it("is built once beside the run's, read-only, and closed alone", async () => {
    const helpers = new ReadOnlySandbox(run);
    const [first, second] = await Promise.all([helpers.open(), helpers.open()]);
    expect('sandbox' in first && 'sandbox' in second && first.sandbox === second.sandbox).toBe(true);
    if (!('sandbox' in first)) return;
    expect(first.sandbox).not.toBe(run);
    expect(first.sandbox.config.workspaceAccess).toBe('read-only');
    const denied = await write(first.sandbox);
    // The refusal is sent to stdout, so the three lines come in the order they were written.
    expect(denied.output).toMatch(/Read-only file system\nstatus 1\nkept/);
    helpers.close();
    // The run's own sandbox still writes.
    expect((await write(run)).output).toMatch(/status 0\nchanged/);
  });

  it("is the run's own when that is read-only already (a plan), and never closes it", async () => {
    const plan = await openSandbox({ workspace: dir, network: 'none', workspaceAccess: 'read-only' });
    try {
      const helpers = new ReadOnlySandbox(plan);
      const opened = await helpers.open();
      expect('sandbox' in opened && opened.sandbox).toBe(plan);
      helpers.close();
      expect((await write(plan)).output).toContain('Read-only file system');
    } finally {
      plan.close();
    }
  });

  it('says there is no bash when the run has no sandbox', async () => {
    expect(await new ReadOnlySandbox(undefined).open()).toEqual({
      note: ' It had no bash: commands run read-only only in a sandbox, and this run has none.',
    });
  });
});
