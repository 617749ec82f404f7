// The sandbox's own directory on the host: the staging points of its views and the layers that take every
// write to HOME, to the tool cache and to the workspace's `.git` (init.ts mounts them; its /tmp and /var/tmp
// are tmpfs). Made when a
// sandbox opens and removed when it closes, so nothing a tool writes outside the workspace outlives the run
// or reaches the runner's HOME, tool cache and temp directories.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The staging mount points and layers inside the sandbox's directory; init.ts uses these names. */
const LAYERED = ['home', 'tools', 'git'];
const DIRECTORIES = [
  'tmp',
  'var-tmp',
  'workspace',
  'tools-lower',
  ...LAYERED.flatMap((name) => [name, `${name}-upper`, `${name}-work`, `${name}-layer`]),
];

/**
 * Makes the directory (mode 700) under the host's temp directory, or `within` another sandbox's (an MCP
 * server's, in the tools'): removing that one removes it too, as the post step does after a kill, knowing
 * only the tools' sandbox. init.ts gives the layers their owner.
 */
export async function makePrivateDirs(within?: string): Promise<string> {
  const root = await mkdtemp(path.join(within ?? tmpdir(), 'todo-agent-sandbox-'));
  try {
    for (const name of DIRECTORIES) await mkdir(path.join(root, name));
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
