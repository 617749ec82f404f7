// The first sign of life, as early as the runner allows so the maintainer sees the request was heard: what was asked, read from the event, and the 👀 on it, sent before the
// rest of the action is even loaded. The entry (src/index.ts) imports only this module
// statically; everything else (Octokit and its plugins, @actions/core, the agent, the SDK) loads behind it.
// The 👀 is a courtesy: if it fails here, main.ts sends it again through Octokit, with its retries. It goes
// through node:http(s) rather than fetch because its `finish` says when the request has left: the entry
// waits for that before loading the rest, whose loading would otherwise hold the socket's write until done.
// Behind a proxy (HTTPS_PROXY and the like, which Octokit honours and node:https does not) it is left to
// Octokit.
import { readFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readTrigger, type DispatchRequest } from '../github/request/issue-triggers.js';
import { reactionTarget, type Trigger, type TriggerSource } from '../github/request/trigger.js';
import { readSettings, type Settings } from '../settings/settings.js';

export interface Start {
  settings: Settings;
  asked: Trigger | DispatchRequest;
  /** The 👀 already on its way, when the event names what to react to. */
  eyes?: EarlyEyes;
}

export interface EarlyEyes {
  /** Settles once the request has been handed to the network (or has failed). */
  sent: Promise<void>;
  answer: Promise<EarlyReaction>;
}

/** The 👀's answer: the login it was written as (who this token writes as), or why it was not written. */
export type EarlyReaction = { ok: true; login: string | undefined } | { ok: false; why: string };

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy'];

/** GitHub's REST API version the action's Octokit asks for too. */
const API_VERSION = '2022-11-28';

export async function readStart(env: NodeJS.ProcessEnv): Promise<Start> {
  const settings = readSettings(env);
  const asked = readTrigger(settings.eventName, JSON.parse(await readFile(settings.eventPath, 'utf8')), {
    prefix: settings.inputs.trigger,
    label: settings.inputs.label,
    assignee: settings.inputs.assignee,
  });
  const path = asked.kind === 'skip' || asked.kind === 'dispatch' ? undefined : reactionPath(settings, asked);
  const direct = !PROXY_VARIABLES.some((name) => env[name]);
  return { settings, asked, ...(path && direct ? { eyes: sendEyes(settings, path) } : {}) };
}

/** The REST path of the reactions on what asked (`reactionTarget`, as main.ts's `react` sends them too). */
function reactionPath(settings: Settings, trigger: TriggerSource): string | undefined {
  const repo = `/repos/${encodeURIComponent(settings.owner)}/${encodeURIComponent(settings.repo)}`;
  const target = reactionTarget(trigger);
  if (!target) return undefined;
  if (target.on === 'issue') return `${repo}/issues/${target.number}/reactions`;
  return `${repo}/${target.on === 'issue comment' ? 'issues' : 'pulls'}/comments/${target.id}/reactions`;
}

function sendEyes(settings: Settings, path: string): EarlyEyes {
  const url = new URL(`${settings.apiUrl.replace(/\/+$/, '')}${path}`);
  const body = JSON.stringify({ content: 'eyes' });
  let sent = () => {};
  const left = new Promise<void>((resolve) => (sent = resolve));
  const answer = new Promise<EarlyReaction>((resolve) => {
    const failed = (error: Error) => {
      sent();
      resolve({ ok: false, why: error.message });
    };
    const request = (url.protocol === 'http:' ? httpRequest : httpsRequest)(url, {
      method: 'POST',
      headers: {
        authorization: `token ${settings.inputs.github_token}`,
        accept: 'application/vnd.github+json',
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        'user-agent': 'todo-agent',
        'x-github-api-version': API_VERSION,
      },
      timeout: 10_000,
    });
    request.on('finish', sent);
    request.on('timeout', () => request.destroy(new Error('no answer within 10 s')));
    request.on('error', failed);
    request.on('response', (response: IncomingMessage) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('error', failed);
      response.on('end', () => {
        const status = response.statusCode ?? 0;
        resolve(
          status >= 200 && status < 300
            ? { ok: true, login: loginOf(text) }
            : { ok: false, why: `GitHub answered ${status}` },
        );
      });
    });
    request.end(body);
  });
  return { sent: left, answer };
}

function loginOf(text: string): string | undefined {
  try {
    const login: unknown = (JSON.parse(text) as { user?: { login?: unknown } }).user?.login;
    return typeof login === 'string' ? login : undefined;
  } catch {
    return undefined;
  }
}
