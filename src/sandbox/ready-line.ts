// Waiting for one of the sandbox's own processes (the template, the bridge) to say it is ready: the line it
// prints once its namespaces stand, or, when it fails, exits or takes too long, what went wrong.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';

/**
 * The match once a process of the sandbox's (the template, the bridge) printed the line that says it is
 * ready; else, the process killed, what went wrong (and the end of its stderr).
 */
export async function waitForLine(
  child: ChildProcessWithoutNullStreams,
  line: RegExp,
  timeoutMs: number,
): Promise<RegExpExecArray | { failed: string; detail: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk.slice(0, 4000)));
  const ready = new Promise<RegExpExecArray>((resolve) => {
    const onData = (): void => {
      const match = line.exec(stdout);
      if (!match) return;
      child.stdout.off('data', onData);
      resolve(match);
    };
    child.stdout.on('data', onData);
  });
  const failed = Promise.race([
    once(child, 'error').then(([error]) => (error as Error).message),
    once(child, 'exit').then(([code, signal]) => `exited with ${signal ?? `code ${code}`}`),
    new Promise<string>((resolve) => setTimeout(resolve, timeoutMs, 'timed out').unref()),
  ]);
  const outcome = await Promise.race([ready, failed]);
  if (typeof outcome !== 'string') return outcome;
  child.kill('SIGKILL');
  const detail = stderr.trim().split('\n').slice(-3).join(' ');
  return { failed: outcome, detail: detail ? `: ${detail}` : '' };
}
