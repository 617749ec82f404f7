// Our git's operations on one repository: HEAD, branches, the change, the commit and the push. Every
// process goes through git-process.ts (locked down, no system or global configuration). The push token
// reaches only these git processes, as an http.extraheader in their environment; it is never written to a
// repository's configuration. After the tools ran, the repository is the action's own git directory
// (own-git-dir.ts) with the workspace as its work tree only.
import { isAbsolute, join, relative } from 'node:path';
import { errorMessage } from '../text/error-sentence.js';
import { authEnv, GitError, gitEnv, readBlobs, runGit, type GitOutput } from './git-process.js';
import {
  blobSizes,
  isLocallyRejected,
  lineCountsOf,
  statusPaths,
  treeChanges,
  type TreeChange,
} from './tree-changes.js';

export { GitError } from './git-process.js';
export type { TreeChange } from './tree-changes.js';

export const BOT_IDENTITY = {
  name: 'github-actions[bot]',
  email: '41898282+github-actions[bot]@users.noreply.github.com',
};

export interface GitIdentity {
  name: string;
  email: string;
}

export interface GitRepoOptions {
  /** Environment for git (default: process.env); GIT_TERMINAL_PROMPT=0 is always added. */
  env?: NodeJS.ProcessEnv;
  /** Author and committer of commitAll (default: BOT_IDENTITY). */
  identity?: GitIdentity;
  /** Credentials for fetch, ls-remote and push: sent to `serverUrl` by our own git processes only. */
  auth?: { serverUrl: string; token: string };
  /** Files never staged, wherever .gitignore stands (credential files an earlier step left in the workspace). */
  exclude?: readonly string[];
  /**
   * The git directory, when it is not `<dir>/.git`: the action's own (see own-git-dir.ts). Then `dir` is only
   * the work tree, and no configuration, hook or file of `<dir>/.git` is read.
   */
  gitDir?: string;
}

export type PushResult = { ok: true } | { ok: false; rejected: boolean; message: string };

export class GitRepo {
  /** The work tree. */
  readonly dir: string;
  /** The git directory: `<dir>/.git`, or the action's own. */
  readonly gitDir: string;
  readonly #env: NodeJS.ProcessEnv;
  readonly #identity: GitIdentity;
  /** Extra environment for commands that talk to the remote. */
  readonly #authEnv: NodeJS.ProcessEnv;
  /** `-- . :(exclude)…`: the whole work tree but the excluded files. */
  readonly #pathspec: string[];

  constructor(dir: string, options: GitRepoOptions = {}) {
    this.dir = dir;
    this.gitDir = options.gitDir ?? join(dir, '.git');
    const base = options.env ?? process.env;
    this.#env = gitEnv(base, options.gitDir ? { gitDir: options.gitDir, workTree: dir } : undefined);
    this.#identity = options.identity ?? BOT_IDENTITY;
    this.#authEnv = options.auth ? authEnv(options.auth.serverUrl, options.auth.token) : {};
    const inside = (options.exclude ?? [])
      .map((path) => relative(dir, path))
      .filter((path) => path !== '' && !path.startsWith('..') && !isAbsolute(path));
    this.#pathspec = ['--', '.', ...inside.map((path) => `:(exclude,literal)${path}`)];
  }

