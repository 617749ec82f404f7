// The default allowlist's registries: the hosts the runner's toolchains are set to use, asked of the
// toolchains themselves at the start of the run, never a copy of any registry's name. An organization whose
// runners use a mirror of their own (an Artifactory, a Nexus, a pull-through cache) is then allowed as it is.
//
// The project's own settings count (a project's .npmrc names its scoped registry), as the trusted snapshot
// has them (src/git/snapshot.ts: the base commit's, or what an earlier step left), never the work tree's: they are
// written into a directory of the probe's own, where every toolchain is asked as the tools' user, in a
// sandbox of the probe's own beside the tools' (sandbox/setup.ts openSibling, `hidden`): the runner's
// settings shown as the tools see them, but HOME, the tool cache, /tmp and /var/tmp of its own, the work tree
// hidden and no network at all, so that nothing a command writes reaches what the toolchains read, and a
// command need not wait for their answers. With no network settings (no proxy), Python isolated (no module
// of the working directory, no PYTHON* variable), all at once, each with a short timeout. The runner's own
// settings are read on the trusted side (runner/settings.ts).
import type { Sandbox } from '../sandbox/namespaces.js';
import { runCommand } from '../sandbox/commands/run-command.js';
import { openSibling } from '../sandbox/setup.js';
import { ruleFromUrl, type HostRule } from './hosts.js';

/** How long one toolchain may take to answer. */
const PROBE_SECONDS = 8;
/** More rules than this from the toolchains' answers are left out (the log says so). */
export const MAX_DISCOVERED = 200;

/**
 * Each toolchain asked at once, its answer kept in a file of its own and printed after a header line. pip is
 * asked for its configuration (its variables included) and, for the index it uses when none is configured,
 * its own default; Go with GOTOOLCHAIN=local, so a go.mod asking for a newer toolchain starts no download.
 */
export const PROBES = String.raw`
d=$(mktemp -d) && p=$(mktemp -d) || exit 1
trap 'rm -rf "$d" "$p"' EXIT
i=0
for f in $TODO_AGENT_PROJECT_FILES; do
  mkdir -p "$p/$(dirname "$f")"
  printenv "TODO_AGENT_PROJECT_FILE_$i" > "$p/$f"
  i=$((i + 1))
done
cd "$p" || exit 1
export PYTHONSAFEPATH=1
unset TODO_AGENT_PROJECT_FILES
ask() {
  name=$1; shift
  { timeout -k 1 ${PROBE_SECONDS} "$@" > "$d/$name" 2>/dev/null < /dev/null
    s=$?; if [ "$s" -eq 124 ] || [ "$s" -eq 137 ]; then echo "$name" >> "$d/.late"; fi; } &
}
ask npm npm config list --json
ask pip sh -c 'python3 -I -m pip config list 2>/dev/null || pip3 config list 2>/dev/null || pip config list'
ask pypi sh -c 'for py in python3 python; do "$py" -I -c "from pip._internal.models.index import PyPI as i; print(i.simple_url); print(\"https://\" + i.file_storage_domain + \"/\")" 2>/dev/null && break; done'
ask go env GOTOOLCHAIN=local GOFLAGS= go env GOPROXY GOSUMDB
ask gem gem sources --list
ask cargo sh -c 'd=$PWD; while :; do cat "$d/.cargo/config.toml" "$d/.cargo/config" 2>/dev/null; [ "$d" = / ] && break; d=$(dirname "$d"); done; h=${'$'}{CARGO_HOME:-$HOME/.cargo}; cat "$h/config.toml" "$h/config" 2>/dev/null'
ask apt sh -c 'cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null'
ask maven sh -c 'cat "${'$'}{MAVEN_HOME:-/usr/share/maven}/conf/settings.xml" .mvn/settings.xml 2>/dev/null'
wait
for f in "$d"/*; do printf '\n@@todo-agent-probe %s\n' "${'$'}{f##*/}"; head -c 262144 "$f"; done
printf '\n@@todo-agent-probe late\n'; cat "$d/.late" 2>/dev/null
`;

/** The toolchains' answers, by probe name. */
export function probeSections(output: string): Map<string, string> {
  const sections = new Map<string, string>();
  const parts = output.split(/^@@todo-agent-probe (\w+)$/m);
  for (let i = 1; i + 1 < parts.length; i += 2) sections.set(parts[i]!, parts[i + 1]!.trim());
  return sections;
}

