// Bench measure 10: what the network gate costs. In the same run, a real `npm ci` of this repository's own
// lockfile (hundreds of packages, from the registry npm is configured with, a cold cache each time) and a real
// `pip install` of wheels from a local index (found through pip's own configuration) are timed in a sandbox
// with `tool_network: all` and in one behind the gate, interleaved so that the machine's load falls on both
// alike; a small request is timed directly and through the proxy; a thousand connection attempts at once are
// made through the gate while the bridge's processes are counted; and with `tool_network: none`, how long npm,
// pip, cargo and Go take to fail, and whether they say why (also with the failure piped away, exit status 0).
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import { runCommand } from '../../../src/sandbox/commands/run-command.js';
import type { Sandbox } from '../../../src/sandbox/namespaces.js';
import { openSandbox } from '../../../src/sandbox/setup.js';
import { NetworkGate } from '../../../src/network/gate.js';
import { systemResolver, type Resolver } from '../../../src/network/proxy/resolver.js';
import { NETWORK_OFF_NOTE } from '../../../src/sandbox/limits.js';
import { ROOT } from '../action-harness.js';
import { makeWheel, startSimpleIndex } from '../network/registries.js';
import { median } from './stats.js';
import { measureTunnelCost, type TunnelCost } from './tunnel.js';

const PYPI_HOST = 'pypi.bench.todo-agent.test';
const SMALL_HOST = 'small.bench.todo-agent.test';
const WHEELS = 30;
const SMALL_REQUESTS = 300;

export interface Timed {
  allMs: number[];
  allowlistMs: number[];
  /** The median of each run behind the gate ÷ the run with every host beside it (paired). */
  ratio: number;
}

export interface NetworkCost {
  /** Absent in --quick: a cold install of hundreds of packages takes a while. */
  npmCi?: Timed & { packages: number };
  pipInstall: Timed & { wheels: number };
  smallRequest: { directMs: number; proxiedMs: number; addedMs: number; requests: number };
  /** A new TLS connection through a tunnel, its ClientHello read by the proxy first (no sandbox). */
  tunnel: TunnelCost;
  /** The bridge's processes while a tool makes a thousand connection attempts through the gate at once. */
  flood: ConnectionFlood;
  /** `tool_network: none`: how long each client took to fail, and whether its output says why. */
  offline: OfflineFailure[];
}

export interface ConnectionFlood {
  attempts: number;
  /** Connections the tool held open, and those refused at once at the cap. */
  held: number;
  refused: number;
  /** Host processes of the bridge (with sudo's own) before the attempts, and the most seen during them. */
  processesBefore: number;
  processesPeak: number;
}

export interface OfflineFailure {
  client: 'npm ci' | 'pip install' | 'cargo fetch' | 'go mod download';
  /** Absent: the client is not installed where the sandbox's tools find it. */
  ms?: number;
  saysWhy?: boolean;
  /** The same command piped into `tail` (exit status 0): whether its output still says why. */
  pipedSaysWhy?: boolean;
}

/**
 * Opens `attempts` connections to the proxy's port at once and holds them for a second and a half; prints how
 * many were held and how many were answered with a refusal at once.
 */
const FLOOD_CLIENT = String.raw`
const net = require('node:net');
const [port, attempts] = process.argv.slice(2).map(Number);
let held = 0, refused = 0, failed = 0;
const sockets = [];
for (let i = 0; i < attempts; i++) {
  const socket = net.connect(port, '127.0.0.1');
  socket.once('connect', () => held++);
  socket.once('data', (data) => { if (data.toString().startsWith('HTTP/1.1 503')) { refused++; held--; } });
  socket.on('error', () => failed++);
  sockets.push(socket);
}
setTimeout(() => {
  console.log(JSON.stringify({ held, refused, failed }));
  for (const socket of sockets) socket.destroy();
}, 1500);
`;

/** The host processes whose command line names `needle` (the bridge's socket: perl, and sudo's own). */
async function processesNaming(needle: string): Promise<number> {
  let count = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(needle)) count++;
  }
  return count;
}

