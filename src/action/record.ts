// The action's run record: opened as soon as a request is read, in RUNNER_TEMP (which the tools' sandbox
// hides), its path the `transcript` output. A record that cannot be opened is a warning, never a lost run.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Delivery } from '../delivery/deliver.js';
import { deliveryRecord } from '../record/delivery.js';
import { showRecord } from '../record/show.js';
import { screen } from '../terminal/screen.js';
import type { Prepared } from './prepare/prepare.js';
import type { Settings } from '../settings/settings.js';
import type { TriggerSource } from '../github/request/trigger.js';
import { openRunRecord, type RunRecord } from '../record/run-record.js';
import { delivers } from '../github/request/run-kinds.js';
import { redactor } from '../text/redact.js';
import { errorSentence } from '../text/error-sentence.js';
import { log, setOutput } from '../runner/output.js';

/** The record's file name in RUNNER_TEMP; the README's upload step names it too. */
export const RECORD_FILE = 'todo-agent-record.jsonl';

export function startRecord(
  settings: Settings,
  trigger: TriggerSource & { request?: { task: string } },
): RunRecord | undefined {
  const path = join(settings.runnerTemp, RECORD_FILE);
  try {
    const record = openRunRecord(path, (text) => redactor.redact(text));
    setOutput('transcript', path);
    record.start({
      task: trigger.request?.task ?? '',
      source: trigger.origin.kind,
      thread: `${settings.owner}/${settings.repo}#${trigger.issueNumber}`,
      runUrl: settings.runUrl,
      model: settings.inputs.model,
    });
    return record;
  } catch (error) {
    log.warning(`could not open the run record ${path}: ${errorSentence(error)}`);
    return undefined;
  }
}

/** The delivery, as git has it now, goes in the record (a plan delivers nothing, and says nothing here). */
export async function recordDelivery(
  record: RunRecord | undefined,
  { git, startSha, plan }: Pick<Prepared, 'git' | 'startSha' | 'plan'>,
  delivery: Delivery,
  error: string | undefined,
): Promise<void> {
  if (!record || !delivers(plan)) return;
  record.delivery(await deliveryRecord(git, startSha, delivery, error));
}

/** The record as the terminal would show the run, for the job summary; undefined when it cannot be read. */
export async function recordForSummary(
  record: RunRecord | undefined,
): Promise<{ path: string; text: string } | undefined> {
  if (!record) return undefined;
  try {
    await record.flush();
    const printed: string[] = [];
    const shown = screen((text) => printed.push(text), false);
    showRecord(await readFile(record.path, 'utf8'), shown, { textChars: 200 });
    return { path: record.path, text: printed.join('') };
  } catch (error) {
    log.warning(`could not read the run record back for the summary: ${errorSentence(error)}`);
    return undefined;
  }
}
