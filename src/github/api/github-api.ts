// What the action asks of GitHub, one part per resource over the one client of octokit.ts: who we are and
// who may ask (access.ts), issues and reactions, pulls and reviews, workflow runs, refs and the signed
// commit, and the github tool's reads; and GitHub's own facts (`GET /meta`).
import { createOctokit, type ApiOptions, type Octokit } from './octokit.js';
import { Access } from './access.js';
import { Issues } from './issues.js';
import { Pulls } from './pulls.js';
import { readOnlyRequest, type ReadRequest } from './reads.js';
import { Refs } from './refs.js';
import { Runs } from './runs.js';

export class GitHubApi {
  readonly #octokit: Octokit;
  readonly #repo: { owner: string; repo: string };
  readonly access: Access;
  readonly issues: Issues;
  readonly pulls: Pulls;
  readonly runs: Runs;
  readonly refs: Refs;
  /** Requests made for the github tool and the first message's map. */
  reads = 0;

  constructor(options: ApiOptions) {
    this.#repo = { owner: options.owner, repo: options.repo };
    this.#octokit = createOctokit(options);
    const scope = { octokit: this.#octokit, owner: options.owner, repo: options.repo };
    this.access = new Access(scope);
    this.issues = new Issues(scope, (login) => this.access.reactedAs(login));
    this.pulls = new Pulls(scope, this.access);
    this.runs = new Runs(scope);
    this.refs = new Refs(scope);
  }

  get owner(): string {
    return this.#repo.owner;
  }

  get repo(): string {
    return this.#repo.repo;
  }

  /**
   * The hosts GitHub serves its packages from (its registries and their storage), as `GET /meta` lists them
   * in `domains.packages`: asked, never written down, since they are GitHub's to move. An answer without the
   * field (an older GitHub Enterprise Server) is an error that says so.
   */
  async packageHosts(): Promise<string[]> {
    const { data } = await this.#octokit.rest.meta.get();
    const hosts = data.domains?.packages;
    if (!Array.isArray(hosts)) throw new Error('its answer has no domains.packages');
    return hosts;
  }

  /** The github tool's request function: GETs only, never following a redirect, counted in `reads`. */
  readOnly(): ReadRequest {
    return readOnlyRequest(this.#octokit, () => this.reads++);
  }
}
