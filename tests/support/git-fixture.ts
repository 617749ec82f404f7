// What the git unit tests share: git without the machine's configuration, and a commit identity.
import { execFileSync } from 'node:child_process';

/** The tests' own git: no system or global configuration, so only the repository's counts. */
export const GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** `-c user.*` for the tests' own commits (the action gets no identity from the machine). */
export const WHO = ['-c', 'user.name=T', '-c', 'user.email=t@example.com'];

/** Runs git in `cwd` and returns its trimmed stdout; throws when it fails. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: GIT_ENV,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}
