// Git plumbing in the emulator's origin (a bare repository): what GitHub does to its own repository when an
// API call writes a ref or a commit, and what it reads from it (branches, a pull request's files).
import { execFile } from 'node:child_process';

export interface OriginGitOptions {
  input?: string | Buffer;
  env?: NodeJS.ProcessEnv;
  /** `-c name=value` settings for this one command. */
  config?: readonly string[];
  /** Keep stdout as git wrote it (default: trimmed), for output whose last line may end in white space. */
  untrimmed?: boolean;
}

/** Runs git on the origin's git dir; rejects, with git's stderr, when git exits non-zero. */
export function originGit(gitDir: string, args: string[], options: OriginGitOptions = {}): Promise<string> {
  const config = (options.config ?? []).flatMap((setting) => ['-c', setting]);
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      ['--git-dir', gitDir, ...config, ...args],
      { env: { ...process.env, ...options.env }, maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) =>
        error
          ? reject(new Error(`git ${args[0]}: ${stderr || error.message}`))
          : resolve(options.untrimmed ? stdout : stdout.trim()),
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** The sha `refs/heads/<branch>` points at, or undefined. */
export async function originBranch(gitDir: string, branch: string): Promise<string | undefined> {
  return await originGit(gitDir, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`]).catch(
    () => undefined,
  );
}
