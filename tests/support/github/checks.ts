// CI results: check runs (a GitHub Actions check run is its job, with the same id) and commit statuses
// for a ref, the job with its steps, and its log, reached as on GitHub by a redirect to a signed URL.
import { LOG_PATH, signedUrl } from './attachments.js';
import { nodeId, repositoryJson, timestamp, userJson, WEB } from './json.js';
import { intParam, notFound } from './replies.js';
import type { HandlerTable } from './replies.js';
import type { Emu } from './state.js';

export type Conclusion =
  'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out' | 'action_required';

export interface CheckRunSeed {
  name: string;
  /** The commit, or a branch that a pull request of the emulator has as its head. */
  ref: string;
  status?: 'queued' | 'in_progress' | 'completed';
  conclusion?: Conclusion;
  title?: string;
  /** The job's steps; a run with steps or a log is a GitHub Actions job. */
  steps?: Array<{ name: string; conclusion: Conclusion }>;
  /** The job's log, as GitHub serves it (a timestamp on each line). */
  log?: string;
  /** The app that made the check run; default GitHub Actions. */
  app?: string;
}

export interface CheckRunState extends Required<Omit<CheckRunSeed, 'log' | 'ref' | 'title'>> {
  id: number;
  head_sha: string;
  title: string | null;
  run_id: number;
  started_at: string;
  completed_at: string | null;
}

export interface StatusSeed {
  ref: string;
  context: string;
  state: 'error' | 'failure' | 'pending' | 'success';
  description?: string;
  target_url?: string;
}

export interface StatusState extends Required<Omit<StatusSeed, 'ref'>> {
  id: number;
  sha: string;
  created_at: string;
}

/** The commit a ref names: itself when it is a SHA, else the head of the pull request from that branch. */
function resolveRef(emu: Emu, ref: string): string {
  if (/^[0-9a-f]{40}$/.test(ref)) return ref;
  const pull = emu.state.pulls.find((p) => p.head === ref);
  if (pull) return pull.head_sha;
  throw notFound();
}

export function addCheckRun(emu: Emu, seed: CheckRunSeed): CheckRunState {
  const id = emu.nextId.checkRun++;
  const status = seed.status ?? 'completed';
  const now = timestamp();
  const run: CheckRunState = {
    id,
    name: seed.name,
    head_sha: resolveRef(emu, seed.ref),
    status,
    conclusion: seed.conclusion ?? 'success',
    title: seed.title ?? null,
    steps: seed.steps ?? [],
    app: seed.app ?? 'github-actions',
    run_id: 7_000_000 + id,
    started_at: now,
    completed_at: status === 'completed' ? now : null,
  };
  emu.state.checkRuns.push(run);
  if (seed.log !== undefined) emu.jobLogs.set(id, seed.log);
  return run;
}

export function addStatus(emu: Emu, seed: StatusSeed): StatusState {
  const status: StatusState = {
    id: emu.nextId.status++,
    sha: resolveRef(emu, seed.ref),
    context: seed.context,
    state: seed.state,
    description: seed.description ?? '',
    target_url: seed.target_url ?? '',
    created_at: timestamp(),
  };
  emu.state.statuses.push(status);
  return status;
}

function appJson(emu: Emu, slug: string) {
  const created = '2018-07-30T09:30:17Z';
  return {
    id: slug === 'github-actions' ? 15368 : 100_000 + slug.length,
    slug,
    node_id: nodeId('A', slug),
    owner: userJson(emu, 'github', 'Organization'),
    name: slug === 'github-actions' ? 'GitHub Actions' : slug,
    description: '',
    external_url: `${WEB}/apps/${slug}`,
    html_url: `${WEB}/apps/${slug}`,
    created_at: created,
    updated_at: created,
    permissions: { checks: 'write', metadata: 'read' },
    events: ['check_run'],
  };
}

function checkRunJson(emu: Emu, run: CheckRunState) {
  const repoUrl = `${emu.api}/repos/${emu.owner}/${emu.repo}`;
  const web = `${WEB}/${emu.owner}/${emu.repo}`;
  const actions = run.app === 'github-actions';
  const html = actions ? `${web}/actions/runs/${run.run_id}/job/${run.id}` : `${web}/runs/${run.id}`;
  return {
    id: run.id,
    head_sha: run.head_sha,
    node_id: nodeId('CR', String(run.id)),
    external_id: String(run.id),
    url: `${repoUrl}/check-runs/${run.id}`,
    html_url: html,
    details_url: html,
    status: run.status,
    conclusion: run.status === 'completed' ? run.conclusion : null,
    started_at: run.started_at,
    completed_at: run.completed_at,
    output: {
      title: run.title,
      summary: null,
      text: null,
      annotations_count: 0,
      annotations_url: `${repoUrl}/check-runs/${run.id}/annotations`,
    },
    name: run.name,
    check_suite: { id: 5_000_000 + run.run_id },
    app: appJson(emu, run.app),
    pull_requests: [],
  };
}

