// Runs git and nothing else: execFile (never a shell) with an argument array, no system or global
// configuration, and command-line settings that switch off what a repository's configuration could make git
// run (hooks, fsmonitor, credential helpers, ssh commands, protocols other than https and local files).
// Bound to a git directory of the action's own, git reads no repository configuration of the workspace:
// GIT_DIR names that directory and GIT_WORK_TREE the workspace, so nothing is discovered there.
import { execFile } from 'node:child_process';
import { redactor } from '../text/redact.js';

/** Network commands get minutes, not forever: a hung fetch must not eat the job's whole time budget. */
const GIT_TIMEOUT_MS = 5 * 60_000;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
/**
 * These would point git at another repository or index than the one we name, add configuration, or name
 * programs for git to run.
 */
const UNWANTED_VARS = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_CEILING_DIRECTORIES',
  'GIT_DISCOVERY_ACROSS_FILESYSTEM',
  'GIT_NAMESPACE',
  'GIT_REPLACE_REF_BASE',
  'GIT_NO_REPLACE_OBJECTS',
  'GIT_SHALLOW_FILE',
  'GIT_CONFIG',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
  'GIT_CONFIG_SYSTEM',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_PROXY_COMMAND',
  'GIT_EXTERNAL_DIFF',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_PAGER',
  'GIT_EXEC_PATH',
  'GIT_TEMPLATE_DIR',
  'GIT_TRACE',
  'GIT_TRACE2',
  'GIT_TRACE2_EVENT',
  'GIT_TRACE2_PERF',
];

/**
 * Settings given on every command line, where they win over any repository configuration: nothing a
 * repository configures runs inside our git.
 */
export const GIT_LOCKDOWN: readonly string[] = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.sshCommand=false',
  'core.askPass=',
  'core.editor=false',
  'core.pager=cat',
  'credential.helper=',
  'diff.external=',
  'submodule.recurse=false',
  'protocol.allow=never',
  'protocol.https.allow=always',
  'protocol.file.allow=always',
  'commit.gpgsign=false',
  'tag.gpgsign=false',
].flatMap((setting) => ['-c', setting]);

/**
 * The lockdown as environment variables (GIT_CONFIG_COUNT…), for a git we do not start ourselves (an MCP
 * server's): they win over every configuration file, so a hook, fsmonitor, pager, editor, credential helper
 * or external diff that a repository configures does not run. Its protocols stay the runner's, and ssh is
 * plain ssh (a repository's `core.sshCommand` is not read).
 */
export function lockdownEnv(): Record<string, string> {
  const settings = GIT_LOCKDOWN.filter((arg) => arg !== '-c' && !arg.startsWith('protocol.')).map(
    (setting) => (setting === 'core.sshCommand=false' ? 'core.sshCommand=ssh' : setting),
  );
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(settings.length) };
  settings.forEach((setting, i) => {
    const at = setting.indexOf('=');
    env[`GIT_CONFIG_KEY_${i}`] = setting.slice(0, at);
    env[`GIT_CONFIG_VALUE_${i}`] = setting.slice(at + 1);
  });
  return env;
}

