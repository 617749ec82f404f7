// Finding out whether and how the sandbox can be built here, building it, and checking that it works.
import { CLI_SETTINGS, type SettingNames } from './limits.js';
import { execFile } from 'node:child_process';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Bridge } from './bridge.js';
import type { ShownFile } from './private-dirs.js';
import { rootlessEscalation } from './rootless.js';
import { runCommand } from './commands/run-command.js';
import {
  Sandbox,
  SandboxError,
  type Isolation,
  type SandboxConfig,
  type SandboxNetwork,
  type WorkspaceAccess,
} from './namespaces.js';

const execFileAsync = promisify(execFile);

/** Where programs are looked up: the system's directories only, never the tools' PATH. */
const SYSTEM_DIRS = ['/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** Credential files and directories in a home directory that tools never need to read. */
const HOME_CREDENTIALS = [
  '.docker',
  '.git-credentials',
  '.config/git/credentials',
  '.netrc',
  '.ssh',
  '.gnupg',
  '.npmrc',
  '.yarnrc.yml',
  '.pypirc',
  '.gem/credentials',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.m2/settings.xml',
  '.gradle/gradle.properties',
  '.aws',
  '.azure',
  '.kube',
  '.config/gh',
  '.config/hub',
  '.config/gcloud',
  '.terraform.d/credentials.tfrc.json',
  '.vault-token',
];

/**
 * Sockets through which a process could have something started outside the sandbox (systemd, D-Bus, a user's
 * systemd and agents under /run/user) or get root (container daemons, snapd). Hiding them is what stops it:
 * a read-only mount does not stop connect().
 */
const SOCKETS = [
  '/run/user',
  '/run/dbus',
  '/run/systemd/private',
  '/run/snapd.socket',
  '/run/snapd-snap.socket',
  '/var/run/docker.sock',
  '/run/docker.sock',
  '/run/containerd/containerd.sock',
  '/run/podman/podman.sock',
  '/run/buildkit/buildkitd.sock',
];

/** Who the tools are when the workspace belongs to root: a uid and gid no account uses, never 0. */
export const UNPRIVILEGED_ID = 64_000;

/** The tool cache of hosted runners, where RUNNER_TOOL_CACHE does not say otherwise. */
const HOSTED_TOOL_CACHE = '/opt/hostedtoolcache';

/** `keyctl(2)`'s number on the architectures GitHub's runners have. */
const KEYCTL: Partial<Record<NodeJS.Architecture, number>> = { x64: 250, arm64: 219, arm: 311, ia32: 288 };

export interface SandboxRequest {
  workspace: string;
  /** `gated`: the tools' network goes through the bridge (bridge.ts) to the network gate alone. */
  network: SandboxNetwork;
  /**
   * `gated` only: ports of the runner's loopback (a job's database service) the tools reach at the same port
   * on their own loopback, through the gate, which decides on each connection.
   */
  forwardedPorts?: readonly number[];
  /** Further paths to hide (the runner's files, for the action). */
  hidden?: readonly string[];
  /** Files shown read-only in place of what is at their path (the runner's settings, their secrets left out). */
  shown?: readonly ShownFile[];
  /** HOME of the tools (default: this process's): shown read-only, with a private layer for their writes. */
  home?: string;
  /** `read-only` for runs that must not change the workspace (plans); default `read-write`. */
  workspaceAccess?: WorkspaceAccess;
  /** The runner's tool cache (RUNNER_TOOL_CACHE); default /opt/hostedtoolcache where it exists. */
  toolCache?: string;
  /** Told, one line each, where a path to hide meets the tool cache and what is hidden instead (the log). */
  warn?: (message: string) => void;
  /**
   * Give the workspace's `.git`, when it is a directory, a private writable layer (init.ts): the tools'
   * git never writes the real one, which our own git hands the work back to afterwards.
   */
  layerGitDir?: boolean;
  /** How the person running it names the network's settings (the CLI's flags); default: the workflow's inputs. */
  names?: SettingNames;
}

export { CLI_SETTINGS, SandboxError, type SandboxNetwork, type WorkspaceAccess };

const isFileAt = (file: string): Promise<boolean> =>
  stat(file).then(
    (s) => s.isFile(),
    () => false,
  );

async function findSystemProgram(name: string): Promise<string> {
  for (const dir of SYSTEM_DIRS) {
    const candidate = path.join(dir, name);
    if (await isFileAt(candidate)) return candidate;
  }
  throw new SandboxError(`${name} (util-linux) is not installed`);
}

/**
 * How this process becomes root to build the namespaces: itself, `sudo -n`, or, with neither, root of an
 * unprivileged user namespace (rootless.ts).
 */
async function escalation(programs: {
  unshare: string;
  sh: string;
}): Promise<Pick<SandboxConfig, 'isolation' | 'escalate'>> {
  if (process.getuid?.() === 0) return { isolation: 'root', escalate: [] };
  const sudo = await passwordlessSudo();
  if ('path' in sudo) return { isolation: 'sudo', escalate: [sudo.path, '-n', '--'] };
  return { isolation: 'rootless', escalate: await rootlessEscalation(programs, sudo.whyNot) };
}

/** sudo's path when `sudo -n` works here, or why it does not. */
async function passwordlessSudo(): Promise<{ path: string } | { whyNot: string }> {
  const sudo = await findSystemProgram('sudo').catch(() => undefined);
  if (!sudo) return { whyNot: 'sudo is not installed' };
  try {
    await execFileAsync(sudo, ['-n', 'true'], { timeout: 10_000 });
    return { path: sudo };
  } catch {
    return { whyNot: '`sudo -n` needs a password' };
  }
}

/**
 * A directory to lay a private layer over (HOME, the tool cache): an existing absolute directory other than
 * `/`, and not inside the workspace (which is writable anyway). An overlay's options cannot carry `,`, `:`
 * or `\`.
 */
async function layerable(dir: string, workspace: string, what: string): Promise<string | undefined> {
  if (!path.isAbsolute(dir) || dir === '/' || isWithin(dir, workspace)) return undefined;
  if (/[,:\\]/.test(dir)) throw new SandboxError(`${what} (${dir}) holds a character an overlay cannot take`);
  const isDirectory = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  return isDirectory ? dir : undefined;
}

function samePath(one: string, other: string): boolean {
  return path.relative(one, other) === '';
}

/** `inner` is `outer` or inside it: hiding `outer` would hide `inner` too. */
function isWithin(inner: string, outer: string): boolean {
  const relative = path.relative(outer, inner);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Who the tools are, never the host's root. As root or through sudo: the workspace's owner, or, when that is
 * root, an unprivileged uid the workspace is shown to as its own (an idmapped mount). Rootless: the action's
 * own user, the only one an unprivileged user namespace can map (and the one that can write the workspace).
 */
function toolsIdentity(
  isolation: Isolation,
  owner: { uid: number; gid: number },
): Pick<SandboxConfig, 'uid' | 'gid' | 'idmapped'> {
  if (isolation === 'rootless')
    return { uid: process.getuid?.() ?? owner.uid, gid: process.getgid?.() ?? owner.gid, idmapped: false };
  const idmapped = owner.uid === 0;
  return {
    uid: idmapped ? UNPRIVILEGED_ID : owner.uid,
    gid: idmapped ? UNPRIVILEGED_ID : owner.gid,
    idmapped,
  };
}

/** The settings for this machine; throws SandboxError saying what is missing. */
export async function sandboxConfig(request: SandboxRequest): Promise<SandboxConfig> {
  if (process.platform !== 'linux') throw new SandboxError(`${process.platform} has no Linux namespaces`);
  const keyctl = KEYCTL[process.arch];
  if (keyctl === undefined)
    throw new SandboxError(`the sandbox does not know ${process.arch}'s system calls`);
  // prlimit is not passed as a path: the scripts find it (and perl) in the system's directories.
  const [sh, perl, unshare, nsenter, setpriv, rm] = await Promise.all(
    ['sh', 'perl', 'unshare', 'nsenter', 'setpriv', 'rm', 'prlimit'].map(findSystemProgram),
  );
  const owner = await lstat(request.workspace);
  const home = request.home ?? homedir();
  const shownHome = await layerable(home, request.workspace, 'HOME');
  const cache = await layerable(request.toolCache ?? HOSTED_TOOL_CACHE, request.workspace, 'The tool cache');
  const toHide = [
    ...(request.hidden ?? []),
    ...HOME_CREDENTIALS.map((name) => path.join(home, name)),
    ...SOCKETS,
  ].filter((candidate) => path.isAbsolute(candidate));
  const toolCache = cache && shownToolCache(cache, toHide, request.workspace, request.warn);
  const { isolation, escalate } = await escalation({ unshare: unshare!, sh: sh! });
  const tools = toolsIdentity(isolation, owner);
  const gitDir = await lstat(path.join(request.workspace, '.git')).catch(() => undefined);
  return {
    isolation,
    escalate,
    programs: { sh: sh!, perl: perl!, unshare: unshare!, nsenter: nsenter!, setpriv: setpriv!, rm: rm! },
    ...tools,
    keyctl,
    network: request.network,
    ...(request.names ? { names: request.names } : {}),
    workspace: request.workspace,
    workspaceAccess: request.workspaceAccess ?? 'read-write',
    ...(shownHome ? { home: shownHome } : {}),
    ...(toolCache && toolCache !== shownHome ? { toolCache } : {}),
    ...(request.layerGitDir && gitDir?.isDirectory() ? { layerGitDir: true } : {}),
    hidden: await coverable(toHide, [request.workspace, ...(toolCache ? [toolCache] : [])], request.warn),
    shown: (request.shown ?? []).filter(
      (file) => !file.ifHidden || toHide.some((hidden) => isWithin(path.resolve(file.path), hidden)),
    ),
  };
}

/**
 * The tool cache to show, given the paths to hide: none when it is one of them (hiding wins: it may hold
 * what a setup step left there, and the tools then do without it); itself when a path to hide holds it
 * (`coverable` then covers everything there but the way down to it). Each case is a warning, but for a path
 * that holds the workspace too, as a self-hosted runner's folder holds `_work/_tool` and `_work/<repo>`:
 * that one is always partly in sight.
 */
function shownToolCache(
  toolCache: string,
  toHide: readonly string[],
  workspace: string,
  warn: SandboxRequest['warn'],
): string | undefined {
  if (toHide.some((hidden) => samePath(hidden, toolCache))) {
    warn?.(`The tool cache ${toolCache} is a path the sandbox hides: the tools do without it.`);
    return undefined;
  }
  const holders = toHide.filter((hidden) => isWithin(toolCache, hidden) && !isWithin(workspace, hidden));
  for (const hidden of holders)
    warn?.(
      `${hidden}, a path the sandbox hides, holds the tool cache ${toolCache}: everything in it is hidden ` +
        'but the way down to the tool cache, which the tools keep.',
    );
  return toolCache;
}

/**
 * The paths to cover, given the ones to hide and the ones to `keep` in sight (the workspace, the tool
 * cache). A folder that holds one cannot be covered whole (a self-hosted runner's install folder holds
 * `_work`, and with it `.credentials` and its RSA key, and `_work` holds the workspace and the tool cache
 * `_tool`): what stands beside the way down to it is covered instead, at every level of the way. What is
 * kept is never covered.
 */
async function coverable(
  paths: readonly string[],
  keep: readonly string[],
  warn: SandboxRequest['warn'],
): Promise<string[]> {
  const covered: string[] = [];
  for (const hidden of paths) covered.push(...(await coverAllBut(path.resolve(hidden), keep, warn)));
  return [...new Set(covered)];
}

/**
 * `hidden` itself, or, where it holds paths of `keep`, what stands in it beside the way down to each; a
 * folder on the way that this process may not list is a warning (what is in it stays in sight).
 */
async function coverAllBut(
  hidden: string,
  keep: readonly string[],
  warn: SandboxRequest['warn'],
): Promise<string[]> {
  const held = keep.filter((kept) => isWithin(kept, hidden));
  if (held.length === 0) return [hidden];
  if (held.some((kept) => samePath(kept, hidden))) return [];
  const ways = new Set(held.map((kept) => path.relative(hidden, kept).split(path.sep)[0]));
  const covered: string[] = [];
  const names = await readdir(hidden).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT')
      warn?.(
        `${hidden}, a path the sandbox hides, cannot be listed (${error.code}): nothing in it is hidden.`,
      );
    return [] as string[];
  });
  for (const name of names) {
    const entry = path.join(hidden, name);
    covered.push(...(ways.has(name) ? await coverAllBut(entry, held, warn) : [entry]));
  }
  return covered;
}

