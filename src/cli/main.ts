// The local CLI's work: the same agent core as the action, in the current directory, with a live panel.
import { parseArgs } from 'node:util';
import { loadInstructions, type InstructionFile } from '../agent/briefing/instructions.js';
import { runAgent } from '../agent/loop.js';
import type { AgentOptions } from '../agent/options.js';
import { GitRepo } from '../git/repo.js';
import { childEnv } from '../sandbox/commands/child-env.js';
import { Model, type ModelOptions } from '../model/client.js';
import { endpointHost, providerProblem, type Provider } from '../model/providers.js';
import { parseAllowedHosts, ruleText, type HostRule } from '../network/hosts.js';
import { networkFact } from '../agent/briefing/prompt.js';
import { openWorkspace } from '../agent/workspace.js';
import type { Sandbox } from '../sandbox/namespaces.js';
import { CLI_SETTINGS, SandboxError } from '../sandbox/setup.js';
import { redactor } from '../text/redact.js';
import { secretValues } from '../settings/settings.js';
import { deprecatedToolNetwork, SETTING_RULES, type ToolNetworkSetting } from '../settings/parse.js';
import { openEventLog, type EventLog } from '../record/event-log.js';
import { openRunRecord, type RunRecord } from '../record/run-record.js';
import { printAnswer, printResult, stderr, stdout } from './output.js';
import { showCommand } from './show.js';
import { terminalReporter } from '../terminal/reporter.js';
import { isLocal, type McpConfig } from '../settings/mcp-servers.js';
import { Snapshot } from '../git/snapshot.js';
import { ToolRuntime } from '../runtime/tool-runtime.js';
import { mcpConfigFile, McpConfigError, startMcp } from './mcp.js';
import { optional, ruled, UsageError, wholeNumber } from './flags.js';
import { cliFederation, outputSchemaFile } from './keyless.js';

const USAGE = `Usage: todo-agent "<task>" [--max-turns N] [--bash-timeout S] [--reminder-rounds N] [--model ID] [--provider P]
                  [--base-url URL] [--max-context-tokens N] [--effort LEVEL] [--compaction auto|off]
                  [--price-per-mtok IN,OUT]
                  [--verify CMD] [--verify-attempts N] [--events FILE] [--transcript FILE]
                  [--tool-network allowlist|all|none] [--allowed-hosts LIST] [--no-sandbox]
                  [--mcp-config FILE] [--mcp-timeout S] [--output-schema FILE]
                  [--max-parallel-tasks N] [--task-max-turns N]
       todo-agent show FILE

Runs the agent on <task> in the current directory. --provider is anthropic (the default; needs
ANTHROPIC_API_KEY, or keyless ANTHROPIC_FEDERATION_RULE_ID, ANTHROPIC_ORGANIZATION_ID,
ANTHROPIC_SERVICE_ACCOUNT_ID and ANTHROPIC_IDENTITY_TOKEN_FILE; ANTHROPIC_BASE_URL for another endpoint), bedrock (AWS credentials and AWS_REGION)
or vertex (Google application default credentials, CLOUD_ML_REGION and ANTHROPIC_VERTEX_PROJECT_ID).
--max-context-tokens caps each request's prompt (default: the model's window); --effort is low, medium,
high, xhigh or max (default: the model's own); --compaction auto (the default) compacts a long run on the
server where the model offers it, off clears old tool results instead; --price-per-mtok prices a model the table lacks, in USD per
million input and output tokens. --verify runs CMD once every item is completed, and sends a failure back
to the model. --events writes every agent event to FILE as JSON Lines; --transcript writes the run record
(requests, responses, tool calls, usage, the result) to FILE as the action does, and \`todo-agent show FILE\`
prints a record as the terminal showed its run. Commands run in the same sandbox as
in the action when it can be built (as root, with passwordless sudo, or rootless); otherwise the CLI says so
and runs them directly. --tool-network allowlist (the default) lets them reach only the registries your
toolchains are configured with, GitHub's hosts and --allowed-hosts (comma-separated, *.example.com, host:port);
all lets them reach every host, none no host. --mcp-config adds the tools of the MCP servers FILE configures
(Claude Code's {"mcpServers": …} JSON, each server listing its tools), started in the sandbox as the action
starts them; --mcp-timeout is the seconds each has to start and to answer a call (default 60).
--output-schema ends the run with an answer matching the JSON Schema in FILE, printed alone on stdout (the
rest goes to stderr). The task tool runs helpers with lists of their own: up to --max-parallel-tasks explore
helpers side by side (default 3; 0: no task tool), each of at most --task-max-turns turns (default 40). Exits 0 when
every todo item is completed (and CMD passed), 1 when the run ends otherwise,
2 on bad usage.`;

