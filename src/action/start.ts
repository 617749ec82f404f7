// The first sign of life (issue 20): what was asked, read from the event, and the 👀 on it sent with a plain
// `fetch` before the rest of the action is even loaded. The entry (src/index.ts) imports only this module
// statically; everything else (Octokit and its plugins, @actions/core, the agent, the SDK) loads behind it.
// The 👀 is a courtesy: if it fails here, main.ts sends it again through Octokit, with its retries.
import { readFile } from 'node:fs/promises';
import { readTrigger, type DispatchRequest } from '../github/issue-triggers.js';
import type { Trigger, TriggerSource } from '../github/trigger.js';
import { readSettings, type Settings } from '../settings/settings.js';

export interface Start {
  settings: Settings;
  asked: Trigger | DispatchRequest;
  /** The 👀 already on its way, when the event names what to react to. */
  eyes?: Promise<EarlyReaction>;
}

/** The 👀's answer: the login it was written as (who this token writes as), or why it was not written. */
export type EarlyReaction = { ok: true; login: string | undefined } | { ok: false; why: string };

/** GitHub's REST API version the action's Octokit asks for too. */
const API_VERSION = '2022-11-28';

export async function readStart(env: NodeJS.ProcessEnv): Promise<Start> {
  const settings = readSettings(env);
  const asked = readTrigger(settings.eventName, JSON.parse(await readFile(settings.eventPath, 'utf8')), {
    prefix: settings.inputs.trigger,
    label: settings.inputs.label,
    assignee: settings.inputs.assignee,
  });
  const path = asked.kind === 'skip' || asked.kind === 'dispatch' ? undefined : reactionPath(asked);
  return { settings, asked, ...(path ? { eyes: sendEyes(settings, path) } : {}) };
}

/**
 * Where a trigger's reactions go, as main.ts's `react` sends them through Octokit: the comment that asked,
 * or the issue itself for a label or an assignment; a review takes no reactions through the REST API.
 */
function reactionPath(trigger: TriggerSource): string | undefined {
  const repo = `/repos/${encodeURIComponent(trigger.owner)}/${encodeURIComponent(trigger.repo)}`;
  switch (trigger.source) {
    case 'issue_comment':
      return `${repo}/issues/comments/${trigger.commentId}/reactions`;
    case 'review_comment':
      return `${repo}/pulls/comments/${trigger.commentId}/reactions`;
    case 'label':
    case 'assignment':
      return `${repo}/issues/${trigger.issueNumber}/reactions`;
    default:
      return undefined;
  }
}

async function sendEyes(settings: Settings, path: string): Promise<EarlyReaction> {
  try {
    const response = await fetch(`${settings.apiUrl.replace(/\/+$/, '')}${path}`, {
      method: 'POST',
      headers: {
        authorization: `token ${settings.inputs.github_token}`,
        accept: 'application/vnd.github+json',
        'content-type': 'application/json; charset=utf-8',
        'user-agent': 'todo-agent',
        'x-github-api-version': API_VERSION,
      },
      body: JSON.stringify({ content: 'eyes' }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (!response.ok) return { ok: false, why: `GitHub answered ${response.status}` };
    return { ok: true, login: loginOf(text) };
  } catch (error) {
    return { ok: false, why: error instanceof Error ? error.message : String(error) };
  }
}

function loginOf(text: string): string | undefined {
  try {
    const login: unknown = (JSON.parse(text) as { user?: { login?: unknown } }).user?.login;
    return typeof login === 'string' ? login : undefined;
  } catch {
    return undefined;
  }
}
