// Workflow runs: the ones a test registers, listed and read as the Actions API shows them, and cancelled.
import { placeholderSha } from './state.js';
import { nodeId, repositoryJson, timestamp, userJson, WEB } from './json.js';
import { DOCS, HttpError, intParam, notAccessible, notFound, paged } from './replies.js';
import type { HandlerTable } from './replies.js';
import type { Emu } from './state.js';
import type { WorkflowRunState } from './types.js';

/** The workflow every registered run belongs to, unless the test says otherwise. */
export const WORKFLOW_ID = 161335;

export function actionsHandlers(emu: Emu): HandlerTable {
  return {
    'actions/cancel-workflow-run': ({ match }) => {
      const docs = `${DOCS}/actions/workflow-runs#cancel-a-workflow-run`;
      if (emu.options.actionsWrite === false) throw notAccessible(docs);
      const run = emu.state.workflowRuns.get(intParam(match, 'run_id'));
      if (!run) throw notFound();
      if (run.status === 'completed') {
        throw new HttpError(409, {
          message: 'Cannot cancel a workflow run that is completed.',
          documentation_url: docs,
          status: '409',
        });
      }
      run.status = 'completed';
      run.conclusion = 'cancelled';
      run.onCancel?.();
      return { status: 202, body: {} };
    },
    'actions/list-workflow-runs-for-repo': ({ url }) => {
      const status = url.searchParams.get('status');
      // Newest first, as GitHub is seen to list them (its reference promises no order); a status filter
      // matches the status or the conclusion, as the reference says. Paged like every list, Link and all.
      const runs = [...emu.state.workflowRuns.values()]
        .filter((run) => !status || run.status === status || run.conclusion === status)
        .sort((a, b) => b.id - a.id);
      const page = paged(runs, url, emu.api, (run) => runJson(emu, run));
      return { ...page, body: { total_count: runs.length, workflow_runs: page.body } };
    },
    'actions/get-workflow-run': ({ match }) => {
      const run = emu.state.workflowRuns.get(intParam(match, 'run_id'));
      if (!run) throw notFound();
      return { status: 200, body: runJson(emu, run) };
    },
  };
}

/** Registers a workflow run (in progress unless said otherwise) that the API lists, reads and may cancel. */
export function addWorkflowRun(
  emu: Emu,
  run: Pick<WorkflowRunState, 'id'> & Partial<WorkflowRunState>,
): WorkflowRunState {
  const added: WorkflowRunState = {
    status: 'in_progress',
    workflowId: WORKFLOW_ID,
    title: 'todo-agent #1',
    createdAt: timestamp(),
    ...run,
  };
  emu.state.workflowRuns.set(added.id, added);
  return added;
}

/** A workflow run with every field GitHub's description requires. */
function runJson(emu: Emu, run: WorkflowRunState) {
  const repository = repositoryJson(emu);
  const url = `${emu.api}/repos/${emu.owner}/${emu.repo}/actions/runs/${run.id}`;
  const sha = placeholderSha(emu.defaultBranch);
  const actor = userJson(emu, 'maintainer');
  const { owner, ...rest } = repository;
  const minimal = { ...rest, owner };
  return {
    id: run.id,
    name: 'todo-agent',
    node_id: nodeId('WFR', String(run.id)),
    check_suite_id: run.id + 1,
    check_suite_node_id: nodeId('CS', String(run.id)),
    head_branch: emu.defaultBranch,
    head_sha: sha,
    path: '.github/workflows/todo-agent.yml',
    run_number: run.id % 10_000,
    run_attempt: 1,
    event: 'issue_comment',
    display_title: run.title,
    status: run.status,
    conclusion: run.conclusion ?? null,
    workflow_id: run.workflowId,
    url,
    html_url: `${WEB}/${emu.owner}/${emu.repo}/actions/runs/${run.id}`,
    pull_requests: [],
    created_at: run.createdAt,
    updated_at: run.createdAt,
    run_started_at: run.createdAt,
    actor,
    triggering_actor: actor,
    jobs_url: `${url}/jobs`,
    logs_url: `${url}/logs`,
    check_suite_url: `${emu.api}/repos/${emu.owner}/${emu.repo}/check-suites/${run.id + 1}`,
    artifacts_url: `${url}/artifacts`,
    cancel_url: `${url}/cancel`,
    rerun_url: `${url}/rerun`,
    workflow_url: `${emu.api}/repos/${emu.owner}/${emu.repo}/actions/workflows/${run.workflowId}`,
    head_commit: {
      id: sha,
      tree_id: sha,
      message: 'Initial commit',
      timestamp: '2020-01-01T00:00:00Z',
      author: { name: 'Test Maintainer', email: 'maintainer@example.com' },
      committer: { name: 'Test Maintainer', email: 'maintainer@example.com' },
    },
    repository: minimal,
    head_repository: minimal,
  };
}