const OPTIONS = {
  'max-turns': { type: 'string' },
  'bash-timeout': { type: 'string' },
  'reminder-rounds': { type: 'string' },
  model: { type: 'string' },
  provider: { type: 'string' },
  'base-url': { type: 'string' },
  'max-context-tokens': { type: 'string' },
  effort: { type: 'string' },
  compaction: { type: 'string' },
  'price-per-mtok': { type: 'string' },
  verify: { type: 'string' },
  'verify-attempts': { type: 'string' },
  events: { type: 'string' },
  transcript: { type: 'string' },
  'tool-network': { type: 'string' },
  'allowed-hosts': { type: 'string' },
  'no-sandbox': { type: 'boolean' },
  'mcp-config': { type: 'string' },
  'mcp-timeout': { type: 'string' },
  'output-schema': { type: 'string' },
  'max-parallel-tasks': { type: 'string' },
  'task-max-turns': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Flags = ReturnType<
  typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof OPTIONS }>
>['values'];

/** What the flags ask for, each read by the action's rule for its input. */
interface CliSettings {
  task: string;
  provider: Provider;
  limits: Pick<
    AgentOptions,
    'maxTurns' | 'bashTimeoutSeconds' | 'reminderRounds' | 'maxContextTokens' | 'tasks'
  >;
  model: Pick<ModelOptions, 'effort' | 'pricePerMtok' | 'compaction'>;
  verify?: { command: string; attempts: number };
  network: ToolNetworkSetting;
  allowedHosts: HostRule[];
  /** The MCP servers of --mcp-config, and the seconds of --mcp-timeout. */
  mcp?: McpConfig;
  mcpTimeoutSeconds: number;
  /** Keyless auth from the environment, when it is set up there. */
  auth?: Pick<ModelOptions, 'federation'>;
}

/** The provider named by --provider (the action's default when none is), once its credentials are there. */
function providerFlag(value: string | undefined, keyless: boolean): Provider {
  const provider = ruled(value ?? '', 'provider', SETTING_RULES.provider);
  if (provider === 'anthropic' && !process.env.ANTHROPIC_API_KEY && !keyless)
    throw new UsageError('ANTHROPIC_API_KEY is not set');
  const problem = providerProblem(provider, process.env);
  if (problem) throw new UsageError(problem);
  return provider;
}

/** Every flag read and checked before anything runs. */
function readFlags(values: Flags, positionals: string[]): CliSettings {
  const task = positionals.join(' ').trim();
  if (!task) throw new UsageError('no task given');
  const auth = cliFederation(process.env);
  if (auth && 'problem' in auth) throw new UsageError(auth.problem);
  const provider = providerFlag(values.provider, auth !== undefined);
  const limits = {
    maxTurns: wholeNumber('max-turns', values['max-turns'], 'max_turns'),
    bashTimeoutSeconds: wholeNumber('bash-timeout', values['bash-timeout'], 'bash_timeout'),
    reminderRounds: wholeNumber('reminder-rounds', values['reminder-rounds'], 'reminder_rounds'),
    tasks: {
      maxParallel: wholeNumber('max-parallel-tasks', values['max-parallel-tasks'], 'max_parallel_tasks'),
      maxTurns: wholeNumber('task-max-turns', values['task-max-turns'], 'task_max_turns'),
    },
  };
  const maxContextTokens = optional(
    values['max-context-tokens'],
    'max_context_tokens',
    SETTING_RULES.max_context_tokens,
  );
  const effort = optional(values.effort, 'effort', SETTING_RULES.effort);
  const compaction = ruled(values.compaction ?? '', 'compaction', SETTING_RULES.compaction);
  const pricePerMtok = optional(values['price-per-mtok'], 'price_per_mtok', SETTING_RULES.price_per_mtok);
  const attempts = wholeNumber('verify-attempts', values['verify-attempts'], 'verify_attempts');
  const command = values.verify?.trim();
  return {
    task,
    provider,
    limits: { ...limits, ...(maxContextTokens ? { maxContextTokens } : {}) },
    model: { ...(effort ? { effort } : {}), ...(pricePerMtok ? { pricePerMtok } : {}), compaction },
    ...(command ? { verify: { command, attempts } } : {}),
    network: ruled(values['tool-network'] ?? '', 'tool_network', SETTING_RULES.tool_network),
    allowedHosts: allowedHostsFlag(values['allowed-hosts'] ?? ''),
    ...(values['mcp-config'] === undefined ? {} : { mcp: mcpConfigFile(values['mcp-config']) }),
    mcpTimeoutSeconds: wholeNumber('mcp-timeout', values['mcp-timeout'], 'mcp_timeout'),
    ...(auth ? { auth } : {}),
  };
}

