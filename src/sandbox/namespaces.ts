// The sandbox itself: a template mount namespace built once per run, and the command line that runs one
// call in a copy of it, in user, PID and IPC namespaces of its own, as an identity without privileges
// (init.ts). With a network that is not the host's, the template has a network namespace of its own too;
// `gated`, the bridge (bridge.ts) and the network gate that answers it (src/network/) are its way out.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { CALL, ENV_FILE_PL, GIT_GUARD, IDMAP_PL, KEYRING_PL, TEMPLATE } from './init.js';
import { LIMITS, NETWORK_OFF_ENV, type SettingNames } from './limits.js';
import { waitForLine } from './ready-line.js';
import { makePrivateDirs, removePrivateDirs, writeShownFiles, type ShownFile } from './private-dirs.js';

/** `read-only` mounts the workspace read-only for every call (plan-only runs). */
export type WorkspaceAccess = 'read-write' | 'read-only';

/** How the sandbox was built: as root, through `sudo -n`, or from unprivileged user namespaces (rootless.ts). */
export type Isolation = 'root' | 'sudo' | 'rootless';

export interface SandboxConfig {
  isolation: Isolation;
  /** Runs a program as root: empty when the action is root, `sudo -n --`, or rootless its own user namespace. */
  escalate: readonly string[];
  /** Absolute paths of the programs the sandbox is built with. */
  programs: { sh: string; perl: string; unshare: string; nsenter: string; setpriv: string; rm: string };
  /**
   * The identity commands run as: the workspace's owner, or an unprivileged one when that is root; rootless,
   * the action's own user. Never 0.
   */
  uid: number;
  gid: number;
  /** Set when the workspace belongs to root: it is shown to `uid` as its own (an idmapped mount). */
  idmapped: boolean;
  /** The number of `keyctl(2)` on this machine's architecture. */
  keyctl: number;
  /** `host`: the host's. `none`: a namespace of its own, loopback only; `gated`: that and the gate's bridge. */
  network: SandboxNetwork;
  /** The one host directory the tools can change (unless `workspaceAccess` is `read-only`). */
  workspace: string;
  workspaceAccess: WorkspaceAccess;
  /** The tools' HOME, shown read-only under a private layer that takes every write (absent: none). */
  home?: string;
  /** The runner's tool cache (setup-python, setup-node…), shown like HOME with a private writable layer. */
  toolCache?: string;
  /** The workspace's `.git` shown like HOME, its private layer mounted on it (it cannot be renamed). */
  layerGitDir?: boolean;
  /** Paths replaced by an empty read-only directory (or /dev/null for a file). */
  hidden: readonly string[];
  shown?: readonly ShownFile[]; // files shown read-only in place of the runner's (its settings, filtered)
  /** The trusted snapshot's directory, shown read-only at SNAPSHOT_MOUNT (an MCP server's sandbox). */
  snapshot?: string;
  /** git programs to cover with GIT_GUARD (init.ts), the first the one it runs (an MCP server's sandbox). */
  gits?: readonly string[];
  names?: SettingNames; // how its notes name the network's settings (default: the workflow's inputs)
}

export type SandboxNetwork = 'host' | 'none' | 'gated';

/** What `spawn` gets for one sandboxed call. */
export interface SandboxCall {
  argv: string[];
  /** The call's environment, with what its network needs (the proxy's address, or being told it is off). */
  env: NodeJS.ProcessEnv;
  identity?: { uid: number; gid: number };
}

/** A request the network gate refused, as the sandbox hands it on: never a path, a header or a body. */
export interface NetworkRefusal {
  host: string;
  port: number;
  /** Why, in words. */
  reason: string;
  /** The allowed_hosts entry that would let it through, where one would. */
  allow?: string;
  /** When (Date.now()). */
  at: number;
}

/** The tools' way out of a `gated` sandbox, as the sandbox sees it: the network gate (src/network/gate.ts). */
export interface ToolNetwork {
  /** What every call's environment gets: where the proxy is, for each client that needs telling. */
  readonly env: Readonly<Record<string, string>>;
  /** What it refused from `since` (Date.now()) on: a call's output ends with a line for each. */
  refusedSince(since: number): readonly NetworkRefusal[];
  /** Tells `listener` of each refusal from now on; returns the way to stop. */
  watch(listener: (refusal: NetworkRefusal) => void): () => void;
  /** Answers another sandbox's bridge too (an MCP server's own), with the same list; closes with it. */
  serve?(sandbox: Sandbox): Promise<void>;
  close(): void;
}

/** The bridge of a `gated` sandbox (bridge.ts): where the gate is to answer it, and the tools' port for it. */
export interface BridgeEnds {
  /** The Unix socket the proxy listens on, which the bridge leads the tools' connections to. */
  readonly proxySocket: string;
  /** The proxy's port on the tools' loopback. */
  readonly port: number;
  /** The runner's loopback ports it forwards (allowed_hosts' `localhost:PORT`). */
  readonly forwards: readonly number[];
  /** The Unix socket a forwarded port's connections are led to. */
  forwardSocket(port: number): string;
  /** Tells `listener` of each connection refused at the cap (`cap`), by the tools' port it came to. */
  onRefused(listener: (port: number, cap: number) => void): void;
  close(): void;
}

