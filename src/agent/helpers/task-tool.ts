// The task tool: the model hands one self-contained part of its work to a helper (helpers.ts) and gets the
// helper's answer back as the result.
import { z } from 'zod';
import type { Tool, ToolAnswer } from '../tools/types.js';

export const taskInput = z.object({
  description: z
    .string()
    .trim()
    .min(1)
    .max(80)
    .describe(
      'A short title of the part, 3 to 8 words ("Find every caller of parse()"): the checklist shows it',
    ),
  prompt: z
    .string()
    .trim()
    .min(1)
    .describe(
      'Everything the helper needs: it does not see your conversation. What to find or change, where to look, and what the answer must contain',
    ),
  kind: z
    .enum(['explore', 'edit'])
    .optional()
    .describe(
      'explore (default): reads only, side by side with other explore helpers; edit: may change files, alone',
    ),
});

export type TaskInput = z.infer<typeof taskInput>;

/** The task tool, whose calls `start` runs as helpers (at most `maxParallel` explore helpers at once). */
export function taskTool(
  start: (input: TaskInput, signal?: AbortSignal) => Promise<ToolAnswer>,
  { maxParallel, maxTurns }: { maxParallel: number; maxTurns: number },
): Tool<typeof taskInput, ToolAnswer> {
  return {
    name: 'task',
    description:
      'Start a helper: an agent of its own, with its own conversation, tools and todo list, for one ' +
      "self-contained part of the work; you wait for it and get its answer as this tool's result. kind " +
      'explore (default) only reads (read_file, github, bash in a read-only copy of the workspace): several ' +
      `task calls in one reply run side by side, at most ${maxParallel} at once, so use them to survey ` +
      'several areas without filling your own context. kind edit may change files, and runs alone. A helper ' +
      `has at most ${maxTurns} turns and starts no helpers. Its tokens count in the run's cost like yours: ` +
      'use helpers for work that needs many reads or steps, not for one file.',
    inputSchema: taskInput,
    run: (input, context) => start(input, context.signal),
  };
}
