// The runner's own toolchain settings, read on the trusted side (the runner's files and environment, never
// the work tree): what of them the tools may see, and the registries and mirrors they name.
//
// npm's user configuration (NPM_CONFIG_USERCONFIG, or ~/.npmrc, which the sandbox hides: it can hold
// tokens), pip's configuration files (PIP_CONFIG_FILE, the user's and the system's) and Maven's
// ~/.m2/settings.xml (hidden too) are shown to the tools in their place as copies with every secret left out
// (filter.ts); the client keys and certificates they name are
// hidden; the CA files they or the environment name (NODE_EXTRA_CA_CERTS, SSL_CERT_FILE…) are shown as they
// are, wherever they lie (a setup step may leave one in RUNNER_TEMP, which the sandbox hides), when they hold
// certificates alone. The registries they name are the runner's own: such a mirror may lead to a loopback or
// private address (policy.ts), which a registry the repository names may not.
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { mavenRules, rulesFromEnv } from '../discover.js';
import { ruleFromUrl, type HostRule } from '../hosts.js';
import type { ShownFile } from '../../sandbox/private-dirs.js';
import { filterSettings, isCertificateFile, settingValues, type SettingsKind } from './filter.js';

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

/** Where the runner's npm and pip read their settings, given its environment and HOME. */
export function settingsFiles(
  env: NodeJS.ProcessEnv,
  home: string | undefined,
): Array<{ kind: SettingsKind; file: string }> {
  const npm = env.NPM_CONFIG_USERCONFIG || env.npm_config_userconfig || (home && path.join(home, '.npmrc'));
  const config = env.XDG_CONFIG_HOME || (home && path.join(home, '.config'));
  const pip = [
    '/etc/pip.conf',
    ...(env.XDG_CONFIG_DIRS || '/etc/xdg').split(':').map((dir) => path.join(dir, 'pip', 'pip.conf')),
    ...(config ? [path.join(config, 'pip', 'pip.conf')] : []),
    ...(home ? [path.join(home, '.pip', 'pip.conf')] : []),
    ...(env.PIP_CONFIG_FILE && env.PIP_CONFIG_FILE !== '/dev/null' ? [env.PIP_CONFIG_FILE] : []),
  ];
  return [
    ...(npm ? [{ kind: 'npm' as const, file: npm }] : []),
    ...pip.map((file) => ({ kind: 'pip' as const, file })),
    ...(home ? [{ kind: 'maven' as const, file: path.join(home, '.m2', 'settings.xml') }] : []),
  ].filter(({ file }, i, all) => path.isAbsolute(file) && all.findIndex((one) => one.file === file) === i);
}

/** The registries a settings file names. */
function registries(kind: SettingsKind, text: string): HostRule[] {
  if (kind === 'maven') return mavenRules(text);
  const [key, source] =
    kind === 'npm'
      ? [/^(?:@[^:]+:)?registry$/, "the runner's npm settings"]
      : [/^(?:index[-_]url|extra[-_]index[-_]url|find[-_]links)$/, "the runner's pip settings"];
  return settingValues(kind, text, key).flatMap((value) =>
    value.split(/\s+/).flatMap((url) => ruleFromUrl(url, source) ?? []),
  );
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
  const caFiles = CA_VARIABLES.flatMap((name) => env[name] ?? []);
  for (const { kind, file } of settingsFiles(env, home)) {
    const text = (await outside(file)) ? await readSmall(file) : undefined;
    if (text === undefined) continue;
    const kept = filterSettings(kind, text);
    shown.push({ path: file, text: kept });
    rules.push(...registries(kind, text).map(runnerRule));
    if (kind === 'maven') continue;
    caFiles.push(...settingValues(kind, kept, kind === 'npm' ? /^cafile$/ : /^cert$/));
    const keys = kind === 'npm' ? /(?:^|:)(?:keyfile|certfile)$/ : /^client[-_]cert$/;
    hidden.push(...settingValues(kind, text, keys).filter((value) => path.isAbsolute(value)));
  }
  for (const file of new Set(caFiles)) {
    const text = (await outside(file)) ? await readSmall(file) : undefined;
    if (text !== undefined && isCertificateFile(text)) shown.push({ path: file, text, ifHidden: true });
  }
  rules.push(...rulesFromEnv(env).map(runnerRule));
  return { shown, hidden, rules };
}
