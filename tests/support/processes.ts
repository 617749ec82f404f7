// Which processes are alive: for tests that check that nothing a command started outlives it.
import { readdir, readFile } from 'node:fs/promises';

/** The pids of every process whose command line contains `marker`. */
export async function processesNamed(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(marker)) found.push(Number(entry));
  }
  return found;
}
