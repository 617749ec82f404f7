// Scripted model sessions generated for `npm run bench`: trivial loops, longer work sessions, a huge output.
import { reply, text, toolUse, type ScriptStep } from '../anthropic/server.js';
import { planAt } from '../anthropic/scenarios.js';

export interface PlanItem {
  text: string;
  activeForm: string;
}

export function planItems(count: number): PlanItem[] {
  return Array.from({ length: count }, (_, i) => ({
    text: `Finish part ${i + 1} of the task`,
    activeForm: `Finishing part ${i + 1}`,
  }));
}

/** A small file for `read_file` turns; the loop script reads it, the work script reads hello.py. */
export const SMALL_FILE = { path: 'notes.txt', content: 'A small file the benchmark reads.\n' };

/**
 * Exactly `turns` model turns whose tools cost next to nothing: a plan, then `read_file` of a small file
 * and `todo` updates in turn, then the plan completed and a closing text.
 */
export function loopScript(turns: number): ScriptStep[] {
  if (!Number.isInteger(turns) || turns < 3) throw new RangeError(`loopScript needs ≥ 3 turns, got ${turns}`);
  const items = planItems(5);
  const middle = Array.from({ length: turns - 3 }, (_, i) =>
    i % 2 === 0
      ? reply(toolUse('read_file', { path: SMALL_FILE.path }))
      : reply(planAt((i + 1) % items.length, items)),
  );
  return [
    reply(planAt(0, items)),
    ...middle,
    reply(planAt(items.length, items)),
    reply(text('Done: every part is finished.')),
  ];
}

/** The work turns between two todo updates, in this order, repeating. */
function workTurn(item: number, j: number): ScriptStep {
  switch (j % 3) {
    case 0:
      return reply(toolUse('read_file', { path: 'hello.py' }));
    case 1:
      return reply(toolUse('bash', { command: `echo "part ${item + 1}, step ${j + 1}" >> NOTES.md` }));
    default:
      return reply(toolUse('bash', { command: 'wc -l NOTES.md hello.py' }));
  }
}

/**
 * A session of exactly `turns` turns over an `items`-item plan: the plan, then for each item a few work
 * turns (read_file and bash, spread evenly) and a `todo` update that completes it and starts the next,
 * then a summary. That is `items + 1` accepted todo updates, and NOTES.md changes so a PR is worth opening.
 */
export function workScript({ items, turns }: { items: number; turns: number }): ScriptStep[] {
  const work = turns - items - 2;
  if (!Number.isInteger(items) || items < 1 || work < items)
    throw new RangeError(
      `workScript needs ≥ 1 item and ≥ 1 work turn per item (items ${items}, turns ${turns})`,
    );
  const plan = planItems(items);
  const steps: ScriptStep[] = [reply(planAt(0, plan))];
  for (let item = 0; item < items; item++) {
    const count = Math.floor(work / items) + (item < work % items ? 1 : 0);
    for (let j = 0; j < count; j++) steps.push(workTurn(item, j));
    steps.push(reply(planAt(item + 1, plan)));
  }
  steps.push(reply(text(`Finished all ${items} parts and noted each step in NOTES.md.`)));
  return steps;
}

export const BIG_OUTPUT_COMMAND = "head -c 100000000 /dev/zero | tr '\\0' a";

/** One bash call that prints 100 MB, with a one-item plan around it. */
export function bigOutputScript(): ScriptStep[] {
  const plan = planItems(1);
  return [
    reply(planAt(0, plan)),
    reply(toolUse('bash', { command: BIG_OUTPUT_COMMAND })),
    reply(planAt(1, plan)),
    reply(text('Printed 100 MB; the tool kept only its head and tail.')),
  ];
}

/** The file `longReadScript` reads every turn. */
export const LONG_RUN_FILE = 'log.txt';

/** LONG_RUN_FILE's text: about `chars` characters in 80-character lines (read_file cuts lines over 2,000). */
export function longRunFileText(chars: number): string {
  return `${'x'.repeat(79)}\n`.repeat(Math.ceil(chars / 80));
}

/**
 * A long run: a 3-item plan, then `read_file` of LONG_RUN_FILE every turn with the plan moving on every
 * 100 turns, then the plan completed and a closing text: `turns` + 1 model turns in all.
 */
export function longReadScript(turns: number): ScriptStep[] {
  const items = (done: number) =>
    ['Survey the logs', 'Summarise them', 'Write the report'].map((t, i) => ({
      text: t,
      status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending',
    }));
  const steps: ScriptStep[] = [reply(toolUse('todo', { items: items(0) }))];
  for (let turn = 2; turn < turns; turn++) {
    steps.push(
      turn % 100 === 0
        ? reply(toolUse('todo', { items: items(turn / 100) }))
        : reply(toolUse('read_file', { path: LONG_RUN_FILE })),
    );
  }
  steps.push(reply(toolUse('todo', { items: items(3) })), reply(text('Report written.')));
  return steps;
}
