// The moments of a demo run that the docs show as pictures: the checklist comment while it plans, half-way
// and done, and the pull request, each with the Markdown the action posted. What changes from one run of the
// same script to the next (elapsed seconds, token counts that follow a temp path's length, the isolation of
// the machine) is left out of each moment's fingerprint, so that a test can tell whether the pictures still
// show what the demo posts now.
import { createHash } from 'node:crypto';

export type MomentName = 'checklist-planning' | 'checklist-mid-run' | 'checklist-done' | 'pull-request';

export interface Moment {
  name: MomentName;
  /** What the picture shows, for its alt text. */
  title: string;
  /** The Markdown the action posted, as GitHub received it. */
  markdown: string;
  /** For a checklist: `version 4 of 7`, the version the picture shows. */
  version?: string;
}

export interface PullRequestView {
  number: number;
  title: string;
  head: string;
  base: string;
  body: string;
  /** How many commits the head has that the base does not. */
  commits: number;
}

interface SavedItem {
  status: string;
}

/** The items of the hidden `agent-state` a checklist version carries. */
function savedItems(body: string): SavedItem[] {
  const json = /<!-- agent-state (\{.*\}) -->/.exec(body)?.[1];
  if (!json) return [];
  return ((JSON.parse(json) as { items?: SavedItem[] }).items ?? []).filter(Boolean);
}

/** Half the items done and one in progress: the first version that shows a run well under way. */
function isMidRun(body: string): boolean {
  const items = savedItems(body);
  const done = items.filter((item) => item.status === 'completed').length;
  return items.some((item) => item.status === 'in_progress') && done * 2 >= items.length && done > 0;
}

/** The four moments of a run, from the checklist's versions and the pull request it opened. */
export function moments(versions: readonly string[], pull: PullRequestView): Moment[] {
  const of = (index: number) => `version ${index + 1} of ${versions.length}`;
  const planning = versions.findIndex((body) => body.includes('_planning…_'));
  const midRun = versions.findIndex(isMidRun);
  const done = versions.length - 1;
  if (planning === -1) throw new Error('no checklist version shows the run planning');
  if (midRun === -1) throw new Error('no checklist version shows the run half-way');
  if (!versions[done]?.includes('todo-agent finished'))
    throw new Error('the last checklist version is not finished');
  return [
    {
      name: 'checklist-planning',
      title: 'The checklist comment right after the request: planning',
      markdown: versions[planning]!,
      version: of(planning),
    },
    {
      name: 'checklist-mid-run',
      title: 'The checklist comment half-way: items ticked, one in progress',
      markdown: versions[midRun]!,
      version: of(midRun),
    },
    {
      name: 'checklist-done',
      title: 'The checklist comment when the run finished',
      markdown: versions[done]!,
      version: of(done),
    },
    {
      name: 'pull-request',
      title: `The pull request the run opened: #${pull.number} ${pull.title}`,
      markdown: pull.body,
    },
  ];
}

/** The Markdown with what changes between runs of the same script taken out: the footer's numbers, the isolation. */
export function steadyPart(markdown: string): string {
  return markdown
    .split('\n')
    .map((line) => (line.startsWith('<sub>') ? line.replace(/\d+(\.\d+)?/g, '#') : line))
    .join('\n')
    .replace(/sandbox: (root|sudo|rootless user namespaces|off)/g, 'sandbox: …');
}

export const fingerprint = (markdown: string): string =>
  createHash('sha256').update(steadyPart(markdown)).digest('hex');
