// The local CLI: the same agent core as the action, in the current directory, with a live panel.
import { parseArgs } from 'node:util';
import { loadInstructions, type InstructionFile } from './agent/instructions.js';
import { runAgent } from './agent/loop.js';
import { GitRepo } from './git/repo.js';
import { childEnv } from './agent/child-env.js';
import { Model } from './agent/model.js';
import { openWorkspace } from './agent/workspace.js';
import { renderPanel, shouldColor } from './terminal/panel.js';
import { redactor } from './redact.js';
import { NUMBER_SETTINGS, parseWholeNumber, secretValues } from './settings.js';
import { openEventLog, type EventLog } from './terminal/event-log.js';
import { terminalReporter } from './terminal/reporter.js';

const USAGE = `Usage: todo-agent "<task>" [--max-turns N] [--bash-timeout S] [--reminder-rounds N] [--model ID] [--base-url URL] [--verify CMD] [--verify-attempts N] [--events FILE]

Runs the agent on <task> in the current directory. Needs ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL for
another endpoint). --verify runs CMD once every item is completed, and sends a failure back to the model.
--events writes every agent event to FILE as JSON Lines. Exits 0 when every todo item is completed (and
CMD passed), 1 when the run ends otherwise, 2 on bad usage.`;

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

function openLog(path: string, redact: (text: string) => string): EventLog {
  try {
    return openEventLog(path, redact);
  } catch (error) {
    throw new UsageError(
      `--events: cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? error})`,
    );
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
        'base-url': { type: 'string' },
        verify: { type: 'string' },
        'verify-attempts': { type: 'string' },
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
    if (!process.env.ANTHROPIC_API_KEY) throw new UsageError('ANTHROPIC_API_KEY is not set');
    const settings = {
      maxTurns: wholeNumber('max-turns', values['max-turns'], 'max_turns'),
      bashTimeoutSeconds: wholeNumber('bash-timeout', values['bash-timeout'], 'bash_timeout'),
      reminderRounds: wholeNumber('reminder-rounds', values['reminder-rounds'], 'reminder_rounds'),
    };
    const attempts = wholeNumber('verify-attempts', values['verify-attempts'], 'verify_attempts');
    const verifyCommand = values.verify?.trim();
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
      facts: {
        date: new Date().toISOString().slice(0, 10),
        freshCheckout: false,
        ...(verifyCommand ? { verifyCommand } : {}),
      },
      instructions: await committedInstructions(process.cwd()),
      ...(verifyCommand ? { verify: { command: verifyCommand, attempts } } : {}),
      model: new Model({ model: values.model, baseURL: values['base-url'] }),
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
