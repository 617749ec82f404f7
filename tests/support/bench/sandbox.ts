// Bench measure 7: what the tools' sandbox costs. Building it once per run (the template namespace and a
// first `true` in it) adds to the run's start; each bash call then pays for its own namespaces and the
// identity switch, measured as `true` in the sandbox minus `true` run directly.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnv } from '../../../src/sandbox/commands/child-env.js';
import { runCommand } from '../../../src/sandbox/commands/run-command.js';
import type { Sandbox } from '../../../src/sandbox/namespaces.js';
import { openSandbox } from '../../../src/sandbox/setup.js';
import { median } from './stats.js';

export interface SandboxCost {
  /** Building the sandbox, as the action does before the first model call. */
  medianOpenMs: number;
  /** `true` through runCommand, directly and in the sandbox. */
  medianDirectCallMs: number;
  medianSandboxedCallMs: number;
  /** The difference: what the sandbox adds to each tool call. */
  medianAddedPerCallMs: number;
  opens: number;
  calls: number;
}

async function timeCall(workspace: string, sandbox?: Sandbox): Promise<number> {
  const started = performance.now();
  const result = await runCommand('true', {
    cwd: workspace,
    env: childEnv(process.env),
    timeoutMs: 30_000,
    ...(sandbox ? { sandbox } : {}),
  });
  const elapsed = performance.now() - started;
  if (result.exitCode !== 0) throw new Error(`\`true\` failed (${result.exitCode}): ${result.output}`);
  return elapsed;
}

export async function measureSandboxCost(opens: number, calls: number): Promise<SandboxCost> {
  const workspace = await mkdtemp(join(tmpdir(), 'todo-agent-bench-sandbox-'));
  try {
    const openTimes: number[] = [];
    let sandbox: Sandbox | undefined;
    for (let i = 0; i < opens; i++) {
      sandbox?.close();
      const started = performance.now();
      sandbox = await openSandbox({ workspace, network: 'host' });
      openTimes.push(performance.now() - started);
    }
    const direct: number[] = [];
    const sandboxed: number[] = [];
    await timeCall(workspace); // warm-up of both paths, not counted
    await timeCall(workspace, sandbox);
    // Interleaved, so that the machine's load falls on both alike.
    for (let i = 0; i < calls; i++) {
      direct.push(await timeCall(workspace));
      sandboxed.push(await timeCall(workspace, sandbox));
    }
    sandbox?.close();
    const added = sandboxed.map((ms, i) => ms - direct[i]!);
    return {
      medianOpenMs: median(openTimes),
      medianDirectCallMs: median(direct),
      medianSandboxedCallMs: median(sandboxed),
      medianAddedPerCallMs: median(added),
      opens,
      calls,
    };
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
