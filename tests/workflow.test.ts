// The workflow the README hands out, and the one this repository runs, filter triggers the same way.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** The job's `if:` expression (a folded `>-` block), as one line. */
function jobCondition(yaml: string): string {
  const match = /^ {4}if: >-\n((?: {6}.*\n)+)/m.exec(yaml);
  if (!match) throw new Error('no folded `if: >-` on the job');
  return match[1]!
    .trim()
    .split(/\s*\n\s*/)
    .join(' ');
}

describe('the workflow’s job filter', () => {
  it('admits only the owner, organization members and collaborators, besides the prefix and no bots', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const dogfood = await readFile(join(ROOT, '.github/workflows/agent.yml'), 'utf8');
    const fromReadme = jobCondition(/```yaml\n([\s\S]*?)```/.exec(readme)![1]!);
    expect(fromReadme).toBe(
      "startsWith(github.event.comment.body || github.event.review.body, '/agent') && " +
        "(github.event.comment.user.type || github.event.review.user.type) != 'Bot' && " +
        'contains(fromJSON(\'["OWNER", "MEMBER", "COLLABORATOR"]\'), ' +
        'github.event.comment.author_association || github.event.review.author_association)',
    );
    expect(jobCondition(dogfood)).toBe(fromReadme);
  });

  it('answers review comments and submitted reviews too, one pull request per concurrency group', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const dogfood = await readFile(join(ROOT, '.github/workflows/agent.yml'), 'utf8');
    for (const yaml of [/```yaml\n([\s\S]*?)```/.exec(readme)![1]!, dogfood]) {
      expect(yaml).toMatch(/^ {2}pull_request_review_comment:.*\n {4}types: \[created\]$/m);
      expect(yaml).toMatch(/^ {2}pull_request_review:.*\n {4}types: \[submitted\]$/m);
      expect(yaml).toContain('github.event.issue.number || github.event.pull_request.number');
    }
  });

  it('gives `/agent cancel` a concurrency group of its own and the actions permission, in both', async () => {
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const dogfood = await readFile(join(ROOT, '.github/workflows/agent.yml'), 'utf8');
    const group = (yaml: string) =>
      /^ {6}group: >-\n((?: {8}.*\n)+)/m.exec(yaml)?.[1]?.replace(/\s+/g, ' ').trim();
    const fromReadme = group(/```yaml\n([\s\S]*?)```/.exec(readme)![1]!);
    expect(fromReadme).toContain(
      "startsWith(github.event.comment.body || github.event.review.body, '/agent cancel')",
    );
    expect(fromReadme).toContain("format('todo-agent-cancel-{0}', github.run_id)");
    expect(group(dogfood)).toBe(fromReadme);
    for (const yaml of [readme, dogfood]) expect(yaml).toMatch(/^ {2}actions: write\b/m);
  });
});
