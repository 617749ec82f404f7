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
import { lstat, readFile, realpath, stat } from 'node:fs/promises';
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

/** The file's text, when it is a regular file of at most MAX_BYTES (its size is asked before any read). */
async function readSmall(file: string): Promise<string | undefined> {
  try {
    const info = await stat(file);
    if (!info.isFile() || info.size > MAX_BYTES) return undefined;
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
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
 * Reads the runner's settings (a file that is missing or unreadable is skipped, and so is one in the
 * `workspace`: the trusted side never reads the work tree).
 */
export async function readRunnerSettings(
  env: NodeJS.ProcessEnv,
  home: string | undefined,
  workspace: string,
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
  // Each CA file, and the copy that names it through a variable, with the name as written there.
  const caFiles = new Map<string, { copy: ShownFile; raw: string } | undefined>(
    CA_VARIABLES.flatMap((name) => env[name] ?? []).map((file) => [file, undefined]),
  );
  for (const toolchain of TOOLCHAINS)
    for (const file of toolchain.hidden?.(env, home) ?? []) if (await exists(file)) hidden.push(file);
  for (const { kind, file } of settingsFiles(env, home)) {
    const toolchain = TOOLCHAINS.find((one) => one.name === kind)!;
    const text = (await outside(file)) ? await readSmall(file) : undefined;
    if (text === undefined) continue;
    const copy: ShownFile = { path: file, text: toolchain.filter(text) };
    shown.push(copy);
    rules.push(...toolchain.registries(copy.text, env).map(runnerRule));
    const base = toolchain.relativeTo?.(file);
    const absolute = (value: string) => (base && !path.isAbsolute(value) ? path.resolve(base, value) : value);
    for (const { raw, file: ca } of toolchain.caFiles(copy.text, env))
      if (ca !== undefined && path.isAbsolute(absolute(ca)) && !caFiles.has(absolute(ca)))
        caFiles.set(absolute(ca), raw === ca ? undefined : { copy, raw });
    hidden.push(
      ...toolchain
        .clientKeys(text, env)
        .map(absolute)
        .filter((value) => path.isAbsolute(value)),
    );
  }
  for (const [file, named] of caFiles) {
    const text = (await outside(file)) ? await readSmall(file) : undefined;
    if (text === undefined || !isCertificateFile(text)) continue;
    shown.push({ path: file, text, ifHidden: true });
    // A CA path its toolchain resolves from a variable is shown resolved: the tools' environment may lack it.
    if (named) named.copy.text = named.copy.text.split(named.raw).join(file);
  }
  rules.push(...rulesFromEnv(env).map(runnerRule));
  return { shown, hidden, rules };
}