/**
 * Builds the sandbox (with its bridge when the network is `gated`: `sandbox.bridge` says where the gate is
 * to answer) and runs `true` in it; throws SandboxError with the reason when it cannot.
 */
export async function openSandbox(request: SandboxRequest): Promise<Sandbox> {
  const sandbox = await Sandbox.open(await sandboxConfig(request));
  if (request.network === 'gated') {
    try {
      sandbox.holdBridge(await Bridge.open(sandbox, request.forwardedPorts ?? []));
    } catch (error) {
      sandbox.close();
      throw error;
    }
  }
  const check = await runCommand('true', {
    cwd: request.workspace,
    env: { PATH: '/usr/bin:/bin' },
    timeoutMs: 15_000,
    sandbox,
  }).catch((error: unknown) => ({ exitCode: -1, output: String(error) }));
  if (check.exitCode !== 0) {
    sandbox.close();
    throw new SandboxError(`a command could not run in the sandbox: ${check.output.trim().slice(0, 300)}`);
  }
  return sandbox;
}

/**
 * The git programs an MCP server could start, resolved (its PATH's and the system's, and the one in git's exec
 * path, where git finds the git its children run): the first, the one the guard runs. None outside the
 * workspace: no guard.
 */
async function gitPrograms(workspace: string): Promise<string[]> {
  const dirs = [...(process.env.PATH ?? '').split(':'), ...SYSTEM_DIRS].filter((dir) => path.isAbsolute(dir));
  const found = async (file: string) => ((await isFileAt(file)) ? await realpath(file) : undefined);
  const gits: string[] = [];
  for (const dir of dirs) {
    const git = await found(path.join(dir, 'git'));
    if (git && !isWithin(git, workspace) && !gits.includes(git)) gits.push(git);
  }
  if (gits.length === 0) return [];
  const execPath = await execFileAsync(gits[0]!, ['--exec-path'], { env: { PATH: SYSTEM_DIRS.join(':') } })
    .then(({ stdout }) => stdout.trim())
    .catch(() => '');
  const child = execPath && (await found(path.join(execPath, 'git')));
  if (child && !isWithin(child, workspace) && !gits.includes(child)) gits.push(child);
  return gits;
}

