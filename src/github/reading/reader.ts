// The github tool's reader: each question answered in the action's own process with the action's own
// client (GETs only, through the same throttling), for this repository alone. The token never leaves it.
import type { GitHubQuestion, RepositoryReader } from '../../agent/tools/types.js';
import { Redirected, type ReadRequest } from '../api/reads.js';
import { statusOf } from '../api/octokit.js';
import type { GitHubApi } from '../api/github-api.js';
import { checksAnswer } from './checks.js';
import { issueAnswer, pullAnswer, pullFilesAnswer } from './issues.js';
import { jobLogAnswer } from './job-log.js';
import { searchAnswer } from './search.js';

/** The github tool's input, as the agent's schema gives it. */
type Question = GitHubQuestion;

export class RepositoryReading implements RepositoryReader {
  readonly #read: ReadRequest;
  readonly #repo: { owner: string; repo: string };
  readonly #serverUrl: string;

  constructor(api: GitHubApi, serverUrl: string) {
    this.#read = api.readOnly();
    this.#repo = { owner: api.owner, repo: api.repo };
    this.#serverUrl = serverUrl;
  }

  async answer(question: Question, signal?: AbortSignal): Promise<string> {
    try {
      return await this.#ask(question, signal);
    } catch (error) {
      if (error instanceof Redirected)
        throw new Error(
          `${describe(question)} is no longer in ${this.#repo.owner}/${this.#repo.repo}: GitHub redirects it (${error.status}) to ${whereItWent(error.location)}, as it does for an issue transferred to another repository. The github tool reads ${this.#repo.owner}/${this.#repo.repo} only, so it did not follow.`,
          { cause: error },
        );
      const status = statusOf(error);
      if (status === 404)
        throw new Error(`${describe(question)} was not found in ${this.#repo.owner}/${this.#repo.repo}`, {
          cause: error,
        });
      if (status === 422)
        throw new Error(`GitHub refused ${describe(question)} as invalid`, { cause: error });
      throw error;
    }
  }

  async #ask(question: Question, signal?: AbortSignal): Promise<string> {
    const page = question.page ?? 1;
    const read = this.#read;
    const repo = this.#repo;
    switch (question.what) {
      case 'issue':
        return await issueAnswer(
          read,
          repo,
          needs(question.number, 'issue', 'number'),
          page,
          this.#serverUrl,
        );
      case 'pull':
        return await pullAnswer(read, repo, needs(question.number, 'pull', 'number'), page);
      case 'pull_files':
        return await pullFilesAnswer(read, repo, needs(question.number, 'pull_files', 'number'), page);
      case 'checks':
        return await checksAnswer(read, repo, question);
      case 'job_log':
        return await jobLogAnswer(read, repo, needs(question.job_id, 'job_log', 'job_id'), signal);
      case 'search':
        return await searchAnswer(read, repo, needs(question.query, 'search', 'query'), page);
    }
  }
}

/** A redirect's target in words: the issue and repository GitHub's API URL names, and the URL itself. */
export function whereItWent(location: string): string {
  const path = /\/(?:repositories\/(\d+)|repos\/([^/]+\/[^/]+))\/(issues|pulls)\/(\d+)(?:[/?#]|$)/.exec(
    location,
  );
  if (!path) return location || 'no location';
  const [, id, name, kind, number] = path;
  const thing = `${kind === 'pulls' ? 'pull request' : 'issue'} #${number}`;
  return `${thing} of ${name ?? `the repository with id ${id}`} (${location})`;
}

function needs<T>(value: T | undefined, what: string, field: string): T {
  if (value === undefined) throw new Error(`${what} needs ${field}`);
  return value;
}

function describe(question: Question): string {
  if (question.what === 'job_log') return `job ${question.job_id}`;
  if (question.what === 'search') return 'the search';
  if (question.ref !== undefined) return `ref ${JSON.stringify(question.ref)}`;
  return question.what === 'issue' ? `issue #${question.number}` : `pull request #${question.number}`;
}
