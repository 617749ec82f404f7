// The github tool: the question handed to the reader the wiring injects, with the run's signal, and its
// answer capped like bash output, with the hint to page.
import { describe, expect, it } from 'vitest';
import { githubTool } from '../../../src/agent/tools/github.js';
import type { GitHubQuestion, RepositoryReader } from '../../../src/agent/tools/types.js';
import { DEFAULT_OUTPUT_LIMIT } from '../../../src/sandbox/commands/capped-output.js';

/** A reader that answers `text` and keeps the questions it was asked. */
function reader(text: string) {
  const asked: Array<[GitHubQuestion, AbortSignal | undefined]> = [];
  const answers: RepositoryReader = {
    answer: async (question, signal) => (asked.push([question, signal]), text),
  };
  return { asked, answers };
}

const context = (signal?: AbortSignal) => ({
  workspace: '/w',
  bashTimeoutSeconds: 1,
  env: {},
  ...(signal ? { signal } : {}),
});

describe('githubTool', () => {
  it('asks the reader, with the signal, and answers with its words', async () => {
    const { asked, answers } = reader('#4 issue, open: Crash');
    const tool = githubTool(answers);
    const question = tool.inputSchema.parse({ what: 'issue', number: 4 });
    const signal = new AbortController().signal;
    expect(await tool.run(question, context(signal))).toBe('#4 issue, open: Crash');
    expect(asked).toEqual([[{ what: 'issue', number: 4 }, signal]]);
  });

  it('caps a long answer and says how to read the middle', async () => {
    const long = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n');
    const answer = await githubTool(reader(long).answers).run({ what: 'job_log', job_id: 1 }, context());
    expect(answer.length).toBeLessThan(long.length);
    expect(answer.length).toBeLessThanOrEqual(DEFAULT_OUTPUT_LIMIT + 500);
    expect(answer).toContain('read one page at a time (page)');
    expect(answer.startsWith('line 0\n')).toBe(true);
    expect(answer.trimEnd().endsWith('line 19999')).toBe(true);
  });

  it('refuses a question of a kind it does not read, or a number that is no issue number', () => {
    const { inputSchema } = githubTool(reader('').answers);
    expect(inputSchema.safeParse({ what: 'secrets' }).success).toBe(false);
    expect(inputSchema.safeParse({ what: 'issue', number: -1 }).success).toBe(false);
  });
});
