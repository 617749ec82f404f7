// The runner's own toolchain settings, read on the trusted side (the runner's files and environment, never
// the work tree): what of them the tools may see, and the registries and mirrors they name.
//
// The user settings of npm, pip, Maven, yarn, Gradle, cargo, Go and RubyGems (toolchains.ts says where each
// is; the sandbox hides several of them whole, as they can hold tokens) are shown to the tools in their
// place as copies with every secret left out; the client keys and certificates they name are hidden, and
// so are Gradle's init scripts and cargo's credentials; the CA files they or the environment name (NODE_EXTRA_CA_CERTS, SSL_CERT_FILE…) are shown as they
// are, wherever they lie (a setup step may leave one in RUNNER_TEMP, which the sandbox hides), when they hold
// certificates alone. The registries they name are the runner's own: such a mirror may lead to a loopback or
// private address (policy.ts), which a registry the repository names may not.
import { constants } from 'node:fs';
import { lstat, open, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { rulesFromEnv } from '../discover.js';
import type { HostRule } from '../hosts.js';
import type { ShownFile } from '../../sandbox/private-dirs.js';
import { isCertificateFile } from './filter.js';
import { TOOLCHAINS, type ToolchainName } from './toolchains.js';

export interface RunnerSettings {
  /** The runner's settings files as the tools see them, and the CA files they name. */
  shown: ShownFile[];
  /** The client keys and certificates the settings name: the tools never read them. */
  hidden: string[];
  /** The registries and mirrors the runner's own settings name. */
  rules: HostRule[];
}

/** Variables that name a CA file a client trusts (Node, OpenSSL, Python's requests, curl, git, npm, pip). */
const CA_VARIABLES = [
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
  'GIT_SSL_CAINFO',
  'PIP_CERT',
  'NPM_CONFIG_CAFILE',
  'npm_config_cafile',
];

/** More than this is no settings file or CA bundle of a runner's. */
const MAX_BYTES = 4 * 2 ** 20;

const exists = (file: string): Promise<boolean> =>
  lstat(file).then(
    () => true,
    () => false,
  );

/** Where no settings file or CA bundle lies: the kernel's views and the devices (a read there may not end). */
const SPECIAL = /^\/(?:proc|sys|dev)(?:\/|$)/;

/** A file's text, or why it was not read (and whether the tools are kept from it too). */
type Read = { text: string } | { problem: string; hide: boolean };

/**
 * The file's text, read from one handle (never asked about by name and then read by name again, where it
 * could have changed between): opened without waiting (a FIFO would wait for a writer for ever), judged by
 * what that handle is (a regular file, not under /proc, /sys or /dev where it really lies) and read to
 * MAX_BYTES at most. Undefined when it is missing (or `/dev/null`). A file that is there and not read is hidden from the
 * tools (they would see it unfiltered), unless it lies under /proc, /sys or /dev: never opened.
 */
async function readBounded(file: string): Promise<Read | undefined> {
  const special = { problem: 'it lies under /proc, /sys or /dev', hide: false };
  const real = await realpath(file).catch(() => file);
  // `/dev/null` is how a variable says "no settings file" (GOENV, GEMRC): nothing to read, nothing to say.
  if (real === '/dev/null') return undefined;
  if (SPECIAL.test(file) || SPECIAL.test(real)) return special;
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR'
      ? undefined
      : { problem: `it cannot be read (${code})`, hide: true };
  }
  try {
    if (SPECIAL.test(await readlink(`/proc/self/fd/${handle.fd}`).catch(() => file))) return special;
    if (!(await handle.stat()).isFile()) return { problem: 'it is not a regular file', hide: true };
    const chunks: Buffer[] = [];
    let size = 0;
    for (;;) {
      const { bytesRead, buffer } = await handle.read(Buffer.alloc(2 ** 16), 0, 2 ** 16, null);
      if (bytesRead === 0) return { text: Buffer.concat(chunks).toString('utf8') };
      chunks.push(buffer.subarray(0, bytesRead));
      size += bytesRead;
      if (size > MAX_BYTES) return { problem: `it is larger than ${MAX_BYTES / 2 ** 20} MiB`, hide: true };
    }
  } catch (error) {
    return { problem: `it cannot be read (${(error as NodeJS.ErrnoException).code})`, hide: true };
  } finally {
    await handle.close();
  }
}

