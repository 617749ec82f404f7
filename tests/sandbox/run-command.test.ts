// A command in the sandbox, for real: every process it started ends with it, when it exits, times out or is
// cancelled. It needs root (CI runs as root) or passwordless sudo, as tests/sandbox/namespaces.test.ts does.
import { processesNamed } from '../support/processes.js';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../../src/sandbox/run-command.js';
import { expectOk, runnerLayout } from '../support/sandbox-layout.js';

const { ws, sandbox, env, run } = await runnerLayout();

describe('the sandbox', () => {
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
});
