// Bench measure 13: what the allowlist's discovery costs the first command. Under `tool_network: allowlist`
// the list is complete once the runner's toolchains (npm, pip, Python, Go, RubyGems, cargo, apt, Maven:
// whichever this machine has) answered, in a sandbox of their own (src/network/discover.ts); a command
// starts at once, and the gate holds only a request the list known so far cannot decide. Each run opens a
// gated sandbox (not timed), opens the gate with the toolchains' question already known, as the action does
// just before its MCP servers start, and at once runs a command that asks for a host the list known from the
// start refuses (the cloud's metadata address, `curl` through the proxy): the run's first command, and with
// it the run's first refusal (issue 37, point 5). Timed: the command's start to the refusal the gate's
// watchers hear, and the command's whole time, each against the same command once the list is complete; the
// difference of the medians is what the discovery adds to a run whose model asks for a command at once (a
// real model's first reply takes a second or more, which the discovery overlaps). And the same refusal
// through the gate's fetch as the gate opens (as an MCP server's request is).
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NetworkGate } from '../../../src/network/gate.js';
import { openSandbox } from '../../../src/sandbox/setup.js';
import { runCommand } from '../../../src/sandbox/commands/run-command.js';
import type { Sandbox } from '../../../src/sandbox/namespaces.js';
import { median } from './stats.js';

export interface DiscoveryCost {
  /** From the gate's opening to its list being complete. */
  listMs: number[];
  /** The run's first command (the refused request), run as the gate opens: its whole time. */
  firstCommandMs: number[];
  /** The same command once the list is there. */
  commandMs: number[];
  /** How many hosts the toolchains named (the last run's list, allowed_hosts and GitHub's included). */
  hosts: number;
  /** Median first command less median command: what the discovery adds to the run's first command. */
  addedMs: number;
  /** From the gate's opening to its fetch's refusal of an address no answer could allow (list not complete). */
  fetchRefusalMs: number[];
  /** From the run's first command's start to the gate's refusal of its request (list not complete). */
  firstRefusalMs: number[];
  /** From a command's start to the gate's refusal of its request, the list complete. */
  commandRefusalMs: number[];
  /** A `true` once the list is there: what starting a command costs, which the refusals include. */
  trueMs: number[];
}

/** An address no toolchain's answer can allow: the cloud's metadata service (link-local). */
const REFUSED_URL = 'http://169.254.169.254/';

export async function measureDiscovery(reps: number): Promise<DiscoveryCost> {
  const root = await mkdtemp(join(tmpdir(), 'todo-agent-bench-discovery-'));
  const workspace = join(root, 'workspace');
  const home = join(root, 'home');
  await Promise.all([mkdir(workspace), mkdir(home)]);
  const env = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8' };
  const cost: DiscoveryCost = {
    listMs: [],
    firstCommandMs: [],
    commandMs: [],
    hosts: 0,
    addedMs: 0,
    fetchRefusalMs: [],
    firstRefusalMs: [],
    commandRefusalMs: [],
    trueMs: [],
  };
  /** The refused request in a command: the command's whole time, and its start to the refusal heard. */
  const refusedInCommand = async (sandbox: Sandbox, gate: NetworkGate) => {
    const refused = new Promise<number>((resolve) => {
      const stop = gate.watch(() => {
        stop();
        resolve(performance.now());
      });
    });
    const started = performance.now();
    const result = await runCommand(`curl -s -o /dev/null ${REFUSED_URL}; true`, {
      cwd: workspace,
      env,
      timeoutMs: 60_000,
      sandbox,
    });
    if (result.exitCode !== 0) throw new Error(`the command failed in the sandbox: ${result.output}`);
    return { commandMs: performance.now() - started, refusalMs: (await refused) - started };
  };
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
        const fetched = gate.fetch(REFUSED_URL).then(
          () => {
            throw new Error(`the gate let ${REFUSED_URL} through`);
          },
          () => cost.fetchRefusalMs.push(performance.now() - opened),
        );
        // Heard first, so that the command's watcher hears its own refusal (a few ms, the list still unknown).
        await fetched;
        const first = await refusedInCommand(sandbox, gate);
        cost.firstCommandMs.push(first.commandMs);
        cost.firstRefusalMs.push(first.refusalMs);
        cost.hosts = (await listed).rules.length;
        const later = await refusedInCommand(sandbox, gate);
        cost.commandMs.push(later.commandMs);
        cost.commandRefusalMs.push(later.refusalMs);
        const started = performance.now();
        await runCommand('true', { cwd: workspace, env, timeoutMs: 60_000, sandbox });
        cost.trueMs.push(performance.now() - started);
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
