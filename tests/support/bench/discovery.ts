// Bench measure 13: what the allowlist's discovery costs the first command. Under `tool_network: allowlist`
// every sandboxed command waits for the list to be complete (ToolNetwork.ready), and the list is complete
// once the runner's toolchains (npm, pip, Python, Go, RubyGems, cargo, apt, Maven: whichever this machine
// has) answered in the sandbox (src/network/discover.ts). Each run opens a gated sandbox (not timed), opens
// the gate with the toolchains' question already known, as the action does just before its MCP servers
// start, and at once runs `true` in the sandbox: that command's time, less a second `true`'s once the list is
// there, is what the discovery costs a run whose model asks for a command at once (a real model's first
// reply takes a second or more, which the discovery overlaps).
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NetworkGate } from '../../../src/network/gate.js';
import { openSandbox } from '../../../src/sandbox/setup.js';
import { runCommand } from '../../../src/sandbox/commands/run-command.js';
import { median } from './stats.js';

export interface DiscoveryCost {
  /** From the gate's opening to its list being complete. */
  listMs: number[];
  /** The first command (`true`), run as the gate opens: it waits for the list. */
  firstCommandMs: number[];
  /** A `true` once the list is there. */
  commandMs: number[];
  /** How many hosts the toolchains named (the last run's list, allowed_hosts and GitHub's included). */
  hosts: number;
  /** Median first command less median command: what the wait for the list adds. */
  addedMs: number;
}

export async function measureDiscovery(reps: number): Promise<DiscoveryCost> {
  const root = await mkdtemp(join(tmpdir(), 'todo-agent-bench-discovery-'));
  const workspace = join(root, 'workspace');
  const home = join(root, 'home');
  await Promise.all([mkdir(workspace), mkdir(home)]);
  const env = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' };
  const cost: DiscoveryCost = { listMs: [], firstCommandMs: [], commandMs: [], hosts: 0, addedMs: 0 };
  const run = (sandbox: Awaited<ReturnType<typeof openSandbox>>) =>
    runCommand('true', { cwd: workspace, env, timeoutMs: 60_000, sandbox });
  try {
    for (let i = 0; i < reps; i++) {
      const sandbox = await openSandbox({ workspace, network: 'gated', home });
      try {
        const opened = performance.now();
        const gate = await NetworkGate.open({
          sandbox,
          toolchains: Promise.resolve({ env, projectFiles: {} }),
          allowedHosts: [],
          github: { serverUrl: 'https://github.com', apiUrl: 'https://api.github.com' },
          env,
        });
        const listed = gate.allowlist.then((list) => {
          cost.listMs.push(performance.now() - opened);
          return list;
        });
        const first = await run(sandbox);
        if (first.exitCode !== 0) throw new Error(`true failed in the sandbox: ${first.output}`);
        cost.firstCommandMs.push(performance.now() - opened);
        cost.hosts = (await listed).rules.length;
        const started = performance.now();
        await run(sandbox);
        cost.commandMs.push(performance.now() - started);
      } finally {
        sandbox.close();
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  cost.addedMs = median(cost.firstCommandMs) - median(cost.commandMs);
  return cost;
}
