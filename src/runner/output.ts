// Everything the action hands the runner: log lines, warnings, groups, step outputs, the failure and the job
// summary. Secrets are redacted here, in one place, so that a caller (a new one included) cannot forget it;
// and here, in one place too, a log line cannot be a workflow command unless the action itself sends one
// (a group, a warning, a mask), through @actions/core, with the text as its escaped data. The log is read as
// a terminal is (the log viewer, a downloaded log in a terminal), so its lines are made inert as the CLI's are.
import * as core from '@actions/core';
import { inertTerminal } from '../text/inert-terminal.js';
import { redactor } from '../text/redact.js';
import { inertCommands } from './inert-commands.js';

const clean = (text: string): string => redactor.redact(text);
const logLine = (text: string): string => inertTerminal(clean(text));

/** The step log: `info` lines are plain text whatever they hold (tool output, the model's words). */
export const log = {
  info: (message: string): void => core.info(inertCommands(logLine(message))),
  warning: (message: string): void => core.warning(logLine(message)),
  startGroup: (name: string): void => core.startGroup(logLine(name)),
  endGroup: (): void => core.endGroup(),
};

/** A value for the step's outputs (GITHUB_OUTPUT). */
export function setOutput(name: string, value: string): void {
  core.setOutput(name, clean(value));
}

/** A value for the action's post step (GITHUB_STATE), which reads it back as STATE_<name>. */
export function saveState(name: string, value: string): void {
  core.saveState(name, value);
}

/** Marks the step failed, with the reason as an error annotation. */
export function setFailed(message: string): void {
  core.setFailed(clean(message));
}

/** Asks the runner to mask a secret in the log, and the redactor to hide it everywhere else. */
export function addSecret(secret: string): void {
  core.setSecret(secret);
  redactor.add(secret);
}

export type SummaryBuilder = typeof core.summary;

/** Builds the job summary with `build`, then writes it redacted as a whole. */
export async function writeSummary(build: (summary: SummaryBuilder) => void): Promise<void> {
  core.summary.emptyBuffer();
  build(core.summary);
  const text = core.summary.stringify();
  await core.summary.emptyBuffer().addRaw(clean(text)).write();
}