function jobJson(emu: Emu, run: CheckRunState) {
  const repoUrl = `${emu.api}/repos/${emu.owner}/${emu.repo}`;
  return {
    id: run.id,
    run_id: run.run_id,
    run_url: `${repoUrl}/actions/runs/${run.run_id}`,
    run_attempt: 1,
    node_id: nodeId('CR', String(run.id)),
    head_sha: run.head_sha,
    url: `${repoUrl}/actions/jobs/${run.id}`,
    html_url: `${WEB}/${emu.owner}/${emu.repo}/actions/runs/${run.run_id}/job/${run.id}`,
    status: run.status,
    conclusion: run.status === 'completed' ? run.conclusion : null,
    created_at: run.started_at,
    started_at: run.started_at,
    completed_at: run.completed_at,
    name: run.name,
    steps: run.steps.map((step, index) => ({
      name: step.name,
      status: 'completed' as const,
      conclusion: step.conclusion,
      number: index + 1,
      started_at: run.started_at,
      completed_at: run.completed_at ?? run.started_at,
    })),
    check_run_url: `${repoUrl}/check-runs/${run.id}`,
    labels: ['ubuntu-latest'],
    runner_id: 1,
    runner_name: 'GitHub Actions 1',
    runner_group_id: 1,
    runner_group_name: 'GitHub Actions',
    workflow_name: 'CI',
    head_branch: emu.state.pulls.find((p) => p.head_sha === run.head_sha)?.head ?? emu.defaultBranch,
  };
}

/** The combined state: failure if any failed, else pending if any is pending, else success. */
function combined(statuses: readonly StatusState[]): string {
  if (statuses.some((s) => s.state === 'failure' || s.state === 'error')) return 'failure';
  if (statuses.length === 0 || statuses.some((s) => s.state === 'pending')) return 'pending';
  return 'success';
}

export function checkHandlers(emu: Emu): HandlerTable {
  const job = (id: number) => {
    const run = emu.state.checkRuns.find((r) => r.id === id && r.app === 'github-actions');
    if (!run) throw notFound();
    return run;
  };
  return {
    'checks/list-for-ref': ({ match }) => {
      const sha = resolveRef(emu, match.params.ref ?? '');
      const runs = emu.state.checkRuns.filter((r) => r.head_sha === sha);
      return {
        status: 200,
        body: { total_count: runs.length, check_runs: runs.map((r) => checkRunJson(emu, r)) },
      };
    },
    'repos/get-combined-status-for-ref': ({ match }) => {
      const sha = resolveRef(emu, match.params.ref ?? '');
      const repoUrl = `${emu.api}/repos/${emu.owner}/${emu.repo}`;
      // The newest status of each context counts.
      const newest = new Map<string, StatusState>();
      for (const s of emu.state.statuses.filter((s) => s.sha === sha)) newest.set(s.context, s);
      const statuses = [...newest.values()].map((s) => ({
        id: s.id,
        node_id: nodeId('SC', String(s.id)),
        url: `${repoUrl}/statuses/${sha}`,
        avatar_url: 'https://avatars.githubusercontent.com/u/9919?v=4',
        state: s.state,
        description: s.description || null,
        target_url: s.target_url || null,
        context: s.context,
        created_at: s.created_at,
        updated_at: s.created_at,
      }));
      return {
        status: 200,
        body: {
          state: combined([...newest.values()]),
          sha,
          total_count: statuses.length,
          statuses,
          repository: repositoryJson(emu),
          commit_url: `${repoUrl}/commits/${sha}`,
          url: `${repoUrl}/commits/${sha}/status`,
        },
      };
    },
    'actions/get-job-for-workflow-run': ({ match }) => ({
      status: 200,
      body: jobJson(emu, job(intParam(match, 'job_id'))),
    }),
    'actions/download-job-logs-for-workflow-run': ({ match }) => {
      const run = job(intParam(match, 'job_id'));
      if (!emu.jobLogs.has(run.id)) throw notFound();
      return { status: 302, headers: { location: signedUrl(emu, `${LOG_PATH}${run.id}`) } };
    },
  };
}