/** `scheme://user:secret@host` → `scheme://***@host`, for anything git may echo back. */
export function scrubCredentials(text: string): string {
  return redactor.redact(text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1***@'));
}

export class GitError extends Error {
  override name = 'GitError';
  /** `git <args>`, credentials scrubbed; the environment is never included. */
  readonly command: string;
  readonly stderr: string;
  /** Undefined when git did not exit on its own (not found, timed out, output too large). */
  readonly exitCode: number | undefined;

  constructor(args: readonly string[], stderr: string, exitCode?: number) {
    const command = scrubCredentials(['git', ...args].join(' '));
    const detail = scrubCredentials(stderr.trim());
    const status = exitCode === undefined ? 'failed' : `failed (exit ${exitCode})`;
    super(detail ? `${command} ${status}: ${detail}` : `${command} ${status}`);
    this.command = command;
    this.stderr = detail;
    this.exitCode = exitCode;
  }
}

export interface GitOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment every git process of ours starts from: `base` without what would steer git. */
export function gitEnv(base: NodeJS.ProcessEnv, gitDir?: { gitDir: string; workTree: string }) {
  const env: NodeJS.ProcessEnv = {
    ...base,
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  };
  for (const name of Object.keys(env)) {
    if (UNWANTED_VARS.includes(name) || /^GIT_CONFIG_(KEY|VALUE)_/.test(name)) delete env[name];
  }
  if (gitDir) {
    env.GIT_DIR = gitDir.gitDir;
    env.GIT_WORK_TREE = gitDir.workTree;
  }
  return env;
}

/**
 * Runs git for its bytes (a blob, binary safe) with the same lockdown, `input` written to its stdin; throws
 * unless it exits 0.
 */
export function readGitBytes(
  cwd: string,
  env: NodeJS.ProcessEnv,
  args: readonly string[],
  input?: string,
): Promise<Buffer> {
  const fullArgs = ['-c', `safe.directory=${cwd}`, ...GIT_LOCKDOWN, ...args];
  const options = {
    cwd,
    env,
    encoding: 'buffer' as const,
    maxBuffer: 256 * 1024 * 1024,
    timeout: GIT_TIMEOUT_MS,
  };
  return new Promise((resolve, reject) => {
    const child = execFile('git', fullArgs, options, (error, stdout, stderr) =>
      error ? reject(new GitError(args, stderr.toString())) : resolve(stdout),
    );
    child.stdin?.on('error', () => undefined); // git that exits early reports through its exit code
    child.stdin?.end(input ?? '');
  });
}

/**
 * Runs git in `cwd` with `env` (from gitEnv) and the lockdown; reports its exit code, and throws only when
 * git could not run to the end.
 */
export function runGit(
  cwd: string,
  env: NodeJS.ProcessEnv,
  args: readonly string[],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<GitOutput> {
  const fullArgs = ['-c', `safe.directory=${cwd}`, ...GIT_LOCKDOWN, ...args];
  const options = {
    cwd,
    env: { ...env, ...extraEnv },
    encoding: 'utf8' as const,
    maxBuffer: MAX_OUTPUT_BYTES,
    timeout: GIT_TIMEOUT_MS,
  };
  return new Promise((resolve, reject) => {
    execFile('git', fullArgs, options, (error, stdout, stderr) => {
      if (!error) return resolve({ code: 0, stdout, stderr });
      if (typeof error.code === 'number') return resolve({ code: error.code, stdout, stderr });
      const why = error.killed ? `timed out or killed (${error.signal ?? 'no signal'})` : error.message;
      reject(new GitError(args, `${why}\n${stderr}`));
    });
  });
}

/** Many blobs' bytes, in the order asked, from one git process (`cat-file --batch`). */
export async function readBlobs(
  cwd: string,
  env: NodeJS.ProcessEnv,
  shas: readonly string[],
): Promise<Buffer[]> {
  if (shas.length === 0) return [];
  for (const sha of shas) if (!/^[0-9a-f]{40,64}$/.test(sha)) throw new Error(`not an object id: ${sha}`);
  const out = await readGitBytes(cwd, env, ['cat-file', '--batch'], `${shas.join('\n')}\n`);
  const blobs: Buffer[] = [];
  let at = 0;
  for (const sha of shas) {
    const end = out.indexOf(0x0a, at);
    const [name, type, size] = out.subarray(at, end).toString('utf8').split(' ');
    if (name !== sha || type !== 'blob' || size === undefined)
      throw new Error(`git cat-file --batch: no blob ${sha}`);
    blobs.push(out.subarray(end + 1, end + 1 + Number(size)));
    at = end + 1 + Number(size) + 1;
  }
  return blobs;
}

/**
 * The configuration, passed in the environment (GIT_CONFIG_COUNT…), that sends the token to `serverUrl` the
 * way actions/checkout does: basic auth as `x-access-token`.
 */
export function authEnv(serverUrl: string, token: string): NodeJS.ProcessEnv {
  const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
  return {
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: `http.${serverUrl.replace(/\/+$/, '')}/.extraheader`,
    GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${basic}`,
  };
}
