// Workflow runs: the unfinished ones the queue orders, one run's status, and cancelling one.
import { statusOf, type RepoScope } from './octokit.js';

/** A workflow run as the queue reads it. */
export interface WorkflowRunInfo {
  id: number;
  workflowId: number;
  /** The run's name as shown (`display_title`): the workflow's `run-name`, which names the thread. */
  title: string;
  status: string;
  /** When its latest attempt started (a re-run starts again), else when it was made. */
  startedAt: string;
  htmlUrl: string;
}

/** Every status a run that has not completed can show (`waiting`, `pending` and `requested` are GitHub's own). */
const UNFINISHED = ['queued', 'in_progress', 'waiting', 'pending', 'requested'] as const;

export class Runs {
  constructor(readonly scope: RepoScope) {}

  get #repo(): { owner: string; repo: string } {
    return { owner: this.scope.owner, repo: this.scope.repo };
  }

  /**
   * Asks GitHub to cancel a workflow run: 'cancelling' when accepted, 'finished' when it already ended (409),
   * 'forbidden' when the token may not (the workflow lacks `actions: write`), 'unknown' when there is no such run.
   */
  async cancelRun(runId: number): Promise<'cancelling' | 'finished' | 'forbidden' | 'unknown'> {
    try {
      await this.scope.octokit.rest.actions.cancelWorkflowRun({ ...this.#repo, run_id: runId });
      return 'cancelling';
    } catch (error) {
      const status = statusOf(error);
      if (status === 409) return 'finished';
      if (status === 403) return 'forbidden';
      if (status === 404) return 'unknown';
      throw error;
    }
  }

  /**
   * Every run of this repository that has not completed (each status GitHub may show one in, asked at once).
   * GitHub's reference for this list promises no order (the queue orders the runs itself, by
   * `run_started_at`, which a re-run resets) and answers at most 1,000 runs to a `status` filter: far more
   * than the unfinished runs of one repository.
   */
  async unfinishedRuns(): Promise<WorkflowRunInfo[]> {
    const { octokit } = this.scope;
    const lists = await Promise.all(
      UNFINISHED.map((status) =>
        octokit.paginate(octokit.rest.actions.listWorkflowRunsForRepo, {
          ...this.#repo,
          status,
          per_page: 100,
          exclude_pull_requests: true,
        }),
      ),
    );
    const byId = new Map(lists.flat().map((run) => [run.id, runInfo(run)]));
    return [...byId.values()];
  }

  /** One run's status now, or 'gone' when GitHub has no such run (any more). */
  async runStatus(runId: number): Promise<string> {
    try {
      const { data } = await this.scope.octokit.rest.actions.getWorkflowRun({ ...this.#repo, run_id: runId });
      return data.status ?? 'unknown';
    } catch (error) {
      if (statusOf(error) === 404) return 'gone';
      throw error;
    }
  }
}

function runInfo(run: {
  id: number;
  workflow_id: number;
  display_title: string;
  status: string | null;
  run_started_at?: string;
  created_at: string;
  html_url: string;
}): WorkflowRunInfo {
  return {
    id: run.id,
    workflowId: run.workflow_id,
    title: run.display_title,
    status: run.status ?? 'unknown',
    startedAt: run.run_started_at ?? run.created_at,
    htmlUrl: run.html_url,
  };
}