/** Every URL-looking word of `text`, each as a rule with `source`. */
function urlRules(text: string, source: string): HostRule[] {
  return (text.match(/\b(?:sparse\+)?https?:\/\/[^\s'"<>,;|)]+/g) ?? []).flatMap(
    (url) => ruleFromUrl(url, source) ?? [],
  );
}

/** npm: the registry and each scope's (`@scope:registry`), from `npm config list --json`. */
function npmRules(text: string): HostRule[] {
  let config: Record<string, unknown>;
  try {
    config = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return [];
  }
  return Object.entries(config).flatMap(([key, value]) => {
    if (typeof value !== 'string') return [];
    if (key === 'registry') return ruleFromUrl(value, 'npm registry') ?? [];
    const scope = /^(@[^:]+):registry$/.exec(key)?.[1];
    return scope ? (ruleFromUrl(value, `npm registry of ${scope}`) ?? []) : [];
  });
}

/** pip: its index and extra indexes and find-links URLs; its own default index when none is configured. */
function pipRules(config: string, defaults: string): HostRule[] {
  const values = (name: string) =>
    [...config.matchAll(new RegExp(`^[\\w:.-]*\\.${name}='([^']*)'`, 'gm'))].map((m) => m[1]!);
  const configured = [
    ...values('index-url').flatMap((v) => urlRules(v, 'pip index')),
    ...values('extra-index-url').flatMap((v) => urlRules(v, 'pip extra index')),
    ...values('find-links').flatMap((v) => urlRules(v, 'pip find-links')),
  ];
  const ownIndex =
    values('index-url').length > 0 || values('no-index').some((v) => /^(1|true|yes|on)$/i.test(v));
  return [...(ownIndex ? [] : urlRules(defaults, "pip's default index")), ...configured];
}

/** Go: each proxy of GOPROXY, and the checksum database GOSUMDB names (by its URL, or its name). */
export function goRules(text: string): HostRule[] {
  const [proxies = '', sumdb = ''] = text.split('\n').map((line) => line.trim());
  const rules = urlRules(proxies.replace(/[|,]/g, ' '), 'GOPROXY');
  if (sumdb && sumdb !== 'off') {
    const [name = '', url] = sumdb.split(/\s+/);
    rules.push(...(url ? urlRules(url, 'GOSUMDB') : urlRules(`https://${name.split('+')[0]}/`, 'GOSUMDB')));
  }
  return rules;
}

/** apt: the URIs of one-line (`deb [options] URI …`) and deb822 (`URIs: …`) sources. */
function aptRules(text: string): HostRule[] {
  const oneLine = [...text.matchAll(/^\s*deb(?:-src)?\s+(?:\[[^\]]*\]\s+)?(\S+)/gm)].map((m) => m[1]!);
  const deb822 = [...text.matchAll(/^URIs:\s*(.+)$/gim)].map((m) => m[1]!);
  return [...oneLine, ...deb822].flatMap((uris) => urlRules(uris, 'apt source'));
}

/**
 * Maven: the URL of each mirror and repository of a settings.xml, its commented-out examples and the mirrors
 * it marks `<blocked>` (Maven's stock settings carry one at 0.0.0.0) left out.
 */
export function mavenRules(xml: string): HostRule[] {
  const uncommented = withoutSpans(xml, '<!--', '-->', () => true);
  const live = withoutSpans(uncommented, '<mirror>', '</mirror>', (mirror) =>
    /<blocked>\s*true\s*<\/blocked>/.test(mirror),
  );
  return [...live.matchAll(/<url>\s*([^<\s]+)\s*<\/url>/g)].flatMap((m) => urlRules(m[1]!, 'Maven settings'));
}

/**
 * `text` without each span from an `open` to the first `close` after it that `drop` picks; an `open` with no
 * `close` after it stays. Linear: each search starts where the last span ended, so no character is scanned
 * twice by indexOf, and `drop` sees each character of `text` at most once (the spans do not overlap).
 */
function withoutSpans(text: string, open: string, close: string, drop: (span: string) => boolean): string {
  let kept = '';
  let from = 0;
  for (;;) {
    const start = text.indexOf(open, from);
    const end = start < 0 ? -1 : text.indexOf(close, start + open.length);
    if (end < 0) return kept + text.slice(from);
    const after = end + close.length;
    kept += text.slice(from, drop(text.slice(start, after)) ? start : after);
    from = after;
  }
}

/** What the toolchains answered, read into rules. */
export function rulesFromProbes(output: string): HostRule[] {
  const sections = probeSections(output);
  const get = (name: string) => sections.get(name) ?? '';
  return [
    ...npmRules(get('npm')),
    ...pipRules(get('pip'), get('pypi')),
    ...goRules(get('go')),
    ...urlRules(get('gem').replace(/\*\*\*.*\*\*\*/g, ''), 'RubyGems source'),
    ...[...get('cargo').matchAll(/^\s*(?:index|registry)\s*=\s*"([^"]+)"/gm)].flatMap((m) =>
      urlRules(m[1]!, 'cargo registry'),
    ),
    ...aptRules(get('apt')),
    ...mavenRules(get('maven')),
  ];
}

