// Finding out whether and how the sandbox can be built here, building it, and checking that it works.
import { execFile } from 'node:child_process';
import { lstat, readdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { rootlessEscalation } from './rootless.js';
import { runCommand } from './run-command.js';
import {
  Sandbox,
  SandboxError,
  type Isolation,
  type SandboxConfig,
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
  network: 'host' | 'none';
  /** Further paths to hide (the runner's files, for the action). */
  hidden?: readonly string[];
  /** HOME of the tools (default: this process's): shown read-only, with a private layer for their writes. */
  home?: string;
  /** `read-only` for runs that must not change the workspace (plans); default `read-write`. */
  workspaceAccess?: WorkspaceAccess;
  /** The runner's tool cache (RUNNER_TOOL_CACHE); default /opt/hostedtoolcache where it exists. */
  toolCache?: string;
}

export { SandboxError, type WorkspaceAccess };

async function findSystemProgram(name: string): Promise<string> {
  for (const dir of SYSTEM_DIRS) {
    const candidate = path.join(dir, name);
    if (
      await stat(candidate).then(
        (s) => s.isFile(),
        () => false,
      )
    )
      return candidate;
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
  // prlimit and perl are not passed as paths: the scripts find them in the system's directories.
  const [sh, env, unshare, nsenter, setpriv, rm] = await Promise.all(
    ['sh', 'env', 'unshare', 'nsenter', 'setpriv', 'rm', 'prlimit', 'perl'].map(findSystemProgram),
  );
  const owner = await lstat(request.workspace);
  const home = request.home ?? homedir();
  const shownHome = await layerable(home, request.workspace, 'HOME');
  const toolCache = await layerable(
    request.toolCache ?? HOSTED_TOOL_CACHE,
    request.workspace,
    'The tool cache',
  );
  const { isolation, escalate } = await escalation({ unshare: unshare!, sh: sh! });
  const tools = toolsIdentity(isolation, owner);
  return {
    isolation,
    escalate,
    programs: { sh: sh!, env: env!, unshare: unshare!, nsenter: nsenter!, setpriv: setpriv!, rm: rm! },
    ...tools,
    keyctl,
    network: request.network,
    workspace: request.workspace,
    workspaceAccess: request.workspaceAccess ?? 'read-write',
    ...(shownHome ? { home: shownHome } : {}),
    ...(toolCache && toolCache !== shownHome ? { toolCache } : {}),
    hidden: (
      await coverable(
        [...(request.hidden ?? []), ...HOME_CREDENTIALS.map((name) => path.join(home, name)), ...SOCKETS],
        request.workspace,
      )
    ).filter((hidden) => !toolCache || !isWithin(toolCache, hidden)),
  };
}

/**
 * The paths to cover, given the ones to hide. A folder that holds the workspace cannot be covered whole (a
 * self-hosted runner's install folder holds `_work`, and with it `.credentials` and its RSA key): what
 * stands beside the way down to the workspace is covered instead, one level deep. The workspace itself is
 * never covered.
 */
async function coverable(paths: readonly string[], workspace: string): Promise<string[]> {
  const covered: string[] = [];
  for (const hidden of paths.filter((candidate) => path.isAbsolute(candidate))) {
    if (!isWithin(workspace, hidden)) {
      covered.push(hidden);
      continue;
    }
    const way = path.relative(hidden, workspace).split(path.sep)[0];
    if (!way) continue;
    const beside = await readdir(hidden).catch(() => [] as string[]);
    covered.push(...beside.filter((name) => name !== way).map((name) => path.join(hidden, name)));
  }
  return [...new Set(covered)];
}

/** Builds the sandbox and runs `true` in it; throws SandboxError with the reason when it cannot. */
export async function openSandbox(request: SandboxRequest): Promise<Sandbox> {
  const sandbox = await Sandbox.open(await sandboxConfig(request));
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
