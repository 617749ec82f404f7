// A command in the sandbox, for real: every process it started ends with it, when it exits, times out or is
// cancelled. It needs root (CI runs as root) or passwordless sudo, as tests/sandbox/namespaces.test.ts does.
import { processesNamed } from '../../support/processes.js';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { runCommand, Service } from '../../../src/sandbox/commands/run-command.js';
import { expectOk, runnerLayout } from '../../support/sandbox-layout.js';

const { ws, sandbox, env, run, hiddenFile } = await runnerLayout();

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

// A long-lived program in the sandbox (an MCP server's process): it talks over its stdio for as long as it
// lives, sees what a bash call sees, and nothing of it outlives stop(), however stubborn it is.
/** The next line the service prints on stdout. */
async function line(service: Service): Promise<string> {
  let text = '';
  while (!text.includes('\n')) {
    const [chunk] = (await once(service.stdout, 'data')) as [Buffer];
    text += chunk.toString('utf8');
  }
  return text.split('\n')[0]!;
}

describe('Service', () => {
  it('runs in the sandbox as PID 1 of its own namespace, with the tools identity and environment, talking over stdio', async () => {
    const service = Service.start(
      [
        'sh',
        '-c',
        `echo "pid=$$ uid=$(id -u) own=$OWN secret=$(cat ${hiddenFile})"; while read -r l; do echo "got $l"; done`,
      ],
      { cwd: ws, env: { ...env, OWN: 'its-own-value' }, sandbox },
    );
    const first = await line(service);
    expect(first).toMatch(new RegExp(`^pid=1 uid=${sandbox.config.uid} own=its-own-value secret=$`));
    service.stdin.write('hello\n');
    expect(await line(service)).toBe('got hello');
    const exit = await service.stop();
    // Closing stdin ended the loop: it exited on its own, with status 0.
    expect(exit).toEqual({ code: 0, signal: null });
    expect(service.running).toBe(false);
  });

  it('kills a service that ignores both its closed stdin and SIGTERM, and everything it started', async () => {
    const marker = `service-test-stub0born-${process.pid}`;
    // The child's name is made by the shell, so that only the child's own command line holds the marker.
    const name = marker.replace('stub0born', 'stub$((0))born');
    const service = Service.start(
      [
        'sh',
        '-c',
        `trap '' TERM; sh -c 'trap "" TERM; sleep 300' ${name} & echo up; while :; do sleep 1; done`,
      ],
      { cwd: ws, env, sandbox },
    );
    expect(await line(service)).toBe('up');
    // Its child (which carries the marker as its name) runs until the service is stopped; it may print `up`
    // before the child's exec has given it that name.
    await expect.poll(() => processesNamed(marker)).toHaveLength(1);
    const started = performance.now();
    const exit = await service.stop(300);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(exit.code === 0).toBe(false);
    expect(await processesNamed(marker)).toEqual([]);
  });

  it('says why a program that cannot start did not', async () => {
    const service = Service.start(['todo-agent-no-such-program'], { cwd: ws, env, sandbox });
    let stderr = '';
    service.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = await service.exited;
    expect(exit.code).not.toBe(0);
    await service.stop();
    expect(stderr).toContain('todo-agent-no-such-program');
  });

  it('runs directly when there is no sandbox, and reports a missing program as spawn does', async () => {
    const service = Service.start(['todo-agent-no-such-program'], { cwd: ws, env });
    expect((await service.exited).error).toMatch(/ENOENT/);
  });
});
