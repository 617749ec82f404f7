// What the loop tells the model, besides tool results, when it stops short or needs word from outside.
import { openItems, renderPlain, type TodoItem } from './todo/todos.js';
import { errorMessage } from '../text/error-sentence.js';

/** Open-items nudges in a row (no tool call between them) before the run ends incomplete. */
export const OPEN_ITEM_NUDGES = 2;

export const CONTINUE = 'Please continue with the task.';

export const CONTINUE_AFTER_CUT_OFF =
  'Your reply was cut off by the output limit, so the end of it was not received. Send the part that was ' +
  'cut again, more briefly or in several parts.';

/** The result of a tool call the output limit cut before its input was whole. */
export function cutOffCall(name: string): string {
  return `your ${name} call was cut off by the output token limit before its input was complete, so it did not run. Send it again; for a large file, write it in smaller parts.`;
}

/** The model stopped with items open (`written`: it has written a list at all). */
export function openItemsNudge(items: readonly TodoItem[], written: boolean): string {
  return written
    ? `<open-items>You stopped, but the todo list still has ${describeOpen(items)}:\n\n${renderPlain(items)}\n\n` +
        'Continue with the next open item, or update the list if the plan changed (mark items completed only ' +
        'when they are really done). If an item cannot be done here, leave it open, add an item "Blocked: ' +
        'what stops it" and finish with your summary; never delete or complete an item the task needs.</open-items>'
    : '<open-items>You stopped without a plan. Call todo with your plan, then work through it.</open-items>';
}

export function describeOpen(items: readonly TodoItem[]): string {
  const open = openItems(items).length;
  return items.length === 0 ? 'no plan' : `${open} of ${items.length} items open`;
}

/** After clearing the context: what went, and the list restated. */
export function contextNote(dropped: number, items: readonly TodoItem[]): string {
  const what =
    dropped > 0
      ? `Older tool results were cleared and the ${dropped} oldest turns removed`
      : 'Older tool results were cleared';
  return (
    `<context-note>${what} to keep this conversation within the context window, and your earlier ` +
    'reasoning with them. `git diff` shows the changes made so far; read a file again before you edit it.' +
    `</context-note>\nYour todo list, as it stands:\n\n${renderPlain(items)}`
  );
}

/** Added to a maintainer's message whose list the TodoManager refused. */
export function refusedListNote(error: unknown): string {
  return `\n\n(The list could not take this change, so it stays as it was: ${errorMessage(error)}.)`;
}