  /** Sha of HEAD. */
  async head(): Promise<string> {
    return (await this.#git(['rev-parse', '--verify', 'HEAD'])).trim();
  }

  /** Creates `name` at the current HEAD and switches to it. */
  async createBranch(name: string): Promise<void> {
    assertNotOption(name, 'switch');
    await this.#git(['switch', '--create', name]);
  }

  /**
   * Fetches origin's `name` and switches to a local `name` at its tip, tracking origin (for resuming a run
   * or working on a PR's head). A local branch of that name is reset to the remote one.
   */
  async checkoutRemoteBranch(name: string): Promise<void> {
    await this.#fetchBranch(name);
    await this.#git(['switch', '--force-create', name, `refs/remotes/origin/${name}`]);
    await this.#git(['config', `branch.${name}.remote`, 'origin']);
    await this.#git(['config', `branch.${name}.merge`, `refs/heads/${name}`]);
  }

  /** Switches a new local branch `name` to PR `number`'s head as origin serves it (never the fork's URL). */
  async checkoutPullHead(number: number, name: string): Promise<void> {
    const ref = `refs/pull/${Math.trunc(number)}/head`;
    await this.#git(['fetch', '--no-tags', 'origin', `+${ref}:refs/todo-agent/${ref}`], this.#authEnv);
    await this.#git(['switch', '--force-create', name, `refs/todo-agent/${ref}`]);
  }

  /**
   * The sha of origin's branch: as the checkout has it, else fetched (a pull request event checks out its merge
   * commit and nothing else); undefined when origin has no such branch.
   */
  async remoteTip(name: string): Promise<string | undefined> {
    const ref = `refs/remotes/origin/${name}`;
    const known = await this.resolve(ref);
    if (known) return known;
    return await this.#fetchBranch(name).then(
      async () => await this.resolve(ref),
      () => undefined,
    );
  }