/** A thousand connection attempts through the gate's bridge, its processes counted while they last. */
async function measureFlood(sandbox: Sandbox, env: NodeJS.ProcessEnv, workspace: string) {
  const attempts = 1000;
  const socket = sandbox.bridge!.proxySocket;
  const processesBefore = await processesNaming(socket);
  let processesPeak = processesBefore;
  let done = false;
  const run = timed(`node flood.cjs ${sandbox.bridge!.port} ${attempts}`, workspace, env, sandbox).finally(
    () => (done = true),
  );
  while (!done) {
    processesPeak = Math.max(processesPeak, await processesNaming(socket));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const result = await run;
  ok(result, 'the connection flood');
  // The gate's note on the refusals at the cap follows the client's own line.
  const line = result.output.split('\n').find((text) => text.startsWith('{'))!;
  const { held, refused } = JSON.parse(line) as Record<string, number>;
  return { attempts, held: held!, refused: refused!, processesBefore, processesPeak };
}

/** Each client's command with the network off: a fresh cache, a dependency no cache holds. */
const OFFLINE_COMMANDS: ReadonlyArray<{
  client: OfflineFailure['client'];
  program: string;
  command: string;
}> = [
  { client: 'npm ci', program: 'npm', command: 'npm ci --no-audit --no-fund --cache "$(mktemp -d)"' },
  {
    client: 'pip install',
    program: 'python3',
    command: '/usr/bin/python3 -m pip install -q --no-cache-dir --target "$(mktemp -d)" bench-wheel-0',
  },
  {
    client: 'cargo fetch',
    program: 'cargo',
    command: 'cd offline-cargo && CARGO_HOME="$(mktemp -d)" cargo fetch',
  },
  {
    client: 'go mod download',
    program: 'go',
    command: 'cd offline-go && GOMODCACHE="$(mktemp -d)" go mod download',
  },
];

/** A crate and a Go module that depend on one made-up package each. */
async function offlineProjects(workspace: string): Promise<void> {
  await mkdir(join(workspace, 'offline-cargo', 'src'), { recursive: true });
  await writeFile(
    join(workspace, 'offline-cargo', 'Cargo.toml'),
    '[package]\nname = "offline-probe"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nmade-up-crate = "1"\n',
  );
  await writeFile(join(workspace, 'offline-cargo', 'src', 'main.rs'), 'fn main() {}\n');
  await mkdir(join(workspace, 'offline-go'), { recursive: true });
  await writeFile(
    join(workspace, 'offline-go', 'go.mod'),
    'module bench.todo-agent.test/offline\n\ngo 1.21\n\nrequire made-up.todo-agent.test/mod v1.0.0\n',
  );
}

/** How long each client takes to fail with the network off, and whether it says why, piped or not. */
async function measureOffline(sandbox: Sandbox, env: NodeJS.ProcessEnv, workspace: string) {
  await rm(join(workspace, 'node_modules'), { recursive: true, force: true });
  await offlineProjects(workspace);
  const failures: OfflineFailure[] = [];
  for (const { client, program, command } of OFFLINE_COMMANDS) {
    const found = await timed(`command -v ${program}`, workspace, env, sandbox);
    if (found.exitCode !== 0) {
      failures.push({ client });
      continue;
    }
    const run = await timed(command, workspace, env, sandbox);
    const piped = await timed(`(${command}) 2>&1 | tail -n 3`, workspace, env, sandbox);
    failures.push({
      client,
      ms: run.ms,
      saysWhy: run.exitCode !== 0 && run.output.includes(NETWORK_OFF_NOTE),
      pipedSaysWhy: piped.exitCode === 0 && piped.output.includes(NETWORK_OFF_NOTE),
    });
  }
  return failures;
}

/** Times each request of a small GET, directly or through the proxy HTTP_PROXY names; prints the median. */
const SMALL_CLIENT = String.raw`
const http = require('node:http');
const [url, count, viaProxy] = process.argv.slice(2);
const proxy = viaProxy === 'proxy' ? new URL(process.env.HTTP_PROXY) : undefined;
const target = new URL(url);
const once = () => new Promise((resolve, reject) => {
  const options = proxy
    ? { host: proxy.hostname, port: proxy.port, path: url, headers: { host: target.host }, agent: false }
    : { host: target.hostname, port: target.port, path: target.pathname, agent: false };
  http.get(options, (res) => { res.resume(); res.on('end', resolve); }).on('error', reject);
});
(async () => {
  const times = [];
  for (let i = 0; i < Number(count); i++) {
    const started = process.hrtime.bigint();
    await once();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ median: times[Math.floor(times.length / 2)] }));
})();
`;

async function timed(command: string, workspace: string, env: NodeJS.ProcessEnv, sandbox: Sandbox) {
  const started = performance.now();
  const result = await runCommand(command, {
    cwd: workspace,
    env,
    timeoutMs: 600_000,
    sandbox,
    limit: 20_000,
  });
  return { ms: performance.now() - started, ...result };
}

function ok(result: { exitCode: number | null; output: string }, what: string): void {
  if (result.exitCode !== 0)
    throw new Error(`${what} failed (${result.exitCode}): ${result.output.slice(-1500)}`);
}

export async function measureNetworkCost(reps: number, withNpm: boolean): Promise<NetworkCost> {
  const root = await mkdtemp(join(tmpdir(), 'todo-agent-bench-network-'));
  const workspace = join(root, 'workspace');
  const home = join(root, 'home');
  const wheels = join(root, 'wheels');
  await Promise.all([mkdir(workspace), mkdir(home), mkdir(wheels)]);
  await copyFile(join(ROOT, 'package.json'), join(workspace, 'package.json'));
  await copyFile(join(ROOT, 'package-lock.json'), join(workspace, 'package-lock.json'));
  await writeFile(join(workspace, 'small.cjs'), SMALL_CLIENT);
  await writeFile(join(workspace, 'flood.cjs'), FLOOD_CLIENT);
  const built: string[] = [];
  for (let i = 0; i < WHEELS; i++) built.push(await makeWheel(wheels, `bench_wheel_${i}`, '1.0', i));
  const index = await startSimpleIndex(built);
  const small = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => small.listen(0, '127.0.0.1', resolve));
  const smallPort = (small.address() as { port: number }).port;

  const system = systemResolver();
  const names: Record<string, number> = { [PYPI_HOST]: index.port, [SMALL_HOST]: smallPort };
  const resolver: Resolver = async (host) =>
    names[host] === undefined
      ? await system(host)
      : { addresses: [{ address: '127.0.0.1', family: 4 }], port: names[host], trusted: true };
  const env = {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
  };
  // pip finds its index in its configuration (a variable of it), as the gate does.
  const pipEnv = (host: string) => ({
    ...env,
    PIP_INDEX_URL: `http://${host}/simple/`,
    PIP_TRUSTED_HOST: host.split(':')[0]!,
  });
  const direct = `127.0.0.1:${index.port}`;
  const all = await openSandbox({ workspace, network: 'host', home });
  const gated = await openSandbox({ workspace, network: 'gated', home });
  const offline = await openSandbox({ workspace, network: 'none', home });
  try {
    const gate = await NetworkGate.open({
      sandbox: gated,
      toolchains: Promise.resolve({ env: pipEnv(PYPI_HOST), projectFiles: {} }),
      // The small server's name is the maintainer's to allow; the index is found in pip's configuration.
      allowedHosts: [{ host: SMALL_HOST, source: 'allowed_hosts' }],
      github: { serverUrl: 'https://github.com', apiUrl: 'https://api.github.com' },
      env: pipEnv(PYPI_HOST),
      resolver,
    });
    await gate.allowlist;
    const lock = JSON.parse(await readFile(join(workspace, 'package-lock.json'), 'utf8')) as {
      packages: object;
    };
    const npm =
      'rm -rf node_modules && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error --cache "$(mktemp -d)"';
    const pip =
      'rm -rf site && /usr/bin/python3 -m pip install -q --no-cache-dir --target site ' +
      Array.from({ length: WHEELS }, (_, i) => `bench-wheel-${i}`).join(' ');
    /** One run in each sandbox, every host first (each must succeed): its time, or what it printed. */
    const both = async (
      what: string,
      command: (behindGate: boolean) => string,
      envOf: (behindGate: boolean) => NodeJS.ProcessEnv,
    ) => {
      const runs = [];
      for (const behindGate of [false, true]) {
        const run = await timed(command(behindGate), workspace, envOf(behindGate), behindGate ? gated : all);
        ok(run, `${what}, ${behindGate ? 'behind the gate' : 'every host'}`);
        process.stderr.write(` [${what}${behindGate ? ', gate' : ''}: ${Math.round(run.ms)} ms]`);
        runs.push(run);
      }
      return runs as [Awaited<ReturnType<typeof timed>>, Awaited<ReturnType<typeof timed>>];
    };
    const npmTimes = { all: [] as number[], allowlist: [] as number[] };
    const pipTimes = { all: [] as number[], allowlist: [] as number[] };
    const smallTimes = { all: [] as number[], allowlist: [] as number[] };
    const add = (into: { all: number[]; allowlist: number[] }, [a, g]: number[]) => {
      into.all.push(a!);
      into.allowlist.push(g!);
    };
    const requestMedian = (output: string) => (JSON.parse(output) as { median: number }).median;
    for (let i = 0; i < reps; i++) {
      if (withNpm)
        add(
          npmTimes,
          (
            await both(
              'npm ci',
              () => npm,
              () => env,
            )
          ).map((run) => run.ms),
        );
      const pipRuns = await both(
        'pip install',
        () => pip,
        (behindGate) => pipEnv(behindGate ? PYPI_HOST : direct),
      );
      add(
        pipTimes,
        pipRuns.map((run) => run.ms),
      );
      const smallRuns = await both(
        'small requests',
        (behindGate) =>
          behindGate
            ? `node small.cjs http://${SMALL_HOST}/ ${SMALL_REQUESTS} proxy`
            : `node small.cjs http://127.0.0.1:${smallPort}/ ${SMALL_REQUESTS} direct`,
        () => env,
      );
      add(
        smallTimes,
        smallRuns.map((run) => requestMedian(run.output)),
      );
    }
    const flood = await measureFlood(gated, env, workspace);
    const offlineFailures = await measureOffline(offline, pipEnv(PYPI_HOST), workspace);
    // Paired: each run behind the gate over the run with every host just before it, the median of those.
    const ratio = (t: { all: number[]; allowlist: number[] }) =>
      median(t.allowlist.map((gated, i) => gated / t.all[i]!));
    const directMs = median(smallTimes.all);
    const proxiedMs = median(smallTimes.allowlist);
    return {
      ...(withNpm
        ? {
            npmCi: {
              allMs: npmTimes.all,
              allowlistMs: npmTimes.allowlist,
              ratio: ratio(npmTimes),
              packages: Object.keys(lock.packages).length - 1,
            },
          }
        : {}),
      pipInstall: {
        allMs: pipTimes.all,
        allowlistMs: pipTimes.allowlist,
        ratio: ratio(pipTimes),
        wheels: WHEELS,
      },
      smallRequest: { directMs, proxiedMs, addedMs: proxiedMs - directMs, requests: SMALL_REQUESTS },
      tunnel: await measureTunnelCost(SMALL_REQUESTS),
      flood,
      offline: offlineFailures,
    };
  } finally {
    for (const sandbox of [all, gated, offline]) sandbox.close();
    await index.close();
    await new Promise((resolve) => small.close(resolve));
    await rm(root, { recursive: true, force: true });
  }
}
