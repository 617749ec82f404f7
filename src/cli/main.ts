// The local CLI's work: the same agent core as the action, in the current directory, with a live panel.
import { parseArgs } from 'node:util';
import { loadInstructions, type InstructionFile } from '../agent/instructions.js';
import { runAgent } from '../agent/loop.js';
import { GitRepo } from '../git/repo.js';
import { childEnv } from '../sandbox/child-env.js';
import { Model } from '../model/client.js';
import { PROVIDERS, providerProblem, type Provider } from '../model/providers.js';
import { openWorkspace } from '../agent/workspace.js';
import type { Sandbox } from '../sandbox/namespaces.js';
import { openSandbox, SandboxError } from '../sandbox/setup.js';
import { renderPanel, shouldColor } from '../terminal/panel.js';
import { redactor } from '../text/redact.js';
import {
  NUMBER_SETTINGS,
  parseContextTokens,
  parseEffort,
  parsePricePerMtok,
  parseWholeNumber,
  secretValues,
  SETTING_PROBLEMS,
} from '../settings/settings.js';
import { openEventLog, type EventLog } from '../terminal/event-log.js';
import { terminalReporter } from '../terminal/reporter.js';

const USAGE = `Usage: todo-agent "<task>" [--max-turns N] [--bash-timeout S] [--reminder-rounds N] [--model ID] [--provider P]
                  [--base-url URL] [--max-context-tokens N] [--effort LEVEL] [--price-per-mtok IN,OUT]
                  [--verify CMD] [--verify-attempts N] [--events FILE] [--tool-network allow|none] [--no-sandbox]

Runs the agent on <task> in the current directory. --provider is anthropic (the default; needs
ANTHROPIC_API_KEY, and ANTHROPIC_BASE_URL for another endpoint), bedrock (AWS credentials and AWS_REGION)
or vertex (Google application default credentials, CLOUD_ML_REGION and ANTHROPIC_VERTEX_PROJECT_ID).
--max-context-tokens caps each request's prompt (default: the model's window); --effort is low, medium,
high, xhigh or max (default: the model's own); --price-per-mtok prices a model the table lacks, in USD per
million input and output tokens. --verify runs CMD once every item is completed, and sends a failure back
to the model. --events writes every agent event to FILE as JSON Lines. Commands run in the same sandbox as
in the action when it can be built (as root, or with passwordless sudo); otherwise the CLI says so and runs
them directly. Exits 0 when every todo item is completed (and CMD passed), 1 when the run ends otherwise,
2 on bad usage.`;

class UsageError extends Error {}

/** The same numbers, bounds and defaults as the action's inputs. */
function wholeNumber(flag: string, value: string | undefined, setting: keyof typeof NUMBER_SETTINGS): number {
  const { fallback, max } = NUMBER_SETTINGS[setting];
  if (value === undefined) return fallback;
  const number = parseWholeNumber(value, max);
  if (number === undefined)
    throw new UsageError(`--${flag} must be a positive whole number up to ${max}, got '${value}'`);
  return number;
}

/** An optional flag, parsed and worded as its action input is. */
function optional<T>(
  value: string | undefined,
  parse: (value: string) => T | undefined,
  setting: keyof typeof SETTING_PROBLEMS,
): T | undefined {
  if (value === undefined) return undefined;
  const parsed = parse(value);
  if (parsed === undefined)
    throw new UsageError(
      SETTING_PROBLEMS[setting](value).replace(setting, `--${setting.replaceAll('_', '-')}`),
    );
  return parsed;
}

/** The provider named by --provider, once its credentials are known to be there. */
function providerFlag(value: string | undefined): Provider {
  const provider = PROVIDERS.find((name) => name === (value ?? 'anthropic'));
  if (provider === undefined)
    throw new UsageError(`--provider must be one of ${PROVIDERS.join(', ')}, got '${value}'`);
  if (provider === 'anthropic' && !process.env.ANTHROPIC_API_KEY)
    throw new UsageError('ANTHROPIC_API_KEY is not set');
  const problem = providerProblem(provider, process.env);
  if (problem) throw new UsageError(problem);
  return provider;
}

