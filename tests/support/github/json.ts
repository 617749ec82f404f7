// JSON bodies shaped like GitHub's (every field the OpenAPI schemas require): users, the repository,
// issues and issue comments, and the ids, timestamps and reaction roll-ups they share.
import { createHash } from 'node:crypto';
import type { CommentState, IssueState, Permission } from './types.js';

export const BOT_LOGIN = 'github-actions[bot]';
const BOT_ID = 41898282;
export const WEB = 'https://github.com';
const REACTIONS = ['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'rocket', 'eyes'] as const;

/** GitHub timestamps: ISO 8601 in UTC without milliseconds. */
export function timestamp(date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function stableNumber(text: string, modulo = 90_000_000): number {
  return (createHash('sha256').update(text).digest().readUInt32BE(0) % modulo) + 1_000_000;
}

export function nodeId(prefix: string, key: string): string {
  return `${prefix}_${Buffer.from(key).toString('base64url')}`;
}

/** Where the emulated repository lives; every JSON body is built from it. */
export interface Ctx {
  api: string;
  owner: string;
  repo: string;
  defaultBranch: string;
  permissions: Record<string, Permission>;
}

export function userJson(ctx: Ctx, login: string, type?: 'User' | 'Bot' | 'Organization') {
  const kind = type ?? (login.endsWith('[bot]') ? 'Bot' : 'User');
  const id = login === BOT_LOGIN ? BOT_ID : stableNumber(`user:${login}`);
  const url = `${ctx.api}/users/${encodeURIComponent(login)}`;
  return {
    login,
    id,
    node_id: nodeId(kind === 'Bot' ? 'BOT' : kind === 'Organization' ? 'O' : 'U', login),
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: '',
    url,
    html_url: kind === 'Bot' ? `${WEB}/apps/${login.replace('[bot]', '')}` : `${WEB}/${login}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type: kind,
    user_view_type: 'public',
    site_admin: false,
  };
}

export function authorAssociation(ctx: Ctx, login: string): string {
  const permission = ctx.permissions[login];
  if (login.toLowerCase() === ctx.owner.toLowerCase()) return 'OWNER';
  return permission === 'admin' || permission === 'write' ? 'COLLABORATOR' : 'NONE';
}

export function reactionRollup(url: string, contents: string[]) {
  const counts = Object.fromEntries(REACTIONS.map((r) => [r, contents.filter((c) => c === r).length]));
  return { url: `${url}/reactions`, total_count: contents.length, ...counts };
}

export function repositoryJson(ctx: Ctx) {
  const full = `${ctx.owner}/${ctx.repo}`;
  const url = `${ctx.api}/repos/${full}`;
  const created = '2020-01-01T00:00:00Z';
  return {
    id: stableNumber(`repo:${full}`),
    node_id: nodeId('R', full),
    name: ctx.repo,
    full_name: full,
    owner: userJson(ctx, ctx.owner, 'Organization'),
    private: true,
    visibility: 'private',
    html_url: `${WEB}/${full}`,
    description: 'Emulated repository',
    fork: false,
    url,
    archive_url: `${url}/{archive_format}{/ref}`,
    assignees_url: `${url}/assignees{/user}`,
    blobs_url: `${url}/git/blobs{/sha}`,
    branches_url: `${url}/branches{/branch}`,
    collaborators_url: `${url}/collaborators{/collaborator}`,
    comments_url: `${url}/comments{/number}`,
    commits_url: `${url}/commits{/sha}`,
    compare_url: `${url}/compare/{base}...{head}`,
    contents_url: `${url}/contents/{+path}`,
    contributors_url: `${url}/contributors`,
    deployments_url: `${url}/deployments`,
    downloads_url: `${url}/downloads`,
    events_url: `${url}/events`,
    forks_url: `${url}/forks`,
    git_commits_url: `${url}/git/commits{/sha}`,
    git_refs_url: `${url}/git/refs{/sha}`,
    git_tags_url: `${url}/git/tags{/sha}`,
    git_url: `git://github.com/${full}.git`,
    hooks_url: `${url}/hooks`,
    issue_comment_url: `${url}/issues/comments{/number}`,
    issue_events_url: `${url}/issues/events{/number}`,
    issues_url: `${url}/issues{/number}`,
    keys_url: `${url}/keys{/key_id}`,
    labels_url: `${url}/labels{/name}`,
    languages_url: `${url}/languages`,
    merges_url: `${url}/merges`,
    milestones_url: `${url}/milestones{/number}`,
    notifications_url: `${url}/notifications{?since,all,participating}`,
    pulls_url: `${url}/pulls{/number}`,
    releases_url: `${url}/releases{/id}`,
    ssh_url: `git@github.com:${full}.git`,
    stargazers_url: `${url}/stargazers`,
    statuses_url: `${url}/statuses/{sha}`,
    subscribers_url: `${url}/subscribers`,
    subscription_url: `${url}/subscription`,
    tags_url: `${url}/tags`,
    teams_url: `${url}/teams`,
    trees_url: `${url}/git/trees{/sha}`,
    clone_url: `${WEB}/${full}.git`,
    svn_url: `${WEB}/${full}`,
    mirror_url: null,
    homepage: null,
    language: 'TypeScript',
    forks: 0,
    forks_count: 0,
    stargazers_count: 0,
    watchers: 0,
    watchers_count: 0,
    subscribers_count: 1,
    network_count: 0,
    size: 100,
    default_branch: ctx.defaultBranch,
    open_issues: 0,
    open_issues_count: 0,
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: true,
    has_wiki: false,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    license: null,
    allow_forking: false,
    web_commit_signoff_required: false,
    pushed_at: created,
    created_at: created,
    updated_at: created,
  };
}

export function issueJson(ctx: Ctx, issue: IssueState, commentCount: number) {
  const url = `${ctx.api}/repos/${ctx.owner}/${ctx.repo}/issues/${issue.number}`;
  const web = `${WEB}/${ctx.owner}/${ctx.repo}`;
  const pullUrl = `${ctx.api}/repos/${ctx.owner}/${ctx.repo}/pulls/${issue.number}`;
  return {
    id: stableNumber(`issue:${issue.number}`),
    node_id: nodeId(issue.pull_request ? 'PR' : 'I', `${ctx.owner}/${ctx.repo}#${issue.number}`),
    url,
    repository_url: `${ctx.api}/repos/${ctx.owner}/${ctx.repo}`,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: `${web}/${issue.pull_request ? 'pull' : 'issues'}/${issue.number}`,
    number: issue.number,
    state: issue.state,
    state_reason: issue.state === 'closed' ? 'completed' : null,
    title: issue.title,
    body: issue.body,
    user: userJson(ctx, issue.user),
    labels: [],
    assignee: null,
    assignees: [],
    milestone: null,
    locked: issue.locked,
    active_lock_reason: null,
    comments: commentCount,
    ...(issue.pull_request
      ? {
          pull_request: {
            url: pullUrl,
            html_url: `${web}/pull/${issue.number}`,
            diff_url: `${web}/pull/${issue.number}.diff`,
            patch_url: `${web}/pull/${issue.number}.patch`,
            merged_at: null,
          },
        }
      : {}),
    closed_at: issue.state === 'closed' ? issue.updated_at : null,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    author_association: authorAssociation(ctx, issue.user),
    reactions: reactionRollup(url, issue.reactions),
  };
}

export function commentJson(ctx: Ctx, comment: CommentState) {
  const repoUrl = `${ctx.api}/repos/${ctx.owner}/${ctx.repo}`;
  const url = `${repoUrl}/issues/comments/${comment.id}`;
  return {
    id: comment.id,
    node_id: nodeId('IC', String(comment.id)),
    url,
    html_url: `${WEB}/${ctx.owner}/${ctx.repo}/issues/${comment.issue_number}#issuecomment-${comment.id}`,
    issue_url: `${repoUrl}/issues/${comment.issue_number}`,
    body: comment.body,
    user: userJson(ctx, comment.user),
    created_at: comment.created_at,
    updated_at: comment.updated_at,
    author_association: authorAssociation(ctx, comment.user),
    performed_via_github_app: null,
    reactions: reactionRollup(url, comment.reactions),
  };
}