/** --allowed-hosts, read as the allowed_hosts input is. */
function allowedHostsFlag(value: string): HostRule[] {
  const parsed = parseAllowedHosts(value);
  if ('problem' in parsed) throw new UsageError(parsed.problem.replace('allowed_hosts', '--allowed-hosts'));
  return parsed.rules;
}

/** A file a flag names, opened now: a path that cannot be written is bad usage, before any run. */
function openFor<T>(flag: string, path: string, open: (path: string) => T): T {
  try {
    return open(path);
  } catch (error) {
    throw new UsageError(
      `--${flag}: cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
}

/**
 * The tools' runtime: the action's sandbox where it can be built here (unless --no-sandbox), with its network
 * gate under the allowlist; otherwise a line on stderr saying why not, and none.
 */
async function openRuntime(
  { network, allowedHosts, provider }: CliSettings,
  values: Flags,
  { workspace, secrets, snapshot }: { workspace: string; secrets: string[]; snapshot: Snapshot },
): Promise<ToolRuntime> {
  const say = (line: string) => stderr.print(`todo-agent: ${line}\n`);
  const model = endpointHost(provider, values['base-url'] || process.env.ANTHROPIC_BASE_URL);
  const request = {
    network,
    allowedHosts,
    gate: {
      toolchains: snapshot
        .projectFiles()
        .then((projectFiles) => ({ env: childEnv(process.env, secrets), projectFiles })),
      github: {
        serverUrl: process.env.GITHUB_SERVER_URL || 'https://github.com',
        apiUrl: process.env.GITHUB_API_URL || 'https://api.github.com',
      },
      guarded: model ? [{ host: model, what: "the model's API endpoint" }] : [],
      env: childEnv(process.env, secrets),
    },
    ...(process.env.HOME ? { home: process.env.HOME } : {}),
  };
  if (values['no-sandbox']) return await ToolRuntime.open(workspace, request);
  let runtime: ToolRuntime;
  try {
    runtime = await ToolRuntime.open(workspace, { ...request, sandbox: { warn: say, names: CLI_SETTINGS } });
  } catch (error) {
    if (!(error instanceof SandboxError)) throw error;
    stderr.print(
      `todo-agent: no sandbox for the commands (${error.message}); they run directly, with the host's network.\n`,
    );
    if (network === 'none') throw new UsageError('--tool-network none needs the sandbox');
    return await ToolRuntime.open(workspace, request);
  }
  void runtime.gate?.allowlist.then((list) =>
    say(`network allowlist: ${list.rules.map(ruleText).join(', ')}${incomplete(list.unanswered)}`),
  );
  return runtime;
}

/** What an allowlist made before every toolchain answered lacks (empty for a complete one). */
export function incomplete(unanswered: readonly string[] = []): string {
  return unanswered.length > 0
    ? ` (incomplete: ${unanswered.join(', ')} had not said which registries they use, so theirs are not in it)`
    : '';
}

/** The instruction files as HEAD has them (not as the model edits them); none outside a git repository. */
async function committedInstructions(dir: string): Promise<InstructionFile[]> {
  const git = new GitRepo(dir, { env: childEnv(process.env) });
  try {
    const head = await git.resolve('HEAD');
    return head ? await loadInstructions((path) => git.fileAt(head, path)) : [];
  } catch {
    return []; // no git here
  }
}

