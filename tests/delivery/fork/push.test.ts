// pushOntoFork() with our real git: the fork's repository is a bare repository the test makes (the server
// URL a folder, so the push is git's own over the file transport), and who the token is comes from the
// GitHub emulator. What reaches the fork's branch, and what is left for the review when nothing may.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { pushOntoFork, refusedBecause, type ForkPushRequest } from '../../../src/delivery/fork/push.js';
import type { ForkHead } from '../../../src/github/request/work-plan.js';
import { useDeliveryWorld } from '../../support/delivery-fixture.js';
import { git, WHO } from '../../support/git-fixture.js';

const { scratch: scratchOf, deliveryFor } = useDeliveryWorld('fork-push-');
let scratch: ReturnType<typeof scratchOf>;
/** The folder GITHUB_SERVER_URL names here, and the fork's repository in it. */
let server: string;
let fork: string;
beforeEach(() => {
  scratch = scratchOf();
  server = join(scratch.root, 'server');
  fork = join(server, 'contributor', 'hello-world.git');
  mkdirSync(join(server, 'contributor'), { recursive: true });
  git(scratch.root, 'clone', '--quiet', '--bare', scratch.origin, fork);
  git(fork, 'branch', '--quiet', 'feature', 'main');
});

const HEAD: ForkHead = {
  number: 1,
  repo: 'contributor/hello-world',
  ref: 'feature',
  author: 'contributor',
  maintainerCanModify: true,
  delivery: 'review',
};

/** The request for the clone's work, as the job makes it, with a maintainer's token unless said otherwise. */
async function requestFor(
  options: { fork?: Partial<ForkHead>; workflowToken?: boolean; completed?: boolean } = {},
): Promise<ForkPushRequest> {
  const { request } = await deliveryFor(options.workflowToken ? {} : { tokenUser: 'agent-machine-user' });
  // The workflow token's reaction came back as github-actions[bot]: how the job knows its kind.
  if (options.workflowToken) request.api.access.reactedAs('github-actions[bot]');
  return {
    git: request.git,
    api: request.api,
    startSha: request.startSha,
    fork: { ...HEAD, ...options.fork },
    serverUrl: server,
    completed: options.completed ?? true,
    commitMessage: 'Fix index.js',
    redact: (text) => text.replaceAll('s3cret', '***'),
  };
}

const tipOf = (branch = 'feature') => git(fork, 'rev-parse', branch);
const headOf = () => git(scratch.dir, 'rev-parse', 'HEAD');

