import { describe, expect, it } from 'vitest';
import { patchDetails, refusedWorkBlock } from '../../../src/github/checklist/kept-patch.js';
import { MAX_ATTACHED_PATCH_CHARS } from '../../../src/github/checklist/kept-patch.js';

describe('patchDetails', () => {
  it('fences the patch longer than any backtick run in it, so nothing inside can close the block', () => {
    const patch = '+```\n+</details>\n+````\n';
    const block = patchDetails(patch);
    expect(block).toContain('`````diff\n+```\n+</details>\n+````\n`````');
    expect(block.startsWith('<details><summary>')).toBe(true);
    expect(block.endsWith('</details>')).toBe(true);
  });
});

describe('refusedWorkBlock', () => {
  it('names the rule and what to change, and attaches a small patch', () => {
    const block = refusedWorkBlock({ rule: 'a ruleset (GH013)', advice: 'Ask an admin.', patch: '+a\n' });
    expect(block).toContain('**GitHub refused the work:** a ruleset \\(GH013\\). Ask an admin.');
    expect(block).toContain('```diff\n+a\n```');
  });

  it('keeps a large patch out of the comment and says where it is', () => {
    const block = refusedWorkBlock({ patch: 'x'.repeat(MAX_ATTACHED_PATCH_CHARS + 1) });
    expect(block).not.toContain('<details>');
    expect(block).toContain("kept in the run's record");
  });
});