export async function main(argv: string[]): Promise<number> {
  // `show` as the first word is the command; a task that starts with the word is quoted as one argument.
  if (argv[0] === 'show') return await showCommand(argv.slice(1), USAGE);
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    stderr.print(`todo-agent: ${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    stdout.print(`${USAGE}\n`);
    return 0;
  }
  try {
    const settings = readFlags(values, positionals);
    const schema = values['output-schema'] && (await outputSchemaFile(values['output-schema']));
    if (schema && 'problem' in schema) throw new UsageError(schema.problem);
    // With a schema, stdout holds the answer alone: everything else goes to stderr.
    const out = schema ? stderr : stdout;
    // The key and any secret-named variable stay out of the terminal and the event log, as in the action.
    const secrets = [...secretValues(process.env), ...(settings.mcp?.secrets ?? [])];
    for (const secret of secrets) redactor.add(secret);
    const redact = (text: string) => redactor.redact(text);
    const events =
      values.events === undefined
        ? undefined
        : openFor('events', values.events, (path) => openEventLog(path, redact));
    const record =
      values.transcript === undefined
        ? undefined
        : openFor('transcript', values.transcript, (path) => openRunRecord(path, redact));
    record?.start({ task: settings.task, source: 'cli', ...(values.model ? { model: values.model } : {}) });
    const stop = stopOnSignals();
    const workspace = await openWorkspace(process.cwd());
    const old = deprecatedToolNetwork(values['tool-network'] ?? '');
    if (old) stderr.print(`todo-agent: warning: ${old.replace('tool_network', '--tool-network')}\n`);
    // The working directory as the run starts: what the trusted side reads of it (src/git/snapshot.ts).
    const snapshot = await Snapshot.take({
      workspace,
      kind: 'directory',
      copy: settings.mcp?.servers.some(isLocal) ?? false,
      env: childEnv(process.env, secrets),
    });
    const runtime = await openRuntime(settings, values, { workspace, secrets, snapshot }).catch(
      async (error: unknown) => {
        await snapshot.remove();
        throw error;
      },
    );
    const { sandbox } = runtime;
    // The copy (made beside the sandbox's build) is whole before any server or tool can write to the directory.
    await snapshot.copyDone();
    const mcp = startMcp(settings.mcp, settings.mcpTimeoutSeconds, { runtime, secrets, snapshot });
    const run = (async () =>
      runAgent({
        ...(await agentOptions(values, settings, { workspace, sandbox, secrets, events, record, stop, out })),
        ...(mcp ? { outside: mcp } : {}),
        ...(schema ? { outputSchema: schema } : {}),
      }))();
    // Every line reaches the file, however the run ended; no server outlives it.
    const result = await run.finally(async () => {
      events?.close();
      await runtime.close();
      await snapshot.remove();
    });
    record?.result({ status: result.status, reason: result.reason });
    await record?.close();
    printResult(result, out);
    if (schema) return printAnswer(result);
    return result.status === 'completed' ? 0 : 1;
  } catch (error) {
    if (error instanceof UsageError || error instanceof McpConfigError) {
      stderr.print(`todo-agent: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    stderr.print(`todo-agent: ${(error as Error).message}\n`);
    return 1;
  }
}

/** What the run works with besides the flags: where, in which sandbox, what it hides and who watches. */
interface RunPlace {
  workspace: string;
  sandbox: Sandbox | undefined;
  secrets: string[];
  events: EventLog | undefined;
  record: RunRecord | undefined;
  /** Aborted by Ctrl-C or SIGTERM. */
  stop: AbortController;
  /** Where the run's progress is printed: stdout, or stderr when stdout is the answer's. */
  out: typeof stdout;
}

/**
 * Ctrl-C (SIGINT) and SIGTERM (`kill`, `timeout`) stop the run as a cancel does in the action: the run ends
 * cancelled and says so, and the sandbox is closed, its directories removed, before the CLI exits.
 */
function stopOnSignals(): AbortController {
  const controller = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => controller.abort());
  return controller;
}

/** The agent's options from the flags. */
async function agentOptions(
  values: Flags,
  settings: CliSettings,
  { workspace, sandbox, secrets, events, record, stop, out }: RunPlace,
): Promise<AgentOptions> {
  const { verify } = settings;
  return {
    task: settings.task,
    facts: {
      date: new Date().toISOString().slice(0, 10),
      freshCheckout: false,
      ...(verify ? { verifyCommand: verify.command } : {}),
      ...networkFact(sandbox?.config.network, sandbox?.config.names),
    },
    instructions: await committedInstructions(process.cwd()),
    ...(verify ? { verify } : {}),
    ...(sandbox ? { sandbox } : {}),
    model: new Model({
      provider: settings.provider,
      model: values.model,
      baseURL: values['base-url'],
      ...settings.model,
      ...settings.auth,
      onNotice: (message) => stderr.print(`todo-agent: warning: ${message}\n`),
    }),
    workspace,
    ...settings.limits,
    signal: stop.signal,
    redaction: redactor,
    secrets,
    observers: [
      terminalReporter(out),
      ...(events ? [events.observer] : []),
      ...(record ? [record.observer] : []),
    ],
  };
}
