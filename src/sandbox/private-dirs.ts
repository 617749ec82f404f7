// The sandbox's own directory on the host: its /tmp, its /var/tmp and the layer that takes every write to
// HOME (init.ts mounts them). Made when a sandbox opens and removed when it closes, so nothing a tool
// writes outside the workspace outlives the run or reaches the runner's HOME and temp directories.
import { spawnSync } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The staging mount points and layers inside the sandbox's directory; init.ts uses these names. */
const DIRECTORIES = ['tmp', 'var-tmp', 'home', 'home-upper', 'home-work', 'home-layer', 'workspace'];
/** Directories every user may write to, as /tmp and /var/tmp are. */
const SHARED_TEMP = ['tmp', 'var-tmp'];

/**
 * Makes the directory under the host's temp directory (mode 700). The HOME layer takes HOME's owner and mode,
 * since the private HOME shows its root with that layer's attributes.
 */
export async function makePrivateDirs(home: string | undefined): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'todo-agent-sandbox-'));
  try {
    for (const name of DIRECTORIES) await mkdir(path.join(root, name));
    for (const name of SHARED_TEMP) await chmod(path.join(root, name), 0o1777);
    if (home) {
      const owner = await stat(home);
      const upper = path.join(root, 'home-upper');
      // Only root can give it away; otherwise it is already ours, as HOME usually is.
      await chown(upper, owner.uid, owner.gid).catch(() => undefined);
      await chmod(upper, owner.mode & 0o7777);
    }
    return root;
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Removes the directory and everything the tools wrote in it. The kernel and the sandbox's root-run setup
 * leave root-owned entries there, so without root this goes through the same escalation that built it.
 */
export function removePrivateDirs(root: string, escalate: readonly string[], rmProgram: string): void {
  if (escalate.length === 0) {
    rmSync(root, { recursive: true, force: true });
    return;
  }
  const [program, ...args] = escalate;
  spawnSync(program as string, [...args, rmProgram, '-rf', '--', root], {
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
    stdio: 'ignore',
    timeout: 60_000,
  });
}
