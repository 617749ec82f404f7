// Where the kernel refuses user namespaces to a user without root or sudo: which setting refuses, and the
// message that names the three ways out. A stand-in `unshare` fails as the kernel makes the real one fail.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  isolationName,
  NoIsolationError,
  PROBE_MOUNT,
  rootlessEscalation,
  userNamespaceBlocker,
  waysOut,
} from '../../src/sandbox/rootless.js';

const execFileAsync = promisify(execFile);

const root = await mkdtemp(path.join(tmpdir(), 'todo-agent-rootless-'));
afterAll(() => rm(root, { recursive: true, force: true }));

/** A /proc/sys with these settings (`kernel.x` → kernel/x). */
async function sysctls(name: string, settings: Record<string, string>): Promise<string> {
  const dir = path.join(root, name);
  for (const [setting, value] of Object.entries(settings)) {
    const file = path.join(dir, ...setting.split('.'));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, `${value}\n`);
  }
  await mkdir(dir, { recursive: true });
  return dir;
}

/** An `unshare` that fails as util-linux's does when the kernel (or AppArmor) refuses the user namespace. */
async function refusingUnshare(): Promise<string> {
  const file = path.join(root, 'unshare');
  await writeFile(
    file,
    '#!/bin/sh\necho "unshare: write failed /proc/self/uid_map: Operation not permitted" >&2\nexit 1\n',
    {
      mode: 0o755,
    },
  );
  return file;
}

describe('the sandbox without root or sudo', () => {
  it("reads which sysctl refuses user namespaces: Ubuntu 24.04's AppArmor restriction, the switch, the limit", async () => {
    const ubuntu = await sysctls('ubuntu', {
      'kernel.apparmor_restrict_unprivileged_userns': '1',
      'user.max_user_namespaces': '63000',
    });
    expect(await userNamespaceBlocker(ubuntu)).toEqual({
      setting: 'kernel.apparmor_restrict_unprivileged_userns',
      value: '1',
      fix: 'sysctl -w kernel.apparmor_restrict_unprivileged_userns=0',
    });
    const debian = await sysctls('debian', { 'kernel.unprivileged_userns_clone': '0' });
    expect((await userNamespaceBlocker(debian))?.fix).toBe('sysctl -w kernel.unprivileged_userns_clone=1');
    const limited = await sysctls('limited', { 'user.max_user_namespaces': '0' });
    expect((await userNamespaceBlocker(limited))?.setting).toBe('user.max_user_namespaces');
    const open = await sysctls('open', {
      'kernel.apparmor_restrict_unprivileged_userns': '0',
      'kernel.unprivileged_userns_clone': '1',
      'user.max_user_namespaces': '63000',
    });
    expect(await userNamespaceBlocker(open)).toBeUndefined();
    expect(await userNamespaceBlocker(path.join(root, 'no-such-proc'))).toBeUndefined();
  });

  it('names the setting that refuses, and the three ways out: sudo, the sysctl, `sandbox: off`', async () => {
    const ubuntu = await sysctls('ubuntu-refusing', { 'kernel.apparmor_restrict_unprivileged_userns': '1' });
    const error = await rootlessEscalation(
      { unshare: await refusingUnshare(), sh: '/bin/sh' },
      'sudo is not installed',
      ubuntu,
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NoIsolationError);
    const { message, fix } = error as NoIsolationError;
    expect(message).toBe(
      'the action does not run as root, sudo is not installed, and the kernel does not let it make user ' +
        'namespaces (kernel.apparmor_restrict_unprivileged_userns is 1)',
    );
    expect(waysOut(fix)).toBe(
      "run it as root or give the runner's user passwordless `sudo`, allow unprivileged user namespaces " +
        '(`sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`), or set `sandbox: off` to run without one',
    );
  });

  it("says what unshare said when no sysctl explains the refusal (a container's seccomp filter)", async () => {
    const error = (await rootlessEscalation(
      { unshare: await refusingUnshare(), sh: '/bin/sh' },
      '`sudo -n` needs a password',
      await sysctls('plain', {}),
    ).catch((caught: unknown) => caught)) as NoIsolationError;
    expect(error.message).toMatch(
      /`sudo -n` needs a password, and the kernel does not let it make user namespaces \(unshare: write failed \/proc\/self\/uid_map: Operation not permitted\)$/,
    );
    expect(waysOut(error.fix)).toContain('`sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`');
  });

  it('is used where the kernel allows it, with the real unshare, as root of a user namespace', async () => {
    // Here (and on CI's Debian) unprivileged user namespaces are allowed.
    expect(await userNamespaceBlocker()).toBeUndefined();
    expect(
      await rootlessEscalation({ unshare: '/usr/bin/unshare', sh: '/bin/sh' }, 'sudo is not installed'),
    ).toEqual(['/usr/bin/unshare', '--user', '--map-root-user', '--']);
  });

  it('probes with a mount of its own that needs no /mnt (here a plain file, as on some runners)', async () => {
    // A stand-in `sh` that, inside the probe's namespaces, moves into a root like the host's whose /mnt is a
    // plain file, then runs the real sh: a probe mounting on /mnt fails there, the kernel allowing it.
    const dir = path.join(root, 'no-mnt');
    await mkdir(path.join(dir, 'root'), { recursive: true });
    const sh = path.join(dir, 'sh');
    await writeFile(
      sh,
      [
        '#!/bin/sh',
        'set -eu',
        'PATH=/usr/sbin:/usr/bin:/sbin:/bin',
        'new=$(dirname "$0")/root',
        'mount -t tmpfs tmpfs "$new"',
        'for entry in /*; do',
        '  name=${entry#/}',
        '  case $name in mnt|proc|sys|dev|tmp|run) continue ;; esac',
        '  if [ -L "$entry" ]; then cp -P "$entry" "$new/$name"',
        '  elif [ -d "$entry" ]; then mkdir "$new/$name"; mount --rbind "$entry" "$new/$name"; fi',
        'done',
        ': > "$new/mnt"',
        'exec chroot "$new" /bin/sh "$@"',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const inProbe = (command: string) =>
      execFileAsync('/usr/bin/unshare', ['--user', '--map-root-user', '--mount', '--', sh, '-c', command]);
    // The stand-in does make /mnt unusable: the old probe's mount fails in it.
    await expect(inProbe('test -f /mnt && mount -t tmpfs tmpfs /mnt')).rejects.toMatchObject({
      stderr: expect.stringMatching(/mnt: mount point is not a directory/),
    });
    expect(PROBE_MOUNT).not.toContain('/mnt');
    expect(await rootlessEscalation({ unshare: '/usr/bin/unshare', sh }, 'sudo is not installed')).toEqual([
      '/usr/bin/unshare',
      '--user',
      '--map-root-user',
      '--',
    ]);
  });

  it('says which isolation a run has', () => {
    expect(['root', 'sudo', 'rootless', 'off'].map((name) => isolationName(name as 'off'))).toEqual([
      'root',
      'sudo',
      'rootless user namespaces',
      'off',
    ]);
  });
});