function openLog(path: string, redact: (text: string) => string): EventLog {
  try {
    return openEventLog(path, redact);
  } catch (error) {
    throw new UsageError(
      `--events: cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
  }
}

/** The action's sandbox where it can be built here; otherwise a line on stderr saying why not. */
async function trySandbox(workspace: string, network: 'allow' | 'none'): Promise<Sandbox | undefined> {
  try {
    return await openSandbox({ workspace, network: network === 'none' ? 'none' : 'host' });
  } catch (error) {
    if (!(error instanceof SandboxError)) throw error;
    process.stderr.write(`todo-agent: no sandbox for the commands (${error.message}); they run directly.\n`);
    if (network === 'none') throw new UsageError('--tool-network none needs the sandbox');
    return undefined;
  }
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
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        'max-turns': { type: 'string' },
        'bash-timeout': { type: 'string' },
        'reminder-rounds': { type: 'string' },
        model: { type: 'string' },
        provider: { type: 'string' },
        'base-url': { type: 'string' },
        'max-context-tokens': { type: 'string' },
        effort: { type: 'string' },
        'price-per-mtok': { type: 'string' },
        verify: { type: 'string' },
        'verify-attempts': { type: 'string' },
        events: { type: 'string' },
        'tool-network': { type: 'string' },
        'no-sandbox': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    process.stderr.write(`todo-agent: ${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const task = positionals.join(' ').trim();
  try {
    if (!task) throw new UsageError('no task given');
    const provider = providerFlag(values.provider);
    const settings = {
      maxTurns: wholeNumber('max-turns', values['max-turns'], 'max_turns'),
      bashTimeoutSeconds: wholeNumber('bash-timeout', values['bash-timeout'], 'bash_timeout'),
      reminderRounds: wholeNumber('reminder-rounds', values['reminder-rounds'], 'reminder_rounds'),
    };
    const maxContextTokens = optional(values['max-context-tokens'], parseContextTokens, 'max_context_tokens');
    const effort = optional(values.effort, parseEffort, 'effort');
    const pricePerMtok = optional(values['price-per-mtok'], parsePricePerMtok, 'price_per_mtok');
    const attempts = wholeNumber('verify-attempts', values['verify-attempts'], 'verify_attempts');
    const verifyCommand = values.verify?.trim();
    // The key and any secret-named variable stay out of the terminal and the event log, as in the action.
    const secrets = secretValues(process.env);
    for (const secret of secrets) redactor.add(secret);
    const redact = (text: string) => redactor.redact(text);
    const events = values.events === undefined ? undefined : openLog(values.events, redact);
    const color = shouldColor(process.stdout, process.env);
    const network = values['tool-network'] ?? 'allow';
    if (network !== 'allow' && network !== 'none')
      throw new UsageError(`--tool-network must be allow or none, got '${network}'`);
    const workspace = await openWorkspace(process.cwd());
    const sandbox = values['no-sandbox'] ? undefined : await trySandbox(workspace, network);
    const controller = new AbortController();
    process.once('SIGINT', () => controller.abort());
    const run = runAgent({
      task,
      facts: {
        date: new Date().toISOString().slice(0, 10),
        freshCheckout: false,
        ...(verifyCommand ? { verifyCommand } : {}),
      },
      instructions: await committedInstructions(process.cwd()),
      ...(verifyCommand ? { verify: { command: verifyCommand, attempts } } : {}),
      ...(sandbox ? { sandbox } : {}),
      model: new Model({
        provider,
        model: values.model,
        baseURL: values['base-url'],
        ...(effort ? { effort } : {}),
        ...(pricePerMtok ? { pricePerMtok } : {}),
        onNotice: (message) => process.stderr.write(`todo-agent: warning: ${message}\n`),
      }),
      workspace,
      ...settings,
      ...(maxContextTokens ? { maxContextTokens } : {}),
      signal: controller.signal,
      redaction: redactor,
      secrets,
      observers: [
        terminalReporter({ write: (text) => process.stdout.write(redact(text)), color }),
        ...(events ? [events.observer] : []),
      ],
    });
    // Every line reaches the file, however the run ended.
    const result = await run.finally(() => {
      events?.close();
      sandbox?.close();
    });
    process.stdout.write(redact(`\n${renderPanel(result.todos, { color, title: 'Final todo list' })}\n`));
    const { usage } = result;
    process.stdout.write(
      `tokens: ${usage.input_tokens} in, ${usage.cache_read_input_tokens} cache read, ${usage.cache_creation_input_tokens} cache write, ${usage.output_tokens} out\n`,
    );
    if (result.lastText) process.stdout.write(redact(`\n${result.lastText}\n`));
    return result.status === 'completed' ? 0 : 1;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`todo-agent: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    process.stderr.write(`todo-agent: ${(error as Error).message}\n`);
    return 1;
  }
}
