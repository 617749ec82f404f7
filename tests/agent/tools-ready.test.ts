// The tools' sandbox handed over while it is still being built (issue 37): the model is asked at once, and no
// tool runs before it is ready.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { runAgent } from '../../src/agent/loop.js';
import { toolContext } from '../../src/agent/tools-ready.js';
import { Model } from '../../src/model/client.js';
import type { Sandbox } from '../../src/sandbox/namespaces.js';
import { reply, text, toolUse, type ScriptStep } from '../support/anthropic/server.js';
import { useAgentWorkspace } from '../support/agent-workspace.js';

const KEY = 'sk-ant-test-key-0000000000000000';
const ws = useAgentWorkspace('tools-ready-');

const plan = (status: string) =>
  toolUse('todo', { items: [{ text: 'write it', status, activeForm: 'Writing it' }] });

/** Runs `script` with a sandbox that is ready only when `ready` is resolved by the test. */
async function play(script: ScriptStep[], ready: Promise<Sandbox | undefined>) {
  const server = await ws.serve(script, { apiKey: KEY });
  const events: Array<AgentEvent & { at: number }> = [];
  const result = await runAgent({
    task: 'Write made.txt',
    model: new Model({ apiKey: KEY, baseURL: server.url, maxRetries: 0 }),
    workspace: ws.dir,
    sandboxReady: ready,
    observers: [(event) => events.push({ ...event, at: Date.now() })],
  });
  return { result, events, requests: server.requests };
}

describe('a sandbox still being built', () => {
  it('lets the first model request go at once, and the first tool call wait for it', async () => {
    let finish: (sandbox: undefined) => void = () => undefined;
    const ready = new Promise<undefined>((resolve) => (finish = resolve));
    let readyAt = Infinity;
    const requestsWhenReady: number[] = [];
    // Made ready 200 ms after the first request arrived: no tool may have run before.
    const readySoon = (async () => {
      while (!ws.server || ws.server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 200));
      requestsWhenReady.push(ws.server.requests.length);
      readyAt = Date.now();
      finish(undefined);
    })();
    const { result, events, requests } = await play(
      [
        reply(plan('in_progress'), toolUse('bash', { command: 'echo made > made.txt' })),
        reply(plan('completed')),
        reply(text('Wrote made.txt.')),
      ],
      ready,
    );
    await readySoon;
    expect(result.status).toBe('completed');
    expect(await readFile(join(ws.dir, 'made.txt'), 'utf8')).toBe('made\n');
    // The model was asked before the sandbox was ready, and asked only once until it was.
    expect(requests[0]!.receivedAt).toBeLessThan(readyAt);
    expect(requestsWhenReady).toEqual([1]);
    // No tool ran (not even the todo tool) before it was ready.
    const firstTool = events.find((event) => event.type === 'tool');
    expect(firstTool?.at).toBeGreaterThanOrEqual(readyAt);
    expect(requests[1]!.receivedAt).toBeGreaterThanOrEqual(readyAt);
  });

  it('fails the run at its first tool call when the sandbox cannot be built', async () => {
    const ready = Promise.reject(new Error('the sandbox for the tools could not be built (no namespaces)'));
    ready.catch(() => undefined);
    const outcome = await play([reply(toolUse('bash', { command: 'echo made > made.txt' }))], ready).then(
      ({ result }) => result.status,
      (error: unknown) => (error as Error).message,
    );
    expect(outcome).toBe('the sandbox for the tools could not be built (no namespaces)');
    await expect(readFile(join(ws.dir, 'made.txt'), 'utf8')).rejects.toThrow();
  });
});

describe('toolContext', () => {
  it('gives the tools the workspace and ceiling, an environment without the run’s secrets, and only what was set', () => {
    process.env.TOOLS_READY_PROBE = 'made-up-secret-0001';
    process.env.TOOLS_READY_PLAIN = 'plain value';
    try {
      const model = new Model({ apiKey: KEY, baseURL: 'http://127.0.0.1:9', maxRetries: 0 });
      const bare = toolContext(
        { task: 't', model, workspace: '/work/x', secrets: ['made-up-secret-0001'] },
        42,
      );
      expect(bare).toEqual({ workspace: '/work/x', bashTimeoutSeconds: 42, env: expect.any(Object) });
      expect(bare.env.TOOLS_READY_PROBE).toBeUndefined();
      expect(bare.env.TOOLS_READY_PLAIN).toBe('plain value');
      const signal = new AbortController().signal;
      const full = toolContext({ task: 't', model, workspace: '/w', signal, hiddenFiles: ['.env'] }, 1);
      expect(full).toMatchObject({ signal, hidden: ['.env'] });
      expect(full.env.TOOLS_READY_PROBE).toBe('made-up-secret-0001');
    } finally {
      delete process.env.TOOLS_READY_PROBE;
      delete process.env.TOOLS_READY_PLAIN;
    }
  });
});
