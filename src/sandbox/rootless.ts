// The sandbox without root or sudo: built, as bubblewrap builds it, inside an unprivileged user namespace
// where the kernel allows one; and, where it does not, which setting stands in the way and how to lift it.
//
// In the user namespace the action's own user is root (`unshare --user --map-root-user`), with every
// capability over the namespaces it then makes and over the files it owns, and none over the host: that is
// enough for the template's mounts (init.ts). Each call enters the template's user namespace first, since
// its mount and network namespaces belong to it, and runs as uid 0 of a user namespace of its own, without
// capabilities: on the host, every process of it is the action's user.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { SandboxError, type Isolation } from './namespaces.js';

const execFileAsync = promisify(execFile);

/** What the log and the checklist say of a run's isolation; `off` is `sandbox: off`. */
export function isolationName(isolation: Isolation | 'off'): string {
  return {
    root: 'root',
    sudo: 'sudo',
    rootless: 'rootless user namespaces',
    off: 'off',
  }[isolation];
}

/** A setting that keeps this user from making user namespaces, and the command that lifts it. */
export interface UserNamespaceBlocker {
  setting: string;
  value: string;
  fix: string;
}

/**
 * The sysctls that refuse unprivileged user namespaces, each with the value that refuses and the fix:
 * Debian's and older Ubuntu's switch, the per-user limit, and Ubuntu 24.04's AppArmor restriction.
 */
const SETTINGS = [
  { setting: 'kernel.unprivileged_userns_clone', refuses: '0', allows: '1' },
  { setting: 'user.max_user_namespaces', refuses: '0', allows: '15000' },
  { setting: 'kernel.apparmor_restrict_unprivileged_userns', refuses: '1', allows: '0' },
] as const;

/** The first sysctl under `root` (normally /proc/sys) that refuses unprivileged user namespaces, if any. */
export async function userNamespaceBlocker(root = '/proc/sys'): Promise<UserNamespaceBlocker | undefined> {
  for (const { setting, refuses, allows } of SETTINGS) {
    const value = await readFile(path.join(root, ...setting.split('.')), 'utf8').then(
      (text) => text.trim(),
      () => undefined, // this kernel has no such setting
    );
    if (value === refuses) return { setting, value, fix: `sysctl -w ${setting}=${allows}` };
  }
  return undefined;
}

/** The error that names the three ways out: sudo (or root), the sysctl, or `sandbox: off`. */
export class NoIsolationError extends SandboxError {
  /** The sysctl command that would allow user namespaces here. */
  readonly fix: string;
  constructor(message: string, fix: string) {
    super(message);
    this.fix = fix;
  }
}

/** The sentence that ends the run's error when no sandbox could be built. */
export function waysOut(fix = GENERIC_FIX): string {
  return (
    "run it as root or give the runner's user passwordless `sudo`, " +
    `allow unprivileged user namespaces (\`${fix}\`), or set \`sandbox: off\` to run without one`
  );
}

const GENERIC_FIX = 'sysctl -w kernel.apparmor_restrict_unprivileged_userns=0';

/**
 * The probe's mount: a tmpfs over `/` of the probe's own mount namespace, the one directory that is always
 * there, always a directory and, in that namespace, the probe's alone (`/mnt` may be missing, a file or a
 * symbolic link on some runners, and a failure there is not the kernel's refusal). The namespace goes with
 * the probe, and the mount with it.
 */
export const PROBE_MOUNT = 'mount -t tmpfs tmpfs /';

/**
 * The prefix that makes the template's process root of a user namespace of its own. Tries one first (with a
 * mount namespace and a mount in it, which is what the kernel or AppArmor refuses); throws NoIsolationError
 * when the kernel will not, saying why sudo did not serve (`noSudo`) and which setting refuses.
 */
export async function rootlessEscalation(
  programs: { unshare: string; sh: string },
  noSudo: string,
  sysctlRoot?: string,
): Promise<string[]> {
  const prefix = [programs.unshare, '--user', '--map-root-user', '--'];
  try {
    await execFileAsync(
      programs.unshare,
      ['--user', '--map-root-user', '--mount', '--', programs.sh, '-c', PROBE_MOUNT],
      { timeout: 10_000, env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' } },
    );
    return prefix;
  } catch (error) {
    const blocker = await userNamespaceBlocker(sysctlRoot);
    const said = String((error as { stderr?: unknown }).stderr ?? '')
      .trim()
      .split('\n')
      .at(-1);
    const why = blocker
      ? `${blocker.setting} is ${blocker.value}`
      : said || (error as Error).message.split('\n')[0];
    throw new NoIsolationError(
      `the action does not run as root, ${noSudo}, and the kernel does not let it make user namespaces (${why})`,
      blocker?.fix ?? GENERIC_FIX,
    );
  }
}
