// CI results as the github tool shows them: the check runs and commit statuses of a ref (or of a pull
// request's head), one line each, failures first, with the job id that job_log reads.
import type { ReadRequest } from '../api/reads.js';
import { plainRef } from './guards.js';

interface Repo {
  owner: string;
  repo: string;
}

const BAD = new Set(['failure', 'timed_out', 'cancelled', 'action_required', 'startup_failure', 'error']);
const mark = (result: string | null | undefined) =>
  result === 'success' ? '✓' : result && BAD.has(result) ? '✗' : '·';
const rank = (result: string | null | undefined) =>
  result && BAD.has(result) ? 0 : result === 'success' ? 2 : 1;

/** The commit a `ref` names, or pull request `number`'s head. */
async function target(
  read: ReadRequest,
  repo: Repo,
  question: { number?: number | undefined; ref?: string | undefined },
) {
  if (question.ref !== undefined) return { sha: plainRef(question.ref), label: question.ref };
  if (question.number === undefined) throw new Error('checks needs a ref or a pull request number');
  const { data: pull } = await read('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
    ...repo,
    pull_number: question.number,
  });
  return { sha: pull.head.sha, label: `pull request #${question.number}'s head ${pull.head.ref}` };
}

export async function checksAnswer(
  read: ReadRequest,
  repo: Repo,
  question: { number?: number | undefined; ref?: string | undefined },
): Promise<string> {
  const { sha, label } = await target(read, repo, question);
  const [{ data: runs }, { data: status }] = await Promise.all([
    read('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { ...repo, ref: sha, per_page: 100 }),
    read('GET /repos/{owner}/{repo}/commits/{ref}/status', { ...repo, ref: sha, per_page: 100 }),
  ]);
  const lines = [`checks of ${label} (${status.sha.slice(0, 12)}):`];
  const checkRuns = [...runs.check_runs].sort((a, b) => rank(a.conclusion) - rank(b.conclusion));
  for (const run of checkRuns) {
    const result =
      run.status === 'completed' ? `completed, ${run.conclusion ?? 'no conclusion'}` : run.status;
    // A GitHub Actions check run is its job: the same id.
    const job =
      run.app?.slug === 'github-actions'
        ? `job_id ${run.id}`
        : `from ${run.app?.name ?? 'an app'} (no job log)`;
    const summary = run.output.title ? ` — ${run.output.title}` : '';
    lines.push(
      `${mark(run.conclusion)} ${run.name}: ${result}; ${job}${summary}${run.html_url ? ` ${run.html_url}` : ''}`,
    );
  }
  if (runs.total_count > checkRuns.length)
    lines.push(`[${runs.total_count - checkRuns.length} more check runs not shown]`);
  if (checkRuns.length === 0) lines.push('no check runs');
  if (status.statuses.length > 0) {
    lines.push(`commit statuses (combined: ${status.state}):`);
    const statuses = [...status.statuses].sort((a, b) => rank(a.state) - rank(b.state));
    for (const s of statuses)
      lines.push(
        `${mark(s.state)} ${s.context}: ${s.state}${s.description ? ` — ${s.description}` : ''}${s.target_url ? ` ${s.target_url}` : ''}`,
      );
  }
  return lines.join('\n');
}
