// The sandbox's own directory on the host: the staging points of its views and the layers that take every
// write to HOME, to the tool cache and to the workspace's `.git` (init.ts mounts them; its /tmp and /var/tmp
// are tmpfs). Made when a
// sandbox opens and removed when it closes, so nothing a tool writes outside the workspace outlives the run
// or reaches the runner's HOME, tool cache and temp directories.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
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
  'shown',
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

/** A file the tools see read-only at `path` in place of what is there (the runner's settings, filtered). */
export interface ShownFile {
  path: string;
  text: string;
  /** Shown only where the sandbox would hide it (a CA file in RUNNER_TEMP); elsewhere the tools see it anyway. */
  ifHidden?: true;
}

/** Writes each shown file into the directory's `shown`; init.ts's arguments for them (`K (TARGET NAME)…`). */
export async function writeShownFiles(root: string, shown: readonly ShownFile[] = []): Promise<string[]> {
  const args = [String(shown.length)];
  for (const [i, file] of shown.entries()) {
    await writeFile(path.join(root, 'shown', String(i)), file.text, { mode: 0o644, flag: 'wx' });
    args.push(file.path, String(i));
  }
  return args;
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

/**
 * The part of init.ts's TEMPLATE that shows the files `writeShownFiles` wrote, once every other view is in
 * place: its arguments `K (TARGET NAME)…`, each file NAME reached at /tmp/.todo-agent-shown (the shown
 * directory, bound there before the host's /tmp was covered) and gone from there once shown.
 */
export const SHOW_FILES = String.raw`
# TARGET NAME: the file NAME of PRIVATE/shown, shown read-only at TARGET in place of what is there (the
# runner's settings with their secrets left out). A TARGET inside a hidden directory gets its mount point
# made there.
show_file() {
  if [ ! -e "$1" ]; then
    dir=$(dirname "$1")
    while [ ! -d "$dir" ]; do dir=$(dirname "$dir"); done
    hidden_dir=
    if [ "$(findmnt -n -o SOURCE --mountpoint "$dir" 2>/dev/null)" = todo-agent-hidden ]; then
      hidden_dir=$dir
      mount -o remount,bind,rw,nosuid,nodev,noexec "$dir"
    fi
    mkdir -p "$(dirname "$1")" && : > "$1" || fail "cannot show $1"
    if [ -n "$hidden_dir" ]; then mount -o remount,bind,ro,nosuid,nodev,noexec "$hidden_dir"; fi
  fi
  mount --bind "/tmp/.todo-agent-shown/$2" "$1" && mount -o remount,bind,ro "$1" || fail "cannot show $1"
}
n=$1; shift
while [ "$n" -gt 0 ]; do
  show_file "$1" "$2"
  n=$((n - 1)); shift 2
done
umount -l /tmp/.todo-agent-shown
rmdir /tmp/.todo-agent-shown
`;