  async #fetchBranch(name: string): Promise<void> {
    assertNotOption(name, 'fetch');
    // An explicit refspec: a checkout's fetch config may not cover every branch.
    await this.#git(
      ['fetch', '--no-tags', 'origin', `+refs/heads/${name}:refs/remotes/origin/${name}`],
      this.#authEnv,
    );
  }

  /** A commit-ish resolved to its sha, or undefined when there is no such revision here. */
  async resolve(rev: string): Promise<string | undefined> {
    assertNotOption(rev, 'rev-parse');
    const result = await this.#run(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
    return result.code === 0 ? result.stdout.trim() : undefined;
  }

  /** The content of `path` in commit `sha` (not the working tree), or undefined when it has none. */
  async fileAt(sha: string, path: string): Promise<string | undefined> {
    assertNotOption(sha, 'cat-file');
    const result = await this.#run(['cat-file', 'blob', `${sha}:${path}`]);
    return result.code === 0 ? result.stdout : undefined;
  }

  /** Any tracked change or untracked, not ignored, file. */
  async hasChanges(): Promise<boolean> {
    return (
      (await this.#git(['status', '--porcelain', '--ignore-submodules=all', ...this.#pathspec])).trim() !== ''
    );
  }

  /**
   * Stages everything (.gitignore respected, excluded files left out) and commits as the identity; undefined
   * when nothing changed.
   */
  async commitAll(message: string): Promise<string | undefined> {
    await this.stageAll();
    return this.commitStaged(message);
  }

  /**
   * Stages every change in the work tree (.gitignore respected, excluded files left out). A nested repository
   * without a commit, which git refuses to add, is left out (held back) rather than costing the whole change.
   */
  async stageAll(): Promise<void> {
    for (const left: string[] = []; ;) {
      const args = ['add', '--all', ...this.#pathspec, ...left.map((path) => `:(exclude,literal)${path}`)];
      const result = await this.#run(args);
      if (result.code === 0) return;
      const empty = [...result.stderr.matchAll(/^error: '(.+)' does not have a commit checked out$/gm)];
      const more = empty.map((match) => match[1]!).filter((path) => !left.includes(path));
      if (more.length === 0) throw new GitError(args, result.stderr || result.stdout, result.code);
      left.push(...more);
    }
  }

  /** Commits what is staged as the identity; undefined when nothing is. */
  async commitStaged(message: string): Promise<string | undefined> {
    const staged = await this.#run(['diff', '--cached', '--quiet']);
    if (staged.code === 0) return undefined;
    if (staged.code !== 1) throw new GitError(['diff', '--cached', '--quiet'], staged.stderr, staged.code);
    const { name, email } = this.#identity;
    // GIT_AUTHOR_* / GIT_COMMITTER_* in the environment would win over -c user.*, so they are set too.
    const identityEnv = {
      GIT_AUTHOR_NAME: name,
      GIT_AUTHOR_EMAIL: email,
      GIT_COMMITTER_NAME: name,
      GIT_COMMITTER_EMAIL: email,
    };
    // --no-verify as well as the empty hooksPath: no hook (husky…) may block or watch the bot's commit.
    await this.#git(
      [
        '-c',
        `user.name=${name}`,
        '-c',
        `user.email=${email}`,
        'commit',
        '--quiet',
        '--no-verify',
        '--message',
        message,
      ],
      identityEnv,
    );
    return this.head();
  }

  /**
   * Pushes HEAD to `branch` of origin (or of `remote`, a URL on the server the token is for: a fork's), never
   * forced; `rejected` when the remote moved or the ref exists. The token goes as for any fetch of ours.
   */
  async push(branch: string, remote = 'origin'): Promise<PushResult> {
    for (const value of [branch, remote]) assertNotOption(value, 'push');
    // --no-verify: a pre-push hook the agent's `npm install` set up must not block (or see) the delivery.
    const args = ['push', '--porcelain', '--no-verify', remote, `HEAD:refs/heads/${branch}`];
    let result: GitOutput;
    try {
      result = await this.#run(args, this.#authEnv);
    } catch (error) {
      // A push that hung past its timeout or could not start: worth another try, never a lost run.
      return { ok: false, rejected: false, message: errorMessage(error) };
    }
    if (result.code === 0) return { ok: true };
    const message = new GitError(args, [result.stderr, result.stdout].join('\n'), result.code).message;
    return { ok: false, rejected: isLocallyRejected(result.stdout), message };
  }

  async remoteBranchExists(name: string): Promise<boolean> {
    assertNotOption(name, 'ls-remote');
    const ref = `refs/heads/${name}`;
    // ls-remote matches by path suffix: refs/heads/a/refs/heads/x would match too, so compare exactly.
    const output = await this.#git(['ls-remote', '--heads', 'origin', ref], this.#authEnv);
    return output.split('\n').some((line) => line.split('\t')[1] === ref);
  }

  // ---- What delivery reads and writes: the change as this git sees it, blobs, patches, the remote's commit ----

  /** The staged index as a tree (the change about to be committed), without committing it. */
  async stagedTree(): Promise<string> {
    return (await this.#git(['write-tree'])).trim();
  }

  /** Every file that differs between two tree-ish revisions, with its mode, blob and size (renames as two). */
  async changesBetween(from: string, to: string): Promise<TreeChange[]> {
    assertNotOption(from, 'diff-tree');
    assertNotOption(to, 'diff-tree');
    const raw = await this.#git(['diff-tree', '-r', '-z', '--raw', '--no-renames', '--no-abbrev', from, to]);
    const listing = await this.#git(['ls-tree', '-r', '-l', '-z', '--full-tree', to]);
    return treeChanges(raw, blobSizes(listing));
  }

  /** Takes paths out of the index again (the work tree keeps them). */
  async unstage(paths: readonly string[]): Promise<void> {
    for (let i = 0; i < paths.length; i += 200) {
      const literal = paths.slice(i, i + 200).map((path) => `:(literal)${path}`);
      await this.#git(['rm', '-r', '-q', '--cached', '--ignore-unmatch', '--', ...literal]);
    }
  }

  /** Puts tracked paths back in the index as commit `sha` has them; the work tree is left as it is. */
  async restoreStaged(sha: string, paths: readonly string[]): Promise<void> {
    assertNotOption(sha, 'reset');
    for (let i = 0; i < paths.length; i += 200) {
      const literal = paths.slice(i, i + 200).map((path) => `:(literal)${path}`);
      await this.#git(['reset', '-q', sha, '--', ...literal]);
    }
  }

  /** Many blobs' bytes, in the order asked, from one git process (`cat-file --batch`). */
  async blobs(shas: readonly string[]): Promise<Buffer[]> {
    return await readBlobs(this.dir, this.#env, shas);
  }

  /**
   * The change from `from` to HEAD (or, `staged`, to the index) as one patch `git apply` takes (binary files
   * included), of `paths` alone when given.
   */
  async patchSince(
    from: string,
    { staged = false, paths }: { staged?: boolean; paths?: readonly string[] } = {},
  ): Promise<string> {
    assertNotOption(from, 'diff');
    const to = staged ? ['--cached', from] : [from, 'HEAD'];
    const only = paths ? ['--', ...paths.map((path) => `:(literal)${path}`)] : [];
    return await this.#git([
      'diff',
      '--binary',
      '--full-index',
      '--no-color',
      '--no-ext-diff',
      ...to,
      ...only,
    ]);
  }

  /** Moves the branch back to `sha`, keeping the index and the work tree: its commits since, to make again. */
  async uncommitSince(sha: string): Promise<void> {
    assertNotOption(sha, 'reset');
    await this.#git(['reset', '-q', '--soft', sha]);
  }

  /** Lines added and removed per file from `from` to HEAD, or to the index (binary files count none). */
  async lineCounts(
    from: string,
    { staged = false }: { staged?: boolean } = {},
  ): Promise<Map<string, { additions: number; deletions: number }>> {
    assertNotOption(from, 'diff');
    const numstat = await this.#git([
      'diff',
      ...(staged ? ['--cached'] : []),
      '--numstat',
      '-z',
      '--no-renames',
      '--no-ext-diff',
      from,
      ...(staged ? [] : ['HEAD']),
    ]);
    return lineCountsOf(numstat);
  }

  /** The commit where HEAD left `rev`, or undefined when they share none (or `rev` is unknown). */
  async mergeBase(rev: string): Promise<string | undefined> {
    assertNotOption(rev, 'merge-base');
    const result = await this.#run(['merge-base', rev, 'HEAD']);
    return result.code === 0 ? result.stdout.trim() : undefined;
  }

  /**
   * Fetches origin's `name` (a commit GitHub made) and moves the current branch onto it, work tree untouched:
   * the local branch then matches the remote one, so a later run continues from it.
   */
  async adoptRemoteBranch(name: string): Promise<string> {
    await this.#fetchBranch(name);
    await this.#git(['reset', '--quiet', '--mixed', `refs/remotes/origin/${name}`]);
    return this.head();
  }

  /**
   * `git config --file <file> <args>`: reads or edits one configuration file as it is, includes not
   * followed. Exit code 1 (no such key) gives ''.
   */
  async configFile(file: string, args: string[]): Promise<string> {
    const full = ['config', '--file', file, ...args];
    const result = await this.#run(full);
    if (result.code === 0 || result.code === 1 || result.code === 5)
      return result.code === 0 ? result.stdout : '';
    throw new GitError(full, result.stderr, result.code);
  }

  /** The files the commits since `sha` change, as `git diff --name-status` lists them (`M\thello.py`). */
  async changedSince(sha: string): Promise<string[]> {
    assertNotOption(sha, 'diff');
    return lines(await this.#git(['diff', '--name-status', '--no-renames', sha, 'HEAD']));
  }

  /** What the work tree holds that no commit does (.gitignore respected): what a commit left out. */
  async uncommitted(): Promise<string[]> {
    // -z: each path as it is (without it, git quotes one with a space or a non-ASCII letter).
    return statusPaths(
      await this.#git(['status', '--porcelain', '-z', '--no-renames', '--untracked-files=all']),
    );
  }

  /** Runs git, throws GitError unless it exits 0, returns stdout. */
  async #git(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
    const result = await this.#run(args, extraEnv);
    if (result.code !== 0) throw new GitError(args, result.stderr || result.stdout, result.code);
    return result.stdout;
  }

  /** Runs git and reports its exit code; throws only when git could not run to the end. */
  #run(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<GitOutput> {
    return runGit(this.dir, this.#env, args, extraEnv);
  }
}

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

/** A name starting with '-' would be read as an option. */
function assertNotOption(value: string, command: string): void {
  if (value === '' || value.startsWith('-')) {
    throw new GitError([command], `not run: invalid ref name '${value}' (empty or starting with '-')`);
  }
}
