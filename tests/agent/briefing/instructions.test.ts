import { describe, expect, it } from 'vitest';
import { loadInstructions, MAX_INSTRUCTIONS_CHARS } from '../../../src/agent/briefing/instructions.js';
import { firstMessage } from '../../../src/agent/briefing/prompt.js';

const reader = (files: Record<string, string>) => async (path: string) => files[path];

describe('loadInstructions', () => {
  it('reads the files that exist, in order, skipping empty ones', async () => {
    const found = await loadInstructions(
      reader({
        '.github/copilot-instructions.md': 'Copilot: be brief.\n',
        'CLAUDE.md': '  \n',
        'AGENTS.md': 'Agents.',
      }),
    );
    expect(found).toEqual([
      { path: 'AGENTS.md', text: 'Agents.' },
      { path: '.github/copilot-instructions.md', text: 'Copilot: be brief.' },
    ]);
  });

  it('cuts at a line boundary once the shared cap runs out, and says how much was left out', async () => {
    const line = `${'x'.repeat(99)}\n`;
    const big = line.repeat(150); // 15,000 characters
    const found = await loadInstructions(
      reader({ 'CLAUDE.md': big, 'AGENTS.md': big, '.github/copilot-instructions.md': 'late' }),
    );
    expect(found[0]!.text).toBe(big.trim());
    const second = found[1]!.text;
    const [kept, note] = second.split('\n[cut here: ');
    expect(kept!.length).toBeLessThanOrEqual(MAX_INSTRUCTIONS_CHARS - big.trim().length);
    expect(kept!.endsWith('x'.repeat(99))).toBe(true);
    expect(note).toMatch(/^\d+ more characters, over the size cap\]$/);
    expect(found[2]).toEqual({
      path: '.github/copilot-instructions.md',
      text: '[left out: 4 characters, over the size cap]',
    });
  });
});

describe('firstMessage', () => {
  it('puts the facts and the instructions before the task, and the issue after it as data', () => {
    const message = firstMessage({
      task: 'Fix the bug',
      context: 'Issue #1: it crashes',
      facts: { repository: 'o/r', baseBranch: 'main', date: '2026-12-03', freshCheckout: true },
      instructions: [{ path: 'CLAUDE.md', text: 'Run make check.' }],
    });
    const order = ['<environment>', '<repository-instructions>', '<task>', '<context>'].map((tag) =>
      message.indexOf(tag),
    );
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]!))).toBe(true);
    expect(message).toContain(
      "Repository: o/r\nBase branch (the pull request's target): main\nDate: 2026-12-03\n",
    );
    expect(message).toContain('<file path="CLAUDE.md">\nRun make check.\n</file>');
  });
});