/**
 * A sandbox of its own beside the tools' (an MCP server, the explore helpers, the toolchains' probes): built
 * like `parent`, with HOME, the tool cache, the workspace's `.git` layer, /tmp and /var/tmp of its own, so
 * that nothing the tools write there reaches it and nothing it writes there reaches them; the trusted
 * `snapshot` shown read-only at SNAPSHOT_MOUNT, and then its git held to the workspace's own repository
 * (init.ts GIT_GUARD); its network answered by `parent`'s gate, with the same list. `hidden` (the network
 * gate's question to the toolchains, src/network/discover.ts): the workspace hidden too, and no network.
 */
export async function openSibling(
  parent: Sandbox,
  snapshot?: string,
  /** `read-only`: no command changes the workspace (the explore helpers); `hidden`: none sees it (the probes). */
  workspace?: WorkspaceAccess | 'hidden',
): Promise<Sandbox> {
  const gits = snapshot ? await gitPrograms(parent.config.workspace) : [];
  const { layerGitDir, ...config } = parent.config;
  const view: Partial<SandboxConfig> =
    workspace === 'hidden'
      ? { workspaceAccess: 'read-only', network: 'none', hidden: [...config.hidden, config.workspace] }
      : { ...(workspace ? { workspaceAccess: workspace } : {}), ...(layerGitDir ? { layerGitDir } : {}) };
  const sandbox = await Sandbox.open(
    { ...config, ...(snapshot ? { snapshot } : {}), ...(gits.length > 0 ? { gits } : {}), ...view },
    parent.privateDir,
  );
  try {
    if (sandbox.config.network === 'gated') {
      sandbox.holdBridge(await Bridge.open(sandbox, parent.bridge?.forwards ?? []));
      await parent.network?.serve?.(sandbox);
    }
    return sandbox;
  } catch (error) {
    sandbox.close();
    throw error;
  }
}
