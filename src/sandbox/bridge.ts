// The gated sandbox's one way out: a bridge of ours inside the tools' network namespace, which has loopback
// and no route anywhere. It listens on a loopback port there (the proxy's address the tools are given) and
// leads each connection, byte for byte, to a Unix socket outside, where the network gate's proxy answers
// (src/network/). A forwarded port (a loopback service the maintainer allowed by name) gets a listener of its
// own on the same port inside, led to a socket of its own. The bridge parses nothing; every decision is the
// proxy's, but for the run's cap on connections at once, which it keeps itself.
//
// It is entered into the namespace as the sandbox's calls are (through the same escalation; rootless, through
// the template's user namespace), runs as the action's own user without a capability, gets no environment of
// the tools, and ends when its stdin closes (the sandbox closing, or the action going away). It is perl, as the
// sandbox's other helpers are, and one process moves every connection's bytes: no process per connection, so
// a tool that opens a thousand costs the runner none, and a new connection costs an accept and a connect.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connectionCapReason, LIMITS } from './limits.js';
import { SandboxError, type BridgeEnds, type Sandbox } from './namespaces.js';
import { waitForLine } from './ready-line.js';

/**
 * `perl -e BRIDGE CAP IDLE ANSWER PROXY_SOCKET [PORT=SOCKET…]`: listens on 127.0.0.1 (an ephemeral port for
 * the proxy, each forwarded port as given), prints `port N`, and moves the bytes of every connection it
 * accepts to and from a connection of its own to that listener's socket, in one loop over non-blocking
 * sockets (a direction reads no more while 64 KiB wait to be written: the slower end sets the pace). Each
 * direction ends with a half-close, so a client that stops sending still gets its answer; a connection goes
 * when both directions ended or either end failed. At CAP connections, a new one takes the place of the
 * oldest that moved nothing for IDLE seconds (never a forwarded port's: a pooled database connection may
 * rest for hours); with none, it is refused before any socket of ours is spent on it: the proxy's port gets
 * ANSWER (an HTTP refusal), a forwarded port a close, and `refused PORT` is printed. The loop exits when
 * stdin closes.
 */
const BRIDGE = String.raw`
use strict; use warnings; use Socket qw(:DEFAULT IPPROTO_TCP TCP_NODELAY);
use Fcntl qw(F_GETFL F_SETFL O_NONBLOCK); use Time::HiRes qw(time);
my ($cap, $idle, $answer, $proxy, @forwards) = @ARGV;
my $CHUNK = 65536;
$SIG{PIPE} = 'IGNORE';
$| = 1;
sub nonblocking { my ($fh) = @_; fcntl($fh, F_SETFL, fcntl($fh, F_GETFL, 0) | O_NONBLOCK); }
sub listener {
  my ($port, $path, $forward) = @_;
  socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!\n";
  setsockopt($s, SOL_SOCKET, SO_REUSEADDR, 1);
  bind($s, pack_sockaddr_in($port, inet_aton('127.0.0.1'))) or die "bind 127.0.0.1:$port: $!\n";
  listen($s, 512) or die "listen: $!\n";
  nonblocking($s);
  ($port) = unpack_sockaddr_in(getsockname($s));
  return { fh => $s, path => $path, port => $port, forward => $forward };
}
my @listeners = (listener(0, $proxy, 0));
for my $forward (@forwards) {
  my ($port, $path) = split /=/, $forward, 2;
  push @listeners, listener($port, $path, 1);
}
print "port $listeners[0]{port}\n";
my %open;
my $now = time;
sub drop {
  my ($c) = @_;
  return if $c->{gone}++;
  delete $open{fileno $c->{ends}[0]};
  close $_ for @{$c->{ends}};
}
sub room {
  return 1 if keys(%open) < $cap;
  my ($oldest) = sort { $a->{last} <=> $b->{last} }
    grep { !$_->{forward} && $now - $_->{last} >= $idle } values %open;
  return 0 unless $oldest;
  drop($oldest);
  return 1;
}
sub refuse {
  my ($client, $l) = @_;
  print "refused $l->{port}\n";
  unless ($l->{forward}) {
    nonblocking($client);
    sysread($client, my $request, $CHUNK);
    syswrite($client, $answer);
    shutdown($client, 1);
  }
  close $client;
}
sub take {
  my ($l) = @_;
  while (accept(my $client, $l->{fh})) {
    if (!room()) { refuse($client, $l); next; }
    socket(my $up, PF_UNIX, SOCK_STREAM, 0) or next;
    connect($up, pack_sockaddr_un($l->{path})) or next;
    setsockopt($client, IPPROTO_TCP, TCP_NODELAY, 1);
    nonblocking($_) for $client, $up;
    $open{fileno $client} =
      { ends => [$client, $up], buf => ['', ''], eof => [0, 0], shut => [0, 0], forward => $l->{forward}, last => $now };
  }
}
sub move {
  my ($c, $readable) = @_;
  for my $d (0, 1) {
    my ($from, $to) = ($c->{ends}[$d], $c->{ends}[1 - $d]);
    if (!$c->{eof}[$d] && length($c->{buf}[$d]) < $CHUNK && vec($readable, fileno $from, 1)) {
      my $got = sysread($from, $c->{buf}[$d], $CHUNK, length $c->{buf}[$d]);
      if (!defined $got) { return drop($c) unless $!{EAGAIN} || $!{EINTR}; }
      elsif ($got == 0) { $c->{eof}[$d] = 1; }
      else { $c->{last} = $now; }
    }
    if (length $c->{buf}[$d]) {
      my $put = syswrite($to, $c->{buf}[$d]);
      if (!defined $put) { return drop($c) unless $!{EAGAIN} || $!{EINTR}; }
      else { substr($c->{buf}[$d], 0, $put, ''); }
    }
    if ($c->{eof}[$d] && !length $c->{buf}[$d] && !$c->{shut}[$d]++) { shutdown($to, 1); }
  }
  drop($c) if $c->{shut}[0] && $c->{shut}[1];
}
while (1) {
  my ($read, $write) = ('', '');
  vec($read, fileno STDIN, 1) = 1;
  vec($read, fileno $_->{fh}, 1) = 1 for @listeners;
  for my $c (values %open) {
    for my $d (0, 1) {
      vec($read, fileno $c->{ends}[$d], 1) = 1 if !$c->{eof}[$d] && length($c->{buf}[$d]) < $CHUNK;
      vec($write, fileno $c->{ends}[1 - $d], 1) = 1 if length $c->{buf}[$d];
    }
  }
  if (select($read, $write, undef, undef) < 0) { next if $!{EINTR}; die "select: $!\n"; }
  $now = time;
  if (vec($read, fileno STDIN, 1)) { exit 0 unless sysread(STDIN, my $ignored, 4096); }
  my @moving = values %open;
  for my $l (@listeners) { take($l) if vec($read, fileno $l->{fh}, 1); }
  for my $c (@moving) { move($c, $read) unless $c->{gone}; }
}
`;

