// Each toolchain's user settings as the runner has them: where the files are, what of them the tools may see,
// the CA files and client keys they name, and the registries they name. Each toolchain's own documentation
// says where it reads them; none of their keys is guessed here (a key is judged by what its name says).
import path from 'node:path';
import { goRules, mavenRules } from '../discover.js';
import { ruleFromUrl, type HostRule } from '../hosts.js';
import { expandNpm, expandYarn } from './expand.js';
import { filterSettings, isSecretKey, settingEntries, settingValues } from './filter.js';
import { filterLines, lineValues } from './lines.js';
import { hasSecretProperty, isSecretName } from './secret-keys.js';
import { filterToml, tomlValues } from './toml.js';
import { filterYaml, yamlEntries, yamlValues } from './yaml.js';

export type ToolchainName =
  'npm' | 'pip' | 'maven' | 'yarn' | 'yarn-classic' | 'gradle' | 'cargo' | 'go' | 'gem';

export interface Toolchain {
  name: ToolchainName;
  /** Where the runner's settings files are, given its environment and HOME (any may be missing). */
  files(env: NodeJS.ProcessEnv, home: string | undefined): string[];
  /** Further paths the sandbox hides whole (Gradle's init scripts: code, which no filter can judge). */
  hidden?(env: NodeJS.ProcessEnv, home: string | undefined): string[];
  /** The file as the tools see it. */
  filter(text: string): string;
  /**
   * The CA files the kept settings name, their variables resolved (undefined: not resolved), each with the
   * index of the line of `kept` that names it where a variable was resolved.
   */
  caFiles(
    kept: string,
    env: NodeJS.ProcessEnv,
  ): Array<{ raw: string; file: string | undefined; line?: number }>;
  /** The client keys and certificates the settings name: hidden. */
  clientKeys(text: string, env: NodeJS.ProcessEnv): string[];
  /** The registries the kept settings name. */
  registries(kept: string, env: NodeJS.ProcessEnv): HostRule[];
  /** Where a relative path in the file is read from (cargo's: the folder above the config's). */
  relativeTo?(file: string): string;
}

const asIs = (values: string[]) => values.map((raw) => ({ raw, file: raw }));
const urls = (values: string[], source: string) => values.flatMap((url) => ruleFromUrl(url, source) ?? []);
const configHome = (env: NodeJS.ProcessEnv, home: string | undefined) =>
  env.XDG_CONFIG_HOME || (home && path.join(home, '.config'));
const gradleHome = (env: NodeJS.ProcessEnv, home: string | undefined) =>
  env.GRADLE_USER_HOME || (home && path.join(home, '.gradle'));
const cargoHome = (env: NodeJS.ProcessEnv, home: string | undefined) =>
  env.CARGO_HOME || (home && path.join(home, '.cargo'));
const within = (dir: string | undefined, ...names: string[]) =>
  dir ? names.map((name) => path.join(dir, name)) : [];