/** Variables that name an index or registry for a toolchain (uv's, cargo's, yarn's, Go's, pip's). */
export function rulesFromEnv(env: NodeJS.ProcessEnv): HostRule[] {
  const named: Array<[RegExp, string]> = [
    [/^PIP_(EXTRA_)?INDEX_URL$/, 'pip index'],
    [/^UV_(DEFAULT_INDEX|INDEX|INDEX_URL|EXTRA_INDEX_URL)$/, 'uv index'],
    [/^CARGO_REGISTRIES_\w+_INDEX$/, 'cargo registry'],
    [/^YARN_NPM_REGISTRY_SERVER$/, 'yarn registry'],
    [/^GOPROXY$/, 'GOPROXY'],
  ];
  return Object.entries(env).flatMap(([name, value]) => {
    const source = named.find(([pattern]) => pattern.test(name))?.[1];
    return source && value ? urlRules(value.replace(/[|,]/g, ' '), source) : [];
  });
}

/** A project file's path as the probe writes it: relative, plain, never leaving its directory. */
const PROJECT_PATH = /^(?!\.\.?\/)(?:[\w.-]+\/)*[\w.-]+$/;

/** The toolchains the probe asks, as a list of those that had not answered names them. */
const TOOLCHAINS = ['npm', 'pip', 'go', 'gem', 'cargo', 'apt', 'maven'];

/**
 * The toolchains that had not answered in time (`pypi`, pip's own default, counted as pip); all of them when
 * the probe gave no answer at all (the sandbox closed first, or the call failed).
 */
export function unansweredToolchains(output: string | undefined): string[] {
  if (output === undefined || !output.includes('@@todo-agent-probe late')) return TOOLCHAINS;
  const late = (probeSections(output).get('late') ?? '')
    .split('\n')
    .map((name) => (name === 'pypi' ? 'pip' : name));
  return TOOLCHAINS.filter((name) => late.includes(name));
}

/** What the toolchains are asked with: the tools' environment (no secret in it) and the project's files. */
export interface ToolchainQuestion {
  env: NodeJS.ProcessEnv;
  /** Path → text, as the trusted snapshot has them (src/git/snapshot.ts), never the work tree's. */
  projectFiles?: Readonly<Record<string, string>>;
}

/**
 * Asks the toolchains in a sandbox of their own beside `tools` (the tools' sandbox), built while `question`
 * is still being made, in a directory that holds the project files alone; the rules their answers name, and
 * the toolchains that had not answered (all when that sandbox cannot be built or the call fails). Rejects
 * only when `question` does.
 */
export async function askToolchains(
  tools: Sandbox,
  question: ToolchainQuestion | Promise<ToolchainQuestion>,
  stop?: AbortSignal,
): Promise<{ rules: HostRule[]; unanswered: string[] }> {
  const probes = openSibling(tools, undefined, 'hidden').catch(() => undefined);
  let asked: ToolchainQuestion | undefined;
  try {
    asked = await untilStopped(question, stop);
  } catch (error) {
    (await probes)?.close();
    throw error;
  }
  if (!asked || stop?.aborted) {
    // The run closed its tools first: nothing is asked, and the probes' sandbox goes with them.
    (await probes)?.close();
    return { rules: [], unanswered: unansweredToolchains(undefined) };
  }
  const files = Object.entries(asked.projectFiles ?? {}).filter(
    ([file]) => PROJECT_PATH.test(file) && !file.split('/').includes('..'),
  );
  const sandbox = await probes;
  if (sandbox && stop?.aborted) sandbox.close();
  const result =
    sandbox &&
    !stop?.aborted &&
    (await runCommand(PROBES, {
      cwd: '/',
      env: {
        ...asked.env,
        TODO_AGENT_PROJECT_FILES: files.map(([file]) => file).join(' '),
        ...Object.fromEntries(files.map(([, text], i) => [`TODO_AGENT_PROJECT_FILE_${i}`, text])),
      },
      timeoutMs: (PROBE_SECONDS + 5) * 1000,
      sandbox,
      networkEnv: false,
      limit: 2_000_000,
      ...(stop ? { signal: stop } : {}),
    })
      .catch(() => undefined)
      .finally(() => sandbox.close()));
  return {
    rules: result ? rulesFromProbes(result.output) : [],
    unanswered: unansweredToolchains(result ? result.output : undefined),
  };
}

/** `question`, or undefined as soon as `stop` aborts (a question never answered must not hold the probes). */
function untilStopped<T>(question: T | Promise<T>, stop: AbortSignal | undefined): Promise<T | undefined> {
  if (!stop) return Promise.resolve(question);
  if (stop.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onStop = () => resolve(undefined);
    stop.addEventListener('abort', onStop, { once: true });
    Promise.resolve(question).then(
      (value) => {
        stop.removeEventListener('abort', onStop);
        resolve(value);
      },
      (error: unknown) => {
        stop.removeEventListener('abort', onStop);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