describe('pushOntoFork', () => {
  it("pushes the agent's commit onto the fork's branch, on top of the head it started from", async () => {
    const request = await requestFor();
    writeFileSync(join(scratch.dir, 'index.js'), 'module.exports = 2;\n');
    const outcome = await pushOntoFork(request);
    expect('delivery' in outcome && outcome.delivery.commit).toEqual({ sha: tipOf(), signed: false });
    expect(git(fork, 'rev-parse', 'feature~1')).toBe(request.startSha);
    expect(git(fork, 'show', 'feature:index.js')).toBe('module.exports = 2;');
    expect('delivery' in outcome && outcome.delivery.note).toContain(
      'so the work was pushed onto `contributor/hello-world:feature`',
    );
    // This repository's branches are as they were.
    expect(git(scratch.origin, 'for-each-ref', '--format=%(refname)', 'refs/heads')).toBe('refs/heads/main');
  });

  it('leaves a branch the contributor moved meanwhile as it is, and the change staged for the review', async () => {
    const request = await requestFor();
    // The contributor's own commit, pushed to their branch while the agent worked.
    const theirs = git(fork, ...WHO, 'commit-tree', '-p', 'feature', '-m', 'more', 'feature^{tree}');
    git(fork, 'update-ref', 'refs/heads/feature', theirs);
    writeFileSync(join(scratch.dir, 'index.js'), 'module.exports = 2;\n');
    const outcome = await pushOntoFork(request);
    expect(outcome).toEqual({
      declined:
        '@contributor pushed to their branch while the agent worked; nothing of theirs is overwritten.',
    });
    expect(tipOf()).toBe(theirs);
    // Our commit is undone: HEAD is the head again, the change is staged for the review to commit.
    expect(headOf()).toBe(request.startSha);
    expect(git(scratch.dir, 'diff', '--cached', '--name-only')).toBe('index.js');
  });

  it.each([
    {
      why: 'the contributor does not allow edits from maintainers',
      options: { fork: { maintainerCanModify: false } },
      line: '@contributor does not allow edits from maintainers, so nothing was pushed to their branch.',
    },
    {
      why: "the token is the workflow's",
      options: { workflowToken: true },
      line: "The workflow's GITHUB_TOKEN cannot push to a fork.",
    },
    {
      why: 'the run did not complete its list',
      options: { completed: false },
      line: 'The run did not complete its list, so nothing is pushed to their branch.',
    },
    {
      // GitHub names no head repository once the fork is deleted (`head.repo: null`); whatever the pull
      // request says of edits from maintainers, the deletion is what is said.
      why: 'the fork was deleted',
      options: { fork: { repo: '(deleted fork)', deleted: true, maintainerCanModify: false } },
      line: "The pull request's fork was deleted, so there is no branch of theirs to push to.",
    },
    {
      // Never a URL made of a name that is not one, however the pull request came to carry it.
      why: "the fork's name is not a repository's",
      options: { fork: { repo: '(deleted fork)' } },
      line: "The pull request's fork was deleted, so there is no branch of theirs to push to.",
    },
  ])('tries nothing when $why', async ({ options, line }) => {
    const request = await requestFor(options);
    const before = tipOf();
    writeFileSync(join(scratch.dir, 'index.js'), 'module.exports = 2;\n');
    const outcome = await pushOntoFork(request);
    expect('declined' in outcome && outcome.declined).toBe(line);
    expect(tipOf()).toBe(before);
    // Not even staged, let alone committed: the review starts from the head, as without the push.
    expect(headOf()).toBe(request.startSha);
    expect(git(scratch.dir, 'diff', '--cached', '--name-only')).toBe('');
  });

  it('keeps work that changes a file under .github/ off the branch, judged before any commit is made', async () => {
    const request = await requestFor();
    const before = tipOf();
    const moves = () => git(scratch.dir, 'reflog', '--format=%H').split('\n').length;
    const moved = moves();
    writeFileSync(join(scratch.dir, '.github/workflows/ci.yml'), 'name: ci\non: push\n');
    const outcome = await pushOntoFork(request);
    expect('declined' in outcome && outcome.declined).toContain(
      "The work changes files under `.github/`, which would run in @contributor's fork with its secrets",
    );
    expect(tipOf()).toBe(before);
    // No commit made and undone: HEAD never moved, and the change is staged for the review.
    expect(moves()).toBe(moved);
    expect(git(scratch.dir, 'diff', '--cached', '--name-only')).toBe('.github/workflows/ci.yml');
  });

  it('has nothing to say when the work changed nothing', async () => {
    const request = await requestFor();
    expect(await pushOntoFork(request)).toEqual({ declined: undefined });
    expect(headOf()).toBe(request.startSha);
  });
});

describe('refusedBecause', () => {
  const keep = (text: string) => text.replaceAll('s3cret', '***');
  it.each([
    [
      "git push --porcelain --no-verify https://x/c/r.git HEAD:refs/heads/f failed (exit 128): remote: Permission to c/r.git denied to todo-app[bot].\nfatal: unable to access 'https://x/c/r.git/': The requested URL returned error: 403",
      'this token may not push to the fork',
    ],
    [
      'git push failed (exit 1): remote: error: GH006: Protected branch update failed for refs/heads/f.\nTo https://x/c/r.git\n!\tHEAD:refs/heads/f\t[remote rejected] (protected branch hook declined)\nDone',
      'a protected branch (GH006)',
    ],
    [
      'git push failed (exit 1): To https://x/c/r.git\n!\tHEAD:refs/heads/f\t[remote rejected] (pre-receive hook declined: s3cret)\nDone',
      'pre-receive hook declined: ***',
    ],
    [
      'git push failed (exit 128): fatal: unable to connect to x: s3cret refused',
      'unable to connect to x: *** refused',
    ],
  ])('case %#: the refusal in a few words', (message, said) => {
    expect(refusedBecause(message, keep)).toBe(said);
  });
});
