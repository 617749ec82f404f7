// How a local MCP server is launched so that no code from the work tree runs as it: its command and every
// argument that names a file resolve in the trusted snapshot (src/git/snapshot.ts), shown to it read-only; Python
// finds modules in the snapshot and never in its working directory; npx resolves packages with the runner's
// and the snapshot's settings (its project is the snapshot, not the work tree); the server's git runs
// nothing a repository configures. Its working directory stays the workspace, so a directory argument (`.`,
// `${WORKSPACE}`, `src`) still names the live tree.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { lockdownEnv } from '../git/git-process.js';
import type { LocalServerConfig } from '../settings/mcp-servers.js';

/** The variable `args` may use for the workspace's path. */
export const WORKSPACE_VARIABLE = '${WORKSPACE}';

export interface LocalLaunch {
  argv: string[];
  cwd: string;
  /** Added to the server's environment (over its configured `env`). */
  env: Record<string, string>;
}

export interface SnapshotView {
  /** The snapshot's directory on this host (to see what it holds). */
  host: string;
  /** Where the server sees it (its sandbox's SNAPSHOT_MOUNT, or `host` without a sandbox). */
  seen: string;
}

export function localLaunch(
  server: Pick<LocalServerConfig, 'command' | 'args' | 'cwd'>,
  workspace: string,
  snapshot: SnapshotView | undefined,
): LocalLaunch {
  const fill = (arg: string) => arg.replaceAll(WORKSPACE_VARIABLE, workspace);
  const cwd = server.cwd ? path.resolve(workspace, fill(server.cwd)) : workspace;
  const args = server.args.map(fill);
  if (!snapshot) return { argv: [server.command, ...args], cwd, env: {} };
  const inSnapshot = (arg: string, command: boolean): string => {
    if (arg.startsWith('-') || (!command && !arg.includes('/') && !arg.includes('.'))) return arg;
    if (command && !arg.includes('/')) return arg; // looked up in PATH, as the runner has it
    const full = path.resolve(cwd, arg);
    const relative = path.relative(workspace, full);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return arg;
    // A file of the snapshot, or one only the work tree has (it then names nothing, and fails to start).
    const names = (dir: string) => isFile(path.join(dir, relative));
    return command || names(snapshot.host) || names(workspace) ? path.join(snapshot.seen, relative) : arg;
  };
  const command = inSnapshot(server.command, true);
  const npx = path.basename(command) === 'npx' ? [`--prefix=${snapshot.seen}`] : [];
  return {
    argv: [command, ...npx, ...args.map((arg) => inSnapshot(arg, false))],
    cwd,
    env: {
      ...lockdownEnv(),
      // `python -m module` and imports find the snapshot's modules, never the working directory's.
      PYTHONSAFEPATH: '1',
      PYTHONPATH: snapshot.seen,
    },
  };
}

function isFile(file: string): boolean {
  return existsSync(file) && statSync(file).isFile();
}
