// The local CLI: the same agent core as the action, in the current directory, with a live panel.
import { parseArgs } from 'node:util';
import { runAgent } from './agent/loop.js';
import { Model } from './agent/model.js';
import { PROVIDERS, providerProblem, type Provider } from './agent/provider.js';
import { openWorkspace } from './agent/workspace.js';
import { renderPanel, shouldColor } from './terminal/panel.js';
import { redactor } from './redact.js';
import { NUMBER_SETTINGS, parseWholeNumber, secretValues } from './settings.js';
import { openEventLog, type EventLog } from './terminal/event-log.js';
import { terminalReporter } from './terminal/reporter.js';

const USAGE = `Usage: todo-agent "<task>" [--max-turns N] [--bash-timeout S] [--reminder-rounds N] [--model ID] [--provider P] [--base-url URL] [--events FILE]

Runs the agent on <task> in the current directory. --provider is anthropic (the default; needs
ANTHROPIC_API_KEY, and ANTHROPIC_BASE_URL for another endpoint), bedrock (AWS credentials and AWS_REGION)
or vertex (Google application default credentials, CLOUD_ML_REGION and ANTHROPIC_VERTEX_PROJECT_ID).
--events writes every agent event to FILE as JSON Lines. Exits 0 when every todo item is completed, 1 when
the run ends otherwise, 2 on bad usage.`;

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
        events: { type: 'string' },
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
    // The key and any secret-named variable stay out of the terminal and the event log, as in the action.
    const secrets = secretValues(process.env);
    for (const secret of secrets) redactor.add(secret);
    const redact = (text: string) => redactor.redact(text);
    const events = values.events === undefined ? undefined : openLog(values.events, redact);
    const color = shouldColor(process.stdout, process.env);
    const controller = new AbortController();
    process.once('SIGINT', () => controller.abort());
    const run = runAgent({
      task,
      model: new Model({ provider, model: values.model, baseURL: values['base-url'] }),
      workspace: await openWorkspace(process.cwd()),
      ...settings,
      signal: controller.signal,
      redact,
      secrets,
      observers: [
        terminalReporter({ write: (text) => process.stdout.write(redact(text)), color }),
        ...(events ? [events.observer] : []),
      ],
    });
    // Every line reaches the file, however the run ended.
    const result = await run.finally(() => events?.close());
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

process.exitCode = await main(process.argv.slice(2));
