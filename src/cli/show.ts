// `todo-agent show FILE`: a run record (the action's `transcript`, or the CLI's `--transcript FILE`) printed
// as the terminal showed the run, so that a run can be read offline.
import { readFile } from 'node:fs/promises';
import { showRecord } from '../record/show.js';
import { stderr, stdout } from './output.js';

/** Prints the record; 2 (bad usage) without exactly one readable FILE. */
export async function showCommand(args: readonly string[], usage: string): Promise<number> {
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
