// The github tool: read-only questions about this repository (an issue, a pull request, its checks, a job's
// log, a search), answered by a reader the wiring injects. It runs outside the sandbox; no tool holds the token.
import { z } from 'zod';
import { CappedOutput, DEFAULT_OUTPUT_LIMIT } from '../../sandbox/commands/capped-output.js';
import type { RepositoryReader, Tool } from './types.js';

/** What the marker of a capped answer says: each answer is paged, and a page is capped like bash output. */
const GITHUB_HINT = 'to see the middle, read one page at a time (page) or ask about one pull request or job';

const githubInput = z.object({
  what: z
    .enum(['issue', 'pull', 'pull_files', 'checks', 'job_log', 'search'])
    .describe(
      'issue: an issue or pull request with its comments; pull: a pull request with head, base and review threads; ' +
        "pull_files: a pull request's changed files with patch excerpts; checks: check runs and statuses of a ref or " +
        "of pull request `number`'s head; job_log: the log of Actions job `job_id`; search: issues and pull requests",
    ),
  number: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Issue or pull request number (issue, pull, pull_files, checks)'),
  ref: z.string().optional().describe('Branch, tag or commit SHA (checks, instead of number)'),
  job_id: z.number().int().positive().optional().describe('Actions job id, as checks lists it (job_log)'),
  query: z
    .string()
    .optional()
    .describe('GitHub search words and qualifiers such as is:open, label:bug (search)'),
  page: z.number().int().positive().optional().describe('Page of a long answer (default 1)'),
});

export function githubTool(reader: RepositoryReader): Tool<typeof githubInput> {
  return {
    name: 'github',
    description:
      'Read this repository on GitHub (read-only; no other repository): issues and pull requests the task points ' +
      'to, the CI results of a branch or pull request (checks, then job_log with a job id for a failing job), and ' +
      'a search of issues and pull requests. Answers are compact text, paged like read_file.',
    inputSchema: githubInput,
    run: async (input, context) => {
      const answer = new CappedOutput(DEFAULT_OUTPUT_LIMIT, undefined, GITHUB_HINT);
      answer.write(await reader.answer(input, context.signal));
      return answer.toString();
    },
  };
}
