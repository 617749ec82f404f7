// `todo-agent show FILE`: a run record (the action's `transcript`, or the CLI's `--transcript FILE`) printed
// as the terminal showed the run, so that a run can be read offline.
import { readFile } from 'node:fs/promises';
import { showRecord } from '../record/show.js';
import { stderr, stdout } from './output.js';

const HELP = `Usage: todo-agent show FILE

Prints a run record as the terminal showed the run: the turns, the list, each command with its exit status
and duration, the model's words, the delivery and the result. FILE is the action's todo-agent-record.jsonl
(its \`transcript\` output, kept as an artifact) or what the CLI's --transcript FILE wrote.`;

/** Prints the record (or, with --help, what the command does); 2 (bad usage) without exactly one readable FILE. */
export async function showCommand(args: readonly string[], usage: string): Promise<number> {
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) {
    stdout.print(`${HELP}\n`);
    return 0;
  }
  if (args.length !== 1) {
    stderr.print(`todo-agent: show takes one FILE, a run record\n\n${usage}\n`);
    return 2;
  }
  const [file] = args as [string];
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    stderr.print(`todo-agent: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? error})\n`);
    return 2;
  }
  showRecord(text, stdout);
  return 0;
}
