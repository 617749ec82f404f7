// Who this action writes as, and who may ask it for what: the token's identity and people's permissions.
import { statusOf, type RepoScope } from './octokit.js';

export type Permission = 'admin' | 'write' | 'read' | 'none';

/** Who writes when the workflow's own GITHUB_TOKEN is used. */
const WORKFLOW_BOT = 'github-actions[bot]';

/** How long one answer about a person's permission serves further checks. */
const PERMISSION_FRESH_MS = 60_000;

export class Access {
  readonly #permissions = new Map<string, { at: number; answer: Promise<Permission> }>();
  #self: Promise<string | undefined> | undefined;
  /** A classic token's scopes (GitHub's X-OAuth-Scopes on `GET /user`); undefined for any other token. */
  #scopes: string[] | undefined;
  /** The login our own reaction came back with: who this token writes as, whatever kind of token it is. */
  #reactedAs: string | undefined;
  /** The first 👀 on its way, sent without this client: who it comes back as, `reactedAs` is told. */
  #reacting: Promise<unknown> = Promise.resolve();
  #workflows: Promise<boolean | undefined> | undefined;

  constructor(readonly scope: RepoScope) {}

  /**
   * The user's permission on the repository; a stranger (404) has none. One answer serves every check made
   * within PERMISSION_FRESH_MS (the gate's, the thread's authors', the pictures' authors'), so the start of a
   * run asks GitHub once per person; a later check asks again, and a failed one is not kept.
   */
  permission(username: string): Promise<Permission> {
    const now = Date.now();
    const kept = this.#permissions.get(username);
    if (kept && now - kept.at < PERMISSION_FRESH_MS) return kept.answer;
    const answer = this.#askPermission(username);
    this.#permissions.set(username, { at: now, answer });
    answer.catch(() => {
      if (this.#permissions.get(username)?.answer === answer) this.#permissions.delete(username);
    });
    return answer;
  }

  async #askPermission(username: string): Promise<Permission> {
    const { octokit, owner, repo } = this.scope;
    try {
      const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo, username });
      return (['admin', 'write', 'read'] as const).find((level) => level === data.permission) ?? 'none';
    } catch (error) {
      if (statusOf(error) === 404) return 'none';
      throw error;
    }
  }

  /** The login a reaction came back with: ours (issues.ts), or the first 👀 sent without this client. */
  reactedAs(login: string | undefined): void {
    this.#reactedAs ??= login;
  }

  /** The first 👀 is on its way (its login, once back, goes to `reactedAs`): `mayChangeWorkflows` waits for it. */
  reacting(sent: Promise<unknown>): void {
    this.#reacting = sent.catch(() => undefined);
  }

  /**
   * Whether this token may create, change or delete files under `.github/workflows/`, where its kind tells
   * without trying: the workflow's own token (it writes as github-actions[bot]) never has the workflows
   * permission; a classic personal token has it with the `workflow` scope. Undefined for an app's or a
   * fine-grained token, whose permissions GitHub does not tell: a refusal says it then.
   */
  mayChangeWorkflows(): Promise<boolean | undefined> {
    this.#workflows ??= (async () => {
      const kind = await this.#kind();
      if (kind === 'user') return this.#scopes && this.#scopes.includes('workflow');
      return kind === 'workflow' ? false : undefined;
    })();
    return this.#workflows;
  }

  /**
   * The token's kind, as far as it tells without trying: a person's (`GET /user` answers), the workflow's own
   * (our reaction came back as github-actions[bot]), or another (an app's, or not known).
   */
  async #kind(): Promise<'user' | 'workflow' | 'other'> {
    if (await this.selfLogin()) return 'user';
    await this.#reacting;
    return this.#reactedAs === WORKFLOW_BOT ? 'workflow' : 'other';
  }

  /**
   * The login the token writes as, asked once: a personal access token's user. The workflow's token and an
   * app's token may not ask (403), and write as a bot anyway, so the answer is then undefined.
   */
  selfLogin(): Promise<string | undefined> {
    this.#self ??= this.scope.octokit.rest.users.getAuthenticated().then(
      ({ data, headers }) => {
        const scopes = headers['x-oauth-scopes'];
        if (typeof scopes === 'string') this.#scopes = scopes.split(',').map((scope) => scope.trim());
        return data.login;
      },
      () => undefined,
    );
    return this.#self;
  }

  /**
   * The login this action writes as: a personal token's user, else the login our reaction came back with
   * (an app's bot), else the workflow token's bot.
   */
  async identity(): Promise<string> {
    return (await this.selfLogin()) ?? this.#reactedAs ?? WORKFLOW_BOT;
  }

  /**
   * Whether this is the workflow's own GITHUB_TOKEN, as who it writes as tells (github-actions[bot]): it
   * reaches this repository alone, never a fork's branch. Unknown (no reaction came back): false, and a
   * push says it.
   */
  async isWorkflowToken(): Promise<boolean> {
    return (await this.#kind()) === 'workflow';
  }

  /** Whether this action (an earlier run with the same token) wrote something. Any other bot did not. */
  async wroteIt(author: { user: string }): Promise<boolean> {
    return author.user.toLowerCase() === (await this.identity()).toLowerCase();
  }
}