/** How long building the template may take before the sandbox counts as unavailable. */
const TEMPLATE_TIMEOUT_MS = 15_000;

export class SandboxError extends Error {
  override name = 'SandboxError';
}

export class Sandbox {
  readonly config: SandboxConfig;
  /** The host directory behind the tools' /tmp, /var/tmp and writes to HOME; removed by close(). */
  readonly privateDir: string;
  readonly #template: ChildProcessWithoutNullStreams;
  readonly #templatePid: number;
  #closed = false;
  #bridge: BridgeEnds | undefined;
  #network: ToolNetwork | undefined;
  /** Removes the private directory if the process exits without close() (an uncaught error, process.exit). */
  readonly #onExit = (): void => this.close();

  private constructor(
    config: SandboxConfig,
    privateDir: string,
    template: ChildProcessWithoutNullStreams,
    pid: number,
  ) {
    this.config = config;
    this.privateDir = privateDir;
    this.#template = template;
    this.#templatePid = pid;
    process.once('exit', this.#onExit);
  }

  /** Builds the template namespace (its directory `within` another's, if given); rejects with why it cannot. */
  static async open(config: SandboxConfig, within?: string): Promise<Sandbox> {
    const privateDir = await makePrivateDirs(within);
    try {
      const [template, pid] = await startTemplate(config, privateDir);
      return new Sandbox(config, privateDir, template, pid);
    } catch (error) {
      removePrivateDirs(privateDir, config.escalate, config.programs.rm);
      throw error;
    }
  }

  /** `/proc/<template>/ns/<kind>`: a namespace of the template, for a process of ours to enter (bridge.ts). */
  namespace(kind: 'net' | 'user' | 'mnt'): string {
    return `/proc/${this.#templatePid}/ns/${kind}`;
  }

  /** Keeps `bridge` (setup.ts opens it for a `gated` network) and closes it with the sandbox. */
  holdBridge(bridge: BridgeEnds): void {
    this.#bridge = bridge;
  }

  /** The bridge of a `gated` sandbox, once open. */
  get bridge(): BridgeEnds | undefined {
    return this.#bridge;
  }

  /** The network gate, once one answers the bridge; absent, a `gated` sandbox has no way out. */
  get network(): ToolNetwork | undefined {
    return this.#network;
  }

  /** Lets the gate answer: every call from now on gets its environment; it closes with the sandbox. */
  attachNetwork(network: ToolNetwork): void {
    this.#network = network;
  }

  /**
   * The environment of a call: the tools' own, told that the network is off (`none`, or `gated` without its
   * gate), or, `gated`, given the proxy's address over anything the workflow set (the runner's own proxy is
   * out of reach). `networkEnv: false` leaves both out (the gate's own look at the toolchains' settings).
   */
  toolEnv(env: NodeJS.ProcessEnv, networkEnv = true): NodeJS.ProcessEnv {
    if (!networkEnv || this.config.network === 'host') return env;
    if (this.config.network === 'gated' && this.#network) return { ...env, ...this.#network.env };
    return { ...NETWORK_OFF_ENV, ...env };
  }

  /** The command line that runs `shell -c command` in a fresh copy of the template. */
  call(
    shell: string,
    command: string,
    opts: { cwd: string; env: NodeJS.ProcessEnv; networkEnv?: boolean },
  ): SandboxCall {
    return this.exec([shell, '-c', command], opts);
  }

  /**
   * The command line that runs `argv` in a fresh copy of the template, as PID 1 of its own PID namespace:
   * when it ends, or when the process holding the namespace is killed, everything it started goes with it.
   */
  exec(
    argv: readonly string[],
    opts: { cwd: string; env: NodeJS.ProcessEnv; networkEnv?: boolean },
  ): SandboxCall {
    const { programs, uid, gid } = this.config;
    const env = this.toolEnv(opts.env, opts.networkEnv);
    const ns = `/proc/${this.#templatePid}/ns`;
    const rootless = this.config.isolation === 'rootless';
    const creator = templateIdentity(this.config);
    const inside = [
      programs.nsenter,
      // Rootless, the template's namespaces belong to its user namespace: entered first, it lets us in.
      ...(rootless ? [`--user=${ns}/user`, '--preserve-credentials'] : []),
      // In the template's PID namespace: the calls die with it, whatever ends it.
      `--pid=${ns}/pid`,
      `--mount=${ns}/mnt`,
      ...(this.config.network === 'host' ? [] : [`--net=${ns}/net`]),
      '--',
      // The call's user namespace is made by the tools' uid (so root in it is that uid on the host), still
      // holding CAP_SYS_ADMIN: a namespace made with it is not an unprivileged one that AppArmor restricts.
      programs.setpriv,
      `--reuid=${creator.uid}`,
      `--regid=${creator.gid}`,
      // Rootless, setgroups(2) is refused in a user namespace: the tools keep the groups the action's user has.
      rootless ? '--keep-groups' : '--clear-groups',
      '--inh-caps=+sys_admin',
      '--ambient-caps=+sys_admin',
      '--',
      programs.unshare,
      '--user',
      '--map-root-user',
      '--pid',
      '--ipc',
      '--fork',
      '--kill-child',
      '--mount',
      '--mount-proc',
      '--',
      programs.sh,
      '-c',
      CALL,
      'todo-agent-call',
      String(uid),
      String(gid),
      String(LIMITS.processes),
      LIMITS.shm,
      String(this.config.keyctl),
      KEYRING_PL,
      opts.cwd,
      ...argv,
    ];
    // Rootless, every process is the action's own user: spawn needs no identity, and the environment is kept.
    if (rootless) return { argv: inside, env };
    if (this.config.escalate.length === 0) {
      // As root: spawn drops the supplementary groups for us when given an identity.
      return { argv: inside, env, identity: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 } };
    }
    // sudo would reset the environment, and its command line is anyone's to read while the call runs: the
    // tools' environment (an MCP server's secrets among it) goes in a file only this user may read, which perl
    // reads as root, removes and sets exactly. If sudo is killed, the pdeathsig takes the namespace's creator,
    // and so the whole namespace, with it.
    const file = path.join(this.privateDir, `env-${randomUUID()}`);
    const pairs = Object.entries(env).filter(([, value]) => value !== undefined);
    writeFileSync(file, pairs.map(([name, value]) => `${name}=${value}\0`).join(''), {
      mode: 0o600,
      flag: 'wx',
    });
    return {
      argv: [
        ...this.config.escalate,
        programs.perl,
        '-e',
        ENV_FILE_PL,
        file,
        programs.setpriv,
        '--pdeathsig',
        'KILL',
        '--',
        ...inside,
      ],
      env,
    };
  }

  /** Ends the template (its namespace goes once no call uses it) and removes what the tools wrote. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    process.off('exit', this.#onExit);
    this.#network?.close();
    this.#bridge?.close();
    this.#template.stdin.end();
    if (this.config.isolation !== 'sudo') this.#template.kill('SIGKILL');
    removePrivateDirs(this.privateDir, this.config.escalate, this.config.programs.rm);
  }
}

/**
 * The tools' identity as the template's namespaces number it: the one each call's user namespace is made
 * by, and the owner of the private layers. Rootless, the template's user namespace maps the action's user
 * alone, as its uid 0 (without a capability outside it); each call's own user namespace then shows the tools
 * their real uid again.
 */
function templateIdentity(config: SandboxConfig): { uid: number; gid: number } {
  return config.isolation === 'rootless' ? { uid: 0, gid: 0 } : { uid: config.uid, gid: config.gid };
}

/** Starts the process that holds the template namespace; resolves once it is ready. */
async function startTemplate(
  config: SandboxConfig,
  privateDir: string,
): Promise<[ChildProcessWithoutNullStreams, number]> {
  const { programs } = config;
  const owner = templateIdentity(config);
  const argv = [
    ...config.escalate,
    ...(config.escalate.length > 0 ? [programs.setpriv, '--pdeathsig', 'KILL', '--'] : []),
    programs.unshare,
    '--mount',
    '--propagation',
    'private',
    // PID 1 of a namespace that every call joins: killed (close(), the setpriv above), or ending when its
    // stdin closes, it takes every process of the tools with it.
    '--pid',
    '--fork',
    '--kill-child',
    ...(config.network === 'host' ? [] : ['--net']),
    '--',
    programs.sh,
    '-c',
    TEMPLATE,
    'todo-agent-sandbox',
    privateDir,
    config.workspace,
    config.workspaceAccess,
    config.network,
    `${owner.uid}:${owner.gid}`,
    config.idmapped ? String(config.uid) : '',
    LIMITS.temp,
    IDMAP_PL,
    config.home ?? '',
    config.toolCache ?? '',
    config.layerGitDir ? 'layer' : '',
    config.snapshot ?? '',
    ...(config.gits?.length ? [GIT_GUARD, String(config.gits.length), ...config.gits] : ['', '0']),
    String(config.hidden.length),
    ...config.hidden,
    ...(await writeShownFiles(privateDir, config.shown)),
  ];
  const [program, ...args] = argv;
  const template = spawn(program as string, args, {
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const ready = await waitForLine(template, /^ready (\d+)$/m, TEMPLATE_TIMEOUT_MS);
  if ('failed' in ready)
    throw new SandboxError(`building the sandbox failed (${ready.failed})${ready.detail}`);
  const pid = Number(ready[1]);
  template.unref();
  for (const stream of [template.stdin, template.stdout, template.stderr])
    (stream as unknown as { unref?: () => void }).unref?.();
  return [template, pid];
}
