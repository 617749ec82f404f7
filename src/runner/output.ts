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

/** Whether a group is open now, and the groups waiting for it to end (the log's groups do not nest). */
let groupOpen = false;
const waiting: Array<{ name: string; lines: readonly string[] }> = [];

function printGroup(name: string, lines: readonly string[]): void {
  core.startGroup(logLine(name));
  for (const line of lines) core.info(inertCommands(logLine(line)));
  core.endGroup();
}

/** The step log: `info` lines are plain text whatever they hold (tool output, the model's words). */
export const log = {
  info: (message: string): void => core.info(inertCommands(logLine(message))),
  warning: (message: string): void => core.warning(logLine(message)),
  /** A line the log shows only with step debug on (the start's trace). */
  debug: (message: string): void => core.debug(logLine(message)),
  startGroup: (name: string): void => {
    groupOpen = true;
    core.startGroup(logLine(name));
  },
  endGroup: (): void => {
    core.endGroup();
    groupOpen = false;
    for (const group of waiting.splice(0)) printGroup(group.name, group.lines);
  },
  /** A whole group of plain lines, now, or once the group open now ends (one that comes in at any time). */
  group: (name: string, lines: readonly string[]): void => {
    if (groupOpen) waiting.push({ name, lines });
    else printGroup(name, lines);
  },
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

/**
 * A fresh OIDC token of this job from GitHub (`id-token: write`), for `audience`, masked and redacted before
 * anything can print it. Each call asks anew: GitHub's token is short-lived and not to be exchanged twice.
 */
export async function githubIdToken(audience: string): Promise<string> {
  const token = await core.getIDToken(audience);
  addSecret(token);
  return token;
}
