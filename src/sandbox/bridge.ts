// The gated sandbox's one way out: a bridge of ours inside the tools' network namespace, which has loopback
// and no route anywhere. It listens on a loopback port there (the proxy's address the tools are given) and
// leads each connection, byte for byte, to a Unix socket outside, where the network gate's proxy answers
// (src/network/). A forwarded port (a loopback service the maintainer allowed by name) gets a listener of its
// own on the same port inside, led to a socket of its own. The bridge parses nothing; every decision is the
// proxy's.
//
// It is entered into the namespace as the sandbox's calls are (through the same escalation; rootless, through
// the template's user namespace), runs as the action's own user without a capability, gets no environment of
// the tools, and ends when its stdin closes (the sandbox closing, or the action going away).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SandboxError, waitForLine, type BridgeEnds, type Sandbox } from './namespaces.js';

/** `node -e BRIDGE PROXY_SOCKET [PORT=SOCKET…]`: prints `port N` once every listener listens. */
const BRIDGE = String.raw`
const net = require('node:net');
const [proxy, ...forwards] = process.argv.slice(1);
const lead = (socketPath) => (client) => {
  const upstream = net.connect({ path: socketPath, allowHalfOpen: true });
  client.pipe(upstream);
  upstream.pipe(client);
  const end = () => { client.destroy(); upstream.destroy(); };
  for (const socket of [client, upstream]) { socket.once('error', end); socket.once('close', end); }
};
const listen = (port, socketPath) => new Promise((resolve, reject) => {
  const server = net.createServer({ allowHalfOpen: true, noDelay: true }, lead(socketPath));
  server.once('error', reject);
  server.listen(port, '127.0.0.1', () => resolve(server.address().port));
});
(async () => {
  const port = await listen(0, proxy);
  for (const forward of forwards) {
    const at = forward.indexOf('=');
    await listen(Number(forward.slice(0, at)), forward.slice(at + 1));
  }
  process.stdout.write('port ' + port + '\n');
})().catch((error) => { process.stderr.write(String(error) + '\n'); process.exit(1); });
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
`;

/** How long the bridge may take to listen before the sandbox counts as unavailable. */
const BRIDGE_TIMEOUT_MS = 15_000;

export class Bridge implements BridgeEnds {
  /** Where the proxy listens for the bridge: a directory of the action's alone (mode 700). */
  readonly proxySocket: string;
  /** The proxy's port on the tools' loopback. */
  readonly port: number;
  readonly #dir: string;
  readonly #process: ChildProcessWithoutNullStreams;

  private constructor(dir: string, port: number, child: ChildProcessWithoutNullStreams) {
    this.#dir = dir;
    this.proxySocket = socketIn(dir, 'proxy');
    this.port = port;
    this.#process = child;
  }

  /** Starts the bridge in the sandbox's network namespace, with a listener for each forwarded port. */
  static async open(sandbox: Sandbox, forwards: readonly number[]): Promise<Bridge> {
    const dir = mkdtempSync(path.join(tmpdir(), 'todo-agent-network-'));
    const child = spawnBridge(sandbox, [
      socketIn(dir, 'proxy'),
      ...forwards.map((port) => `${port}=${socketIn(dir, `port-${port}`)}`),
    ]);
    try {
      const match = await waitForLine(child, /^port (\d+)$/m, BRIDGE_TIMEOUT_MS);
      if ('failed' in match)
        throw new SandboxError(`the network bridge failed to start (${match.failed})${match.detail}`);
      child.unref();
      for (const stream of [child.stdin, child.stdout, child.stderr])
        (stream as unknown as { unref?: () => void }).unref?.();
      return new Bridge(dir, Number(match[1]), child);
    } catch (error) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Where the proxy listens for a forwarded port's connections. */
  forwardSocket(port: number): string {
    return socketIn(this.#dir, `port-${port}`);
  }

  close(): void {
    this.#process.stdin.end();
    this.#process.kill('SIGKILL'); // through sudo this ends sudo, and the closed stdin ends the bridge
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

function socketIn(dir: string, name: string): string {
  return path.join(dir, `${name}.sock`);
}

/** Spawns the bridge in the template's network namespace, as the action's user, without capabilities. */
function spawnBridge(sandbox: Sandbox, args: readonly string[]): ChildProcessWithoutNullStreams {
  const { isolation, escalate, programs } = sandbox.config;
  const net = `--net=${sandbox.namespace('net')}`;
  const bare = ['--no-new-privs', '--inh-caps=-all', '--bounding-set=-all'];
  const node = [process.execPath, '-e', BRIDGE, ...args];
  const argv =
    isolation === 'rootless'
      ? [
          programs.nsenter,
          `--user=${sandbox.namespace('user')}`,
          '--preserve-credentials',
          net,
          '--',
          programs.setpriv,
          ...bare,
          '--',
          ...node,
        ]
      : [
          ...escalate,
          ...(isolation === 'sudo' ? [programs.setpriv, '--pdeathsig', 'KILL', '--'] : []),
          programs.nsenter,
          net,
          '--',
          programs.setpriv,
          // Back to the action's own user (sudo made it root); as root, its uid stays, its capabilities go.
          ...(isolation === 'sudo' ? [`--reuid=${process.getuid?.()}`, `--regid=${process.getgid?.()}`] : []),
          '--clear-groups',
          ...bare,
          '--',
          ...node,
        ];
  const [program, ...rest] = argv;
  return spawn(program as string, rest, {
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}