/** Where the runner's toolchains read their settings, given its environment and HOME (absolute paths, each once). */
export function settingsFiles(
  env: NodeJS.ProcessEnv,
  home: string | undefined,
): Array<{ kind: ToolchainName; file: string }> {
  return TOOLCHAINS.flatMap((toolchain) =>
    toolchain.files(env, home).map((file) => ({ kind: toolchain.name, file })),
  ).filter(({ file }, i, all) => path.isAbsolute(file) && all.findIndex((one) => one.file === file) === i);
}

/** A rule of the runner's own settings: it may lead to a loopback or private address (policy.ts). */
const runnerRule = (rule: HostRule): HostRule => ({ ...rule, runner: true });

/**
 * Reads the runner's settings (a file that is missing is skipped, and so is one in the `workspace`: the
 * trusted side never reads the work tree). A settings file that is there and cannot be read as one (too
 * large, not a regular file, unreadable) is hidden from the tools; `warn` is told once of each file not read.
 */
export async function readRunnerSettings(
  env: NodeJS.ProcessEnv,
  home: string | undefined,
  workspace: string,
  warn: (line: string) => void = () => {},
): Promise<RunnerSettings> {
  const outsideOf = (root: string, file: string) => /^\.\.(?:\/|$)/.test(path.relative(root, file));
  const realWorkspace = await realpath(workspace).catch(() => workspace);
  // Judged where a link leads too: a runner file that is a link into the work tree is the work tree's.
  const outside = async (file: string) =>
    path.isAbsolute(file) &&
    outsideOf(workspace, file) &&
    outsideOf(realWorkspace, await realpath(file).catch(() => file));
  const shown: ShownFile[] = [];
  const hidden: string[] = [];
  const rules: HostRule[] = [];
  // Each CA file, and the lines of the copies that name it through a variable, with the name as written.
  const caFiles = new Map<string, Array<{ copy: ShownFile; raw: string; line: number }>>(
    CA_VARIABLES.flatMap((name) => env[name] ?? []).map((file) => [file, []]),
  );
  for (const toolchain of TOOLCHAINS)
    for (const file of toolchain.hidden?.(env, home) ?? []) if (await exists(file)) hidden.push(file);
  for (const { kind, file } of settingsFiles(env, home)) {
    const toolchain = TOOLCHAINS.find((one) => one.name === kind)!;
    const read = (await outside(file)) ? await readBounded(file) : undefined;
    if (read === undefined) continue;
    if (!('text' in read)) {
      if (read.hide) hidden.push(file);
      warn(
        read.hide
          ? `The runner's settings file ${file} is hidden from the tools: ${read.problem}.`
          : `The runner's settings file ${file} is not read: ${read.problem}.`,
      );
      continue;
    }
    const copy: ShownFile = { path: file, text: toolchain.filter(read.text) };
    shown.push(copy);
    // One by one here and below: a file may name 100 000 of them, too many arguments for one call.
    for (const rule of toolchain.registries(copy.text, env)) rules.push(runnerRule(rule));
    const base = toolchain.relativeTo?.(file);
    const absolute = (value: string) => (base && !path.isAbsolute(value) ? path.resolve(base, value) : value);
    for (const { raw, file: ca, line } of toolchain.caFiles(copy.text, env)) {
      if (ca === undefined || !path.isAbsolute(absolute(ca))) continue;
      const naming = caFiles.get(absolute(ca)) ?? [];
      if (raw !== ca && line !== undefined) naming.push({ copy, raw, line });
      caFiles.set(absolute(ca), naming);
    }
    for (const key of toolchain.clientKeys(read.text, env).map(absolute))
      if (path.isAbsolute(key)) hidden.push(key);
  }
  // A CA path its toolchain resolves from a variable is shown resolved, in the line that names it alone: the
  // tools' environment may lack the variable. Each copy is cut into lines once, however many name one.
  const resolved = new Map<ShownFile, string[]>();
  for (const [file, naming] of caFiles) {
    const read = (await outside(file)) ? await readBounded(file) : undefined;
    if (read !== undefined && !('text' in read))
      warn(`The CA file ${file} is not shown to the tools: ${read.problem}.`);
    if (read === undefined || !('text' in read) || !isCertificateFile(read.text)) continue;
    shown.push({ path: file, text: read.text, ifHidden: true });
    for (const { copy, raw, line } of naming) {
      const lines = resolved.get(copy) ?? copy.text.split('\n');
      lines[line] = lines[line]!.replace(raw, () => file);
      resolved.set(copy, lines);
    }
  }
  for (const [copy, lines] of resolved) copy.text = lines.join('\n');
  rules.push(...rulesFromEnv(env).map(runnerRule));
  return { shown, hidden: [...new Set(hidden)], rules };
}
