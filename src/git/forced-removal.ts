// Removing and reading what the model made in the workspace, whatever modes it gave it: a directory made
// unreadable or unwritable (`chmod 000`) must never stop the clean-up of a git directory, nor hide a nested
// repository from it. Only directories are opened up (a mode given back to what this user owns; root needs
// none), never followed through a link; what still resists is removed through the sandbox's escalation
// where there is one, else renamed aside so that git no longer finds it by its name, and always reported.
import { execFile } from 'node:child_process';
import { chmod, lstat, readdir, rename, rm } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import path from 'node:path';

/** What could not be removed or read, as the log and the run record say it (relative to the workspace). */
export interface Resisted {
  /** Entries that stayed; `asideAs` when one was renamed out of git's way instead. */
  left: Array<{ path: string; asideAs?: string }>;
  /** Directories that could not be read, so whatever they hold was not checked. */
  unread: string[];
}

export interface ForcedRemovalOptions {
  /** Runs a program as root (`sudo -n --`), for what this user cannot open up; absent where there is none. */
  escalate?: readonly string[];
  /** The workspace, to name entries relative to it. */
  root: string;
}

/** This process's effective uid (root may open up anything; anyone else what it owns). */
const myUid = (): number => process.geteuid?.() ?? -1;

/** Gives a directory this user owns (root: any) read, write and search for its owner, never through a link. */
async function openUp(dir: string): Promise<boolean> {
  const stat = await lstat(dir).catch(() => undefined);
  if (!stat?.isDirectory() || (myUid() !== 0 && stat.uid !== myUid())) return false;
  if ((stat.mode & 0o700) === 0o700) return false;
  return await chmod(dir, (stat.mode & 0o7777) | 0o700).then(
    () => true,
    () => false,
  );
}

/** Opens up `dir` and every directory below it that this user owns, so that all of it can be removed. */
async function openUpTree(dir: string): Promise<void> {
  await openUp(dir);
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[]);
  for (const entry of entries) if (entry.isDirectory()) await openUpTree(path.join(dir, entry.name));
}

function denied(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EACCES' || code === 'EPERM' || code === 'ENOTEMPTY' || code === 'EBUSY';
}

function run(argv: readonly string[]): Promise<boolean> {
  const [program, ...args] = argv;
  return new Promise((resolve) => {
    execFile(program!, args, { timeout: 60_000, env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' } }, (error) =>
      resolve(!error),
    );
  });
}

/** Removes and reads entries for one clean-up, and remembers what resisted. */
export class ForcedRemoval {
  readonly found: Resisted = { left: [], unread: [] };
  readonly #options: ForcedRemovalOptions;
  #asides = 0;

  constructor(options: ForcedRemovalOptions) {
    this.#options = options;
  }

  #name(file: string): string {
    return path.relative(this.#options.root, file) || '.';
  }

  /** The entries of `dir`; an unreadable directory this user owns is opened up first. */
  async list(dir: string): Promise<Dirent[]> {
    try {
      return await readdir(dir, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EACCES' && (await openUp(dir))) return await this.list(dir);
      // Gone, or not a directory (anymore): nothing to read, nothing hidden.
      if (code !== 'EACCES' && code !== 'EPERM') return [];
      this.found.unread.push(this.#name(dir));
      return [];
    }
  }

  /** Makes `dir` (a git directory) writable for its owner, so that files can be replaced in it. */
  async writable(dir: string): Promise<void> {
    await openUp(dir);
  }

  /**
   * Removes `target` (a link is removed, never followed) with everything under it; true when it is gone.
   * What resists is reported, renamed aside where it can be.
   */
  async remove(target: string): Promise<boolean> {
    const attempt = async (): Promise<unknown> =>
      await rm(target, { recursive: true, force: true }).then(
        () => undefined,
        (error: unknown) => error ?? new Error('rm failed'),
      );
    let error = await attempt();
    if (!error) return true;
    if (denied(error)) {
      await openUp(path.dirname(target));
      await openUpTree(target);
      error = await attempt();
      if (!error) return true;
    }
    const { escalate } = this.#options;
    if (escalate?.length && myUid() !== 0) {
      // Every process of the tools is gone by now (the sandbox ended): nothing swaps a path meanwhile.
      await run([...escalate, 'rm', '-rf', '--one-file-system', '--', target]);
      if (!(await lstat(target).catch(() => undefined))) return true;
    }
    const aside = path.join(path.dirname(target), `.todo-agent-unremovable-${process.pid}-${++this.#asides}`);
    const moved = await rename(target, aside).then(
      () => true,
      () => false,
    );
    this.found.left.push({ path: this.#name(target), ...(moved ? { asideAs: this.#name(aside) } : {}) });
    return false;
  }
}
