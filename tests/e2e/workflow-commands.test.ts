// Issue 18, point 1: whatever the model makes appear in the log (tool output, verify output, its words, its
// todo text) reaches the runner as plain text, never as a workflow command; the action's own still work.
import { afterEach, describe, expect, it } from 'vitest';
import { reply, text, toolUse } from '../support/anthropic/server.js';
import { createWorld, type World } from './setup.js';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The forms actions/runner's ActionCommand takes as a command, each carrying PLANTED. */
const ATTACK = [
  '    ::add-mask::PLANTED-mask',
  '\t::stop-commands::PLANTED',
  '  ::error file=SECURITY.md,line=1::PLANTED annotation',
  '::set-output name=x::PLANTED',
  '::ADD-MASK::PLANTED upper case',
  'progress 50%\r::warning::PLANTED after a lone CR',
  'text ##[error]PLANTED old form',
  '\u200b::notice::PLANTED behind a zero-width space',
].join('\n');

const FIX = { id: '2', text: 'Fix: verify_command fails' };

/** Splits as the runner reads a step's output, and keeps the lines it would take as commands. */
function commandLines(log: string): string[] {
  return log.split(/\r\n|\r|\n/).filter((line) => {
    const seen = line.replace(/[\p{Cf}\p{Cc}\p{Mn}\p{Me}]/gu, '');
    return /^\s*::[^:\s]+( [^:]*)?::/.test(seen) || /##\[[^\]\s]+/.test(seen);
  });
}

describe('the log', () => {
  it('carries no workflow command the model influenced, in any form; the action’s own groups still open', async () => {
    const script = ATTACK.replace(/'/g, `'\\''`);
    const item = { id: '1', text: `Tidy ::error::PLANTED todo`, activeForm: 'Tidying ##[error]PLANTED' };
    world = await createWorld([
      reply(toolUse('todo', { items: [{ ...item, status: 'in_progress' }] })),
      reply(toolUse('bash', { command: `printf '%s\\n' '${script}'` })),
      reply(
        text(`Working.\n::set-output name=y::PLANTED words\n`),
        toolUse('todo', { items: [{ ...item, status: 'completed' }] }),
      ),
      reply(text(`Done.\n${ATTACK}`)),
      reply(
        toolUse('todo', {
          items: [
            { ...item, status: 'completed' },
            { ...FIX, status: 'completed' },
          ],
        }),
      ),
      reply(text(`Still done.\n${ATTACK}`)),
    ]);
    const run = await world.trigger('/agent tidy', {
      inputs: { verify_command: `printf '%s\\n' '${script}'; exit 1`, verify_attempts: '2' },
    });
    expect(run.stdout).toContain('::group::Turn 1');
    expect(run.stdout).toContain('PLANTED');
    expect(commandLines(run.stdout).filter((line) => line.includes('PLANTED'))).toEqual([]);
  }, 120_000);
});
