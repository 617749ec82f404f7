// The workspace's git directories repaired once the tools are done, however the run ends: by the action
// after its last tool call (and from the job's `finally` when it throws), and by the action's post step when
// its process was killed (src/post.ts). The top `.git` gets back the configuration, hooks and `shallow` saved
// before the first tool call; one that is no longer a directory (a link, a `.git` file, nothing) is replaced
// by a clean one made from our own git directory, never trusted for where it leads; then every git directory
// of the work tree is disarmed (git-dirs.ts). With the sandbox on, the tools never wrote the real `.git`
// (their writes went to a layer of their own, sandbox/init.ts), so there is nothing to put back there.
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig, type SavedConfig } from './config-guard.js';
import { disarmGitDirs, type Disarmed } from './git-dirs.js';
import { remakeGitDir, type OwnGitDir } from './own-git-dir.js';
import { GitRepo } from './repo.js';
import { ForcedRemoval } from './forced-removal.js';
import { errorSentence } from '../text/error-sentence.js';

export interface Repaired extends Disarmed {
  /** The top `.git` was not a directory and a clean one was made in its place. */
  remade: boolean;
  /** Why no clean `.git` could be made, when one was needed and could not be. */
  notRemade?: string;
}

export interface RepairOptions {
  workspace: string;
  /** Our own git directory: the source of a new `.git`, and where `git config --file` runs. */
  ownGitDir: string;
  /** What saveConfig saved; absent, the top `.git` is disarmed like any other (it cannot be checked). */
  saved: SavedConfig | undefined;
  /** Our git, bound to our own git directory (config-file edits only). */
  git: GitRepo;
  /** Runs a program as root (`sudo -n --`) for what this user cannot remove; only where the tools are gone. */
  escalate?: readonly string[];
  /** The environment our git starts from (secret-free). */
  env?: NodeJS.ProcessEnv;
}

/** Repairs the workspace's git directories (see the top of this file); never throws for an entry. */
export async function repairGitDirs(options: RepairOptions): Promise<Repaired> {
  const { workspace, ownGitDir, saved, git } = options;
  const root = await realpath(workspace);
  const entries = new ForcedRemoval({ root, ...(options.escalate ? { escalate: options.escalate } : {}) });
  const gitDir = path.join(workspace, '.git');
  // A new `.git` a killed run left half made: made again below if needed.
  await entries.remove(path.join(workspace, '.git.todo-agent-new'));
  let trusted = saved ? await saved.restore(entries) : false;
  let remade = false;
  let notRemade: string | undefined;
  if (saved && !trusted) {
    try {
      await remakeGitDir(ownGitDir, workspace, saved, (target) => entries.remove(target), options.env);
      trusted = remade = true;
    } catch (error) {
      // What is there stays untrusted: the disarm below cuts it down to inert settings.
      notRemade = error instanceof Error ? error.message : String(error);
    }
  }
  const disarmed = await disarmGitDirs(workspace, git, trusted ? [gitDir] : [], entries);
  return { ...disarmed, remade, ...(notRemade ? { notRemade } : {}) };
}

/** What the guard tells the one who armed it (the action: the runner's state, the log and the run record). */
export interface GuardTold {
  /** Armed, before the first tool call: save what a post step needs if this process is killed. */
  armed(): void;
  /** Repaired (once): the post step has nothing left to do; each sentence says what changed or resisted. */
  repaired(sentences: readonly string[]): void;
  /** The repair failed when the job ended: the post step does it, from what was saved. */
  failed(why: string): void;
}

export interface GuardOptions extends Omit<RepairOptions, 'ownGitDir'> {
  /** Our own git directory: the source of a new `.git`, removed once the guard is done with it. */
  ownDir: Pick<OwnGitDir, 'path' | 'remove'>;
  tell: GuardTold;
}

/**
 * One run's owner of the workspace's git directories, from the first tool call to the job's end: `arm()`
 * before the tools run, `repair()` once they are gone (delivery asks first; later calls get the first
 * call's result), `finish()` from the job's end, whatever happened, which repairs them if nobody did and
 * then removes our own git directory, or leaves it for the post step when the repair failed.
 */
export class WorkspaceGuard {
  readonly #options: GuardOptions;
  #repair: Promise<Repaired> | undefined;
  #done = false;
  #finished: Promise<void> | undefined;

  private constructor(options: GuardOptions) {
    this.#options = options;
  }

  /** The guard of a run whose tools are about to start; the post step is told where to find what it needs. */
  static arm(options: GuardOptions): WorkspaceGuard {
    options.tell.armed();
    return new WorkspaceGuard(options);
  }

  /** Call it once no tool process is left (the sandbox closed); later calls get the first call's result. */
  async repair(): Promise<Repaired> {
    this.#repair ??= repairGitDirs({ ...this.#options, ownGitDir: this.#options.ownDir.path }).then(
      (report) => {
        this.#done = true;
        this.#options.tell.repaired(repairSentences(report));
        return report;
      },
    );
    return await this.#repair;
  }

  /** The job's end, once no tool is left; safe to call again. */
  async finish(): Promise<void> {
    this.#finished ??= (async () => {
      if (!this.#repair)
        await this.repair().catch((error: unknown) => this.#options.tell.failed(errorSentence(error)));
      // Left for the post step when the repair failed: it holds what was saved, and a clean `.git`.
      if (this.#done) await this.#options.ownDir.remove();
    })();
    await this.#finished;
  }
}

/**
 * The same, for the post step: what was saved is read back from our own git directory (left behind by a
 * killed run), our git runs with a minimal environment.
 */
export async function repairAfterKill(options: Omit<RepairOptions, 'saved' | 'git'>): Promise<Repaired> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C' };
  return await repairGitDirs({
    ...options,
    saved: await loadConfig(options.workspace, options.ownGitDir),
    git: new GitRepo(options.workspace, { gitDir: options.ownGitDir, env }),
    env,
  });
}

/** What was changed and what resisted, one warning each, for the log and the run record; names only. */
export function repairSentences(report: Repaired): string[] {
  return [
    report.remade ? "The workspace's .git was not a directory: a clean one was made in its place." : '',
    report.notRemade
      ? `The workspace's .git was not a directory and no clean one could be made (${report.notRemade}); what is there was disarmed.`
      : '',
    ...disarmSentences(report),
  ].filter(Boolean);
}

/** What disarming the git directories changed and what resisted, one warning each; names only. */
export function disarmSentences({ links, configs, resisted }: Disarmed): string[] {
  const left = resisted.left.map(({ path: entry, asideAs }) =>
    asideAs ? `${entry} (renamed to ${asideAs})` : entry,
  );
  return [
    links.length > 0 ? `Removed links leading out of the workspace: ${links.join(', ')}.` : '',
    configs.length > 0 ? `Cut nested git configuration down to inert settings: ${configs.join(', ')}.` : '',
    left.length > 0 ? `Could not remove from the workspace: ${left.join(', ')}.` : '',
    resisted.unread.length > 0
      ? `Could not read, so not checked for git directories: ${resisted.unread.join(', ')}.`
      : '',
  ].filter(Boolean);
}