export const TOOLCHAINS: readonly Toolchain[] = [
  {
    name: 'npm',
    files: (env, home) => [
      env.NPM_CONFIG_USERCONFIG || env.npm_config_userconfig || (home ? path.join(home, '.npmrc') : ''),
    ],
    filter: (text) => filterSettings('npm', text),
    caFiles: (kept, env) =>
      settingEntries('npm', kept, /^cafile$/).map(({ value: raw, line }) => ({
        raw,
        file: expandNpm(raw, env),
        line,
      })),
    clientKeys: (text, env) =>
      settingValues('npm', text, /(?:^|:)(?:keyfile|certfile)$/).map((value) => expandNpm(value, env)),
    registries: (kept, env) =>
      urls(
        settingValues('npm', kept, /^(?:@[^:]+:)?registry$/).map((value) => expandNpm(value, env)),
        "the runner's npm settings",
      ),
  },
  {
    name: 'pip',
    files: (env, home) => [
      '/etc/pip.conf',
      ...(env.XDG_CONFIG_DIRS || '/etc/xdg').split(':').map((dir) => path.join(dir, 'pip', 'pip.conf')),
      ...within(configHome(env, home), 'pip/pip.conf'),
      ...within(home, '.pip/pip.conf'),
      ...(env.PIP_CONFIG_FILE && env.PIP_CONFIG_FILE !== '/dev/null' ? [env.PIP_CONFIG_FILE] : []),
    ],
    filter: (text) => filterSettings('pip', text),
    caFiles: (kept) => asIs(settingValues('pip', kept, /^cert$/)),
    clientKeys: (text) => settingValues('pip', text, /^client[-_]cert$/),
    registries: (kept) =>
      urls(
        settingValues('pip', kept, /^(?:index[-_]url|extra[-_]index[-_]url|find[-_]links)$/).flatMap(
          (value) => value.split(/\s+/),
        ),
        "the runner's pip settings",
      ),
  },
  {
    name: 'maven',
    files: (_env, home) => within(home, '.m2/settings.xml'),
    filter: (text) => filterSettings('maven', text),
    caFiles: () => [],
    clientKeys: () => [],
    registries: (kept) => mavenRules(kept),
  },
  {
    // yarn 2 and later ("berry"): the home folder's `.yarnrc.yml` (YARN_RC_FILENAME renames it).
    name: 'yarn',
    files: (env, home) =>
      within(home, '.yarnrc.yml', ...(env.YARN_RC_FILENAME ? [env.YARN_RC_FILENAME] : [])),
    // `npmAlwaysAuth` stays: it holds no login.
    filter: (text) => filterYaml(text, (key) => isSecretName('yarn', key)),
    caFiles: (kept, env) =>
      yamlEntries(kept, /^(?:caFilePath|httpsCaFilePath)$/).map(({ value: raw, line }) => ({
        raw,
        file: expandYarn(raw, env),
        line,
      })),
    clientKeys: (text, env) =>
      yamlValues(text, /^https(?:Cert|Key)FilePath$/).flatMap((value) => expandYarn(value, env) ?? []),
    registries: (kept, env) =>
      urls(
        yamlValues(kept, /^npmRegistryServer$/, true).flatMap((value) => expandYarn(value, env) ?? []),
        "the runner's yarn settings",
      ),
  },
  {
    // yarn 1 ("classic"): `~/.yarnrc`, lines of `key value` (it reads `~/.npmrc` too).
    name: 'yarn-classic',
    files: (_env, home) => within(home, '.yarnrc'),
    filter: (text) => filterLines('yarnrc', text, (key) => isSecretKey('npm', key)),
    caFiles: (kept) => asIs(lineValues('yarnrc', kept, /^cafile$/)),
    clientKeys: () => [],
    registries: (kept) =>
      urls(lineValues('yarnrc', kept, /^(?:@[^:]+:)?registry$/), "the runner's yarn settings"),
  },
  {
    // GRADLE_USER_HOME (default ~/.gradle): its gradle.properties filtered; its init scripts hidden whole.
    name: 'gradle',
    files: (env, home) => within(gradleHome(env, home), 'gradle.properties'),
    hidden: (env, home) => within(gradleHome(env, home), 'init.gradle', 'init.gradle.kts', 'init.d'),
    // A value may carry system properties too (`org.gradle.jvmargs=-Dhttp.proxyPassword=…`): judged alike.
    filter: (text) =>
      filterLines(
        'properties',
        text,
        (key, value) => isSecretName('gradle', key) || hasSecretProperty(value),
      ),
    // A Java trust store is a binary key store, not a PEM file: it stays where it is (see docs/network.md).
    caFiles: () => [],
    clientKeys: (text) => lineValues('properties', text, /^systemProp\.javax\.net\.ssl\.keyStore$/),
    registries: (kept) =>
      urls(
        lineValues('properties', kept, /./).filter((value) => /^https?:\/\//i.test(value)),
        "the runner's Gradle properties",
      ),
  },
  {
    // CARGO_HOME (default ~/.cargo): config.toml, or its older name config; its credentials stay hidden.
    name: 'cargo',
    files: (env, home) => within(cargoHome(env, home), 'config.toml', 'config'),
    hidden: (env, home) => within(cargoHome(env, home), 'credentials', 'credentials.toml'),
    filter: filterToml,
    caFiles: (kept) => asIs(tomlValues(kept, /^cainfo$/)),
    clientKeys: () => [],
    registries: (kept) => urls(tomlValues(kept, /^(?:index|registry)$/), "the runner's cargo settings"),
    relativeTo: (file) => path.dirname(path.dirname(file)),
  },
  {
    // `go env -w` writes GOENV, by default the user's config folder's go/env.
    name: 'go',
    files: (env, home) =>
      env.GOENV ? (env.GOENV === 'off' ? [] : [env.GOENV]) : within(configHome(env, home), 'go/env'),
    filter: (text) => filterLines('goenv', text, (key) => isSecretName('go', key)),
    caFiles: () => [],
    clientKeys: () => [],
    registries: (kept) =>
      goRules(
        `${lineValues('goenv', kept, /^GOPROXY$/).at(-1) ?? ''}\n${lineValues('goenv', kept, /^GOSUMDB$/).at(-1) ?? ''}`,
      ).map((rule) => ({ ...rule, source: "the runner's Go settings" })),
  },
  {
    // RubyGems: /etc/gemrc, ~/.gemrc (or the XDG config's gem/gemrc), and the files GEMRC lists.
    name: 'gem',
    files: (env, home) => [
      '/etc/gemrc',
      ...within(home, '.gemrc'),
      ...within(configHome(env, home), 'gem/gemrc'),
      ...(env.GEMRC ? env.GEMRC.split(':') : []),
    ],
    filter: (text) => filterYaml(text, (key) => isSecretName('gem', key)),
    caFiles: (kept) => asIs(yamlValues(kept, /^:ssl_ca_cert$/)),
    clientKeys: (text) => yamlValues(text, /^:ssl_client_cert$/),
    registries: (kept) => urls(yamlValues(kept, /^:sources$/), "the runner's RubyGems settings"),
  },
];
