// The gated sandbox's one way out: a bridge of ours inside the tools' network namespace, which has loopback
// and no route anywhere. It listens on a loopback port there (the proxy's address the tools are given) and
// leads each connection, byte for byte, to a Unix socket outside, where the network gate's proxy answers
// (src/network/). A forwarded port (a loopback service the maintainer allowed by name) gets a listener of its
// own on the same port inside, led to a socket of its own. The bridge parses nothing; every decision is the
// proxy's.
//
// It is entered into the namespace as the sandbox's calls are (through the same escalation; rootless, through
// the template's user namespace), runs as the action's own user without a capability, gets no environment of
// the tools, and ends when its stdin closes (the sandbox closing, or the action going away). It is perl, as the
// sandbox's other helpers are, and moves bytes with splice(2): a copy through a process of ours per chunk
// would cost the tools' installs CPU time they need.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SandboxError, waitForLine, type BridgeEnds, type Sandbox } from './namespaces.js';

/**
 * `perl -e BRIDGE SPLICE PROXY_SOCKET [PORT=SOCKET…]`: listens on 127.0.0.1 (an ephemeral port for the proxy,
 * each forwarded port as given), prints `port N`, and for each connection forks a relay that connects to the
 * listener's socket and moves bytes both ways with splice(2) (SPLICE is its number here): through the kernel,
 * never copied through the bridge, one relay process per direction. Each direction ends with a half-close, so
 * a client that stops sending still gets its answer. The listener exits when its stdin closes; a relay, when
 * its connection ends.
 */
const BRIDGE = String.raw`
use strict; use warnings; use Socket qw(:DEFAULT IPPROTO_TCP TCP_NODELAY); use IO::Select;
my ($splice, $proxy, @forwards) = @ARGV;
$SIG{CHLD} = 'IGNORE';
sub listener {
  my ($port) = @_;
  socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!\n";
  setsockopt($s, SOL_SOCKET, SO_REUSEADDR, 1);
  bind($s, pack_sockaddr_in($port, inet_aton('127.0.0.1'))) or die "bind 127.0.0.1:$port: $!\n";
  listen($s, 512) or die "listen: $!\n";
  return $s;
}
sub pump {
  my ($from, $to) = @_;
  pipe(my $out, my $in) or return;
  MOVE: while (1) {
    my $n = syscall($splice, fileno($from), 0, fileno($in), 0, 1 << 20, 1);
    last if $n <= 0;
    while ($n > 0) {
      my $m = syscall($splice, fileno($out), 0, fileno($to), 0, $n, 1);
      last MOVE if $m <= 0;
      $n -= $m;
    }
  }
  shutdown($to, 1);
}
sub relay {
  my ($client, $path) = @_;
  setsockopt($client, IPPROTO_TCP, TCP_NODELAY, 1);
  socket(my $up, PF_UNIX, SOCK_STREAM, 0) or exit 1;
  connect($up, pack_sockaddr_un($path)) or exit 1;
  my $pid = fork();
  exit 1 unless defined $pid;
  if ($pid == 0) { pump($client, $up); exit 0; }
  pump($up, $client);
  exit 0;
}
my @listeners = ([listener(0), $proxy]);
for my $forward (@forwards) {
  my ($port, $path) = split /=/, $forward, 2;
  push @listeners, [listener($port), $path];
}
my ($port) = unpack_sockaddr_in(getsockname($listeners[0][0]));
$| = 1;
print "port $port\n";
my $select = IO::Select->new(\*STDIN, map { $_->[0] } @listeners);
while (1) {
  for my $ready ($select->can_read) {
    if ($ready == \*STDIN) { exit 0 unless sysread(STDIN, my $ignored, 4096); next; }
    my ($listening) = grep { $_->[0] == $ready } @listeners;
    accept(my $client, $ready) or next;
    my $pid = fork();
    if (defined $pid && $pid == 0) {
      close $_->[0] for @listeners;
      relay($client, $listening->[1]);
    }
    close $client;
  }
}
`;

/** How long the bridge may take to listen before the sandbox counts as unavailable. */
const BRIDGE_TIMEOUT_MS = 15_000;

export class Bridge implements BridgeEnds {
  /** Where the proxy listens for the bridge: a directory of the action's alone (mode 700). */
  readonly proxySocket: string;
  /** The proxy's port on the tools' loopback. */
  readonly port: number;
  readonly forwards: readonly number[];
  readonly #dir: string;
  readonly #process: ChildProcessWithoutNullStreams;

  private constructor(
    dir: string,
    port: number,
    forwards: readonly number[],
    child: ChildProcessWithoutNullStreams,
  ) {
    this.#dir = dir;
    this.forwards = forwards;
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
      return new Bridge(dir, Number(match[1]), forwards, child);
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
  const perl = ['perl', '-e', BRIDGE, String(sandbox.config.splice), ...args];
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
          ...perl,
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
          ...perl,
        ];
  const [program, ...rest] = argv;
  return spawn(program as string, rest, {
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}
