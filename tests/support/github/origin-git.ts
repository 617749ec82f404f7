// Git plumbing in the emulator's origin (a bare repository): what GitHub does to its own repository when an
// API call writes a ref or a commit.
import { execFile } from 'node:child_process';

export function originGit(
  gitDir: string,
  args: string[],
  options: { input?: string | Buffer; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      ['--git-dir', gitDir, ...args],
      { env: { ...process.env, ...options.env }, maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`git ${args[0]}: ${stderr || error.message}`)) : resolve(stdout.trim()),
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