/** The answer of a connection to the proxy's port over the cap, as the proxy would give it. */
function capAnswer(cap: number): string {
  const reason = connectionCapReason(cap);
  const body = `todo-agent refused the connection: ${reason}\n`;
  return (
    `HTTP/1.1 503 Refused by todo-agent: ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/** How long the bridge may take to listen before the sandbox counts as unavailable. */
const BRIDGE_TIMEOUT_MS = 15_000;

/** The bridge's caps (LIMITS' by default; a test's smaller ones). */
export interface BridgeCaps {
  connections: number;
  idleSeconds: number;
}

export class Bridge implements BridgeEnds {
  /** Where the proxy listens for the bridge: a directory of the action's alone (mode 700). */
  readonly proxySocket: string;
  /** The proxy's port on the tools' loopback. */
  readonly port: number;
  readonly forwards: readonly number[];
  readonly #dir: string;
  readonly #process: ChildProcessWithoutNullStreams;
  readonly #refusals = new Set<(port: number, cap: number) => void>();
  readonly #cap: number;

  private constructor(
    dir: string,
    port: number,
    forwards: readonly number[],
    child: ChildProcessWithoutNullStreams,
    cap: number,
  ) {
    this.#dir = dir;
    this.#cap = cap;
    this.forwards = forwards;
    this.proxySocket = socketIn(dir, 'proxy');
    this.port = port;
    this.#process = child;
    // After its port, the bridge prints a line for each connection it refused at the cap.
    let pending = '';
    child.stdout.removeAllListeners('data');
    child.stdout.on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const refused = /^refused (\d+)$/.exec(line);
        if (refused) for (const listener of this.#refusals) listener(Number(refused[1]), this.#cap);
      }
    });
  }

  /** Starts the bridge in the sandbox's network namespace, with a listener for each forwarded port. */
  static async open(
    sandbox: Sandbox,
    forwards: readonly number[],
    caps: BridgeCaps = LIMITS,
  ): Promise<Bridge> {
    const dir = mkdtempSync(path.join(tmpdir(), 'todo-agent-network-'));
    const child = spawnBridge(sandbox, [
      String(caps.connections),
      String(caps.idleSeconds),
      capAnswer(caps.connections),
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
      return new Bridge(dir, Number(match[1]), forwards, child, caps.connections);
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

  onRefused(listener: (port: number, cap: number) => void): void {
    this.#refusals.add(listener);
  }

  close(): void {
    this.#refusals.clear();
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
  const perl = ['perl', '-e', BRIDGE, ...args];
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
