// An issue or pull request as the github tool shows it: title, state, labels, body and comments, the
// pull request's head, base and review threads, and its changed files with patch excerpts.
import type { ReadRequest } from '../api/reads.js';
import { imageSources, mayFetch } from '../thread/attachments.js';
import { cleaned, hasNext, pageNote, PER_PAGE } from './text.js';

const PATCH_LINES = 40;

interface Repo {
  owner: string;
  repo: string;
}

const when = (iso: string) => iso.slice(0, 10);
const labelsOf = (labels: ReadonlyArray<string | { name?: string }>) =>
  labels.map((label) => (typeof label === 'string' ? label : (label.name ?? ''))).filter(Boolean);

/** `serverUrl` (GITHUB_SERVER_URL) tells which pictures are on GitHub's own hosts. */
export async function issueAnswer(
  read: ReadRequest,
  repo: Repo,
  number: number,
  page: number,
  serverUrl: string,
): Promise<string> {
  const { data: issue } = await read('GET /repos/{owner}/{repo}/issues/{issue_number}', {
    ...repo,
    issue_number: number,
    mediaType: { format: 'full+json' },
  });
  const { data: comments, headers } = await read('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
    ...repo,
    issue_number: number,
    per_page: PER_PAGE,
    page,
    mediaType: { format: 'full+json' },
  });
  const kind = issue.pull_request ? 'pull request' : 'issue';
  const labels = labelsOf(issue.labels);
  const shown = [
    ...(page === 1 ? [{ where: 'the description', text: issue.body, html: issue.body_html }] : []),
    ...comments.map((c) => ({
      where: `the comment by @${c.user?.login ?? 'ghost'} on ${when(c.created_at)}`,
      text: c.body,
      html: c.body_html,
    })),
  ];
  const lines = [
    `${kind} #${issue.number} (${issue.state}${issue.state_reason ? `, ${issue.state_reason}` : ''}): ${cleaned(issue.title, 300)}`,
    `by @${issue.user?.login ?? 'ghost'} on ${when(issue.created_at)}; ${issue.comments} comment(s)`,
    ...(labels.length > 0 ? [`labels: ${labels.join(', ')}`] : []),
    ...pictureList(shown, serverUrl),
  ];
  const parts = [lines.join('\n'), ...shown.map((part) => `--- ${part.where} ---\n${cleaned(part.text)}`)];
  return parts.join('\n\n') + pageNote(page, comments.length, hasNext(headers), 'comments');
}

/**
 * The pictures of this page, each by where it is and whether it is on GitHub: never its URL (a signed one
 * is a credential for a while) nor its alt text (hidden text, as everywhere else).
 */
function pictureList(
  parts: ReadonlyArray<{ where: string; html?: string | undefined }>,
  serverUrl: string,
): string[] {
  const pictures = parts.flatMap((part) =>
    imageSources(part.html ?? '').map((url) => ({
      where: part.where,
      host: mayFetch(url, serverUrl) ? 'on GitHub' : 'on another site',
    })),
  );
  if (pictures.length === 0) return [];
  return [
    `pictures on this page: ${pictures.length} (listed only; the github tool does not show pictures)`,
    ...pictures.map((p, index) => `  picture ${index + 1}: in ${p.where}, ${p.host}`),
  ];
}

export async function pullAnswer(
  read: ReadRequest,
  repo: Repo,
  number: number,
  page: number,
): Promise<string> {
  const { data: pull } = await read('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
    ...repo,
    pull_number: number,
  });
  const { data: comments, headers } = await read('GET /repos/{owner}/{repo}/pulls/{pull_number}/comments', {
    ...repo,
    pull_number: number,
    per_page: PER_PAGE,
    page,
  });
  const state = pull.merged_at ? 'merged' : pull.state;
  const lines = [
    `pull request #${pull.number} (${state}${pull.draft ? ', draft' : ''}): ${cleaned(pull.title, 300)}`,
    `by @${pull.user?.login ?? 'ghost'} on ${when(pull.created_at)}`,
    `head: ${pull.head.label} (${pull.head.sha.slice(0, 12)}) → base: ${pull.base.ref}`,
    `${pull.changed_files ?? '?'} file(s) changed, +${pull.additions ?? '?'} −${pull.deletions ?? '?'}`,
  ];
  const parts = [lines.join('\n')];
  if (page === 1) {
    parts.push(`--- description ---\n${cleaned(pull.body)}`);
    parts.push(...(await reviewParts(read, repo, number)));
  }
  if (comments.length > 0) parts.push('--- review comments, by thread ---');
  // GitHub lists them by date: each thread's replies go under its first comment, threads in the order started.
  const thread = (c: (typeof comments)[number]) => Number(c.in_reply_to_id ?? c.id);
  const grouped = [...comments].sort((a, b) => thread(a) - thread(b) || Number(a.id) - Number(b.id));
  for (const comment of grouped) {
    const where = `${comment.path}${(comment.line ?? comment.original_line) ? `:${comment.line ?? comment.original_line}` : ''}`;
    const reply = comment.in_reply_to_id
      ? ` (reply in thread ${comment.in_reply_to_id})`
      : ` (thread ${comment.id})`;
    parts.push(`@${comment.user?.login ?? 'ghost'} on ${where}${reply}:\n${cleaned(comment.body, 2_000)}`);
  }
  return parts.join('\n\n') + pageNote(page, comments.length, hasNext(headers), 'review comments');
}

/** The submitted reviews that say something (a verdict or a body), the first page of them, oldest first. */
async function reviewParts(read: ReadRequest, repo: Repo, number: number): Promise<string[]> {
  const { data: reviews } = await read('GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', {
    ...repo,
    pull_number: number,
    per_page: PER_PAGE,
  });
  const telling = reviews.filter((r) => r.submitted_at && (r.state !== 'COMMENTED' || r.body.trim() !== ''));
  if (telling.length === 0) return [];
  return [
    '--- reviews ---',
    ...telling.map((r) => {
      const verdict = r.state.toLowerCase().replace(/_/g, ' ');
      const said = r.body.trim() === '' ? '' : `:\n${cleaned(r.body, 2_000)}`;
      return `@${r.user?.login ?? 'ghost'} (${verdict}) on ${when(r.submitted_at!)}${said}`;
    }),
  ];
}

export async function pullFilesAnswer(
  read: ReadRequest,
  repo: Repo,
  number: number,
  page: number,
): Promise<string> {
  const { data: files, headers } = await read('GET /repos/{owner}/{repo}/pulls/{pull_number}/files', {
    ...repo,
    pull_number: number,
    per_page: PER_PAGE,
    page,
  });
  if (files.length === 0)
    return page === 1 ? `pull request #${number} changes no files` : `no files on page ${page}`;
  const parts = files.map((file) => {
    const head = `${file.status} ${file.filename}${file.previous_filename ? ` (was ${file.previous_filename})` : ''} (+${file.additions} −${file.deletions})`;
    if (!file.patch) return `${head}\n(no patch: binary or too large)`;
    const patch = file.patch.split('\n');
    const shown = patch.slice(0, PATCH_LINES).join('\n');
    const more = patch.length > PATCH_LINES ? `\n[… ${patch.length - PATCH_LINES} more patch lines]` : '';
    return `${head}\n${shown}${more}`;
  });
  return `files of pull request #${number}:\n\n${parts.join('\n\n')}${pageNote(page, files.length, hasNext(headers), 'files')}`;
}
