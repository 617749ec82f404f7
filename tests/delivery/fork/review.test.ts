// A fork's pull request delivered as one review, against the GitHub emulator on a real origin with our real
// git: nothing pushed, a suggestion on each changed line GitHub lets a review touch, the whole change as a
// patch in the body, and a change outside the pull request's diff carried by the patch alone.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deliverForkReview, type ForkReviewRequest } from '../../../src/delivery/fork/review.js';
import { RESULT, useDeliveryWorld } from '../../support/delivery-fixture.js';
import { commitFiles, git } from '../../support/git-fixture.js';

const { scratch, deliveryFor } = useDeliveryWorld('fork-review-');
const FORK_PULL = { number: 2, title: 'Add a greeting', user: 'contributor' };

/** The contributor's head (greet.js added), served by the origin as refs/pull/2/head, checked out in the clone. */
async function forkReview(more: Partial<ForkReviewRequest> = {}) {
  const { dir } = scratch();
  commitFiles(
    dir,
    { 'greet.js': 'const name = "world";\nconsole.log("hi " + name);\nmodule.exports = name;\n' },
    'greet',
  );
  git(dir, 'push', '-q', 'origin', 'HEAD:refs/pull/2/head');
  const { emu, request } = await deliveryFor({
    issues: [{ ...FORK_PULL, pull_request: { head: 'greet', fork: { owner: 'contributor' } } }],
  });
  const review: ForkReviewRequest = {
    git: request.git,
    api: request.api,
    result: RESULT,
    startSha: await request.git.head(),
    base: 'main',
    fork: {
      number: 2,
      repo: 'contributor/hello-world',
      ref: 'greet',
      author: 'contributor',
      maintainerCanModify: false,
      delivery: 'review',
    },
    commitMessage: 'Greet politely',
    redact: (text) => text.replaceAll('s3cret', '***'),
    checklistUrl: 'https://github.example/octo-org/hello-world/issues/2#issuecomment-1',
    ...more,
  };
  return { emu, review, dir };
}

describe('deliverForkReview', () => {
  it("sends the change back as one review of the head: suggestions on the pull request's lines and the patch", async () => {
    const { emu, review, dir } = await forkReview();
    const head = review.startSha;
    writeFileSync(
      join(dir, 'greet.js'),
      'const name = "world";\nconsole.log("hello, " + name);\nmodule.exports = name;\n',
    );
    writeFileSync(join(dir, 'index.js'), 'module.exports = 2; // s3cret\n');
    const delivery = await deliverForkReview(review);
    expect(delivery.commit).toEqual({ sha: expect.stringMatching(/^[0-9a-f]{40}$/), signed: false });
    expect(delivery.note).toMatch(
      /^This pull request comes from a fork, so nothing was pushed: .*\(1 suggestion and the whole change as a patch\)/,
    );
    const [submitted, ...more] = [...emu.state.reviews.values()];
    expect(more).toEqual([]);
    expect(submitted).toMatchObject({ pull_number: 2, state: 'COMMENTED', commit_id: head });
    expect(submitted!.body).toContain("todo-agent's change to @contributor's pull request");
    expect(submitted!.body).toContain("[the run's checklist](https://github.example/");
    expect(submitted!.body).toContain('Only the patch carries the change to `index.js`');
    expect(submitted!.body).toContain('+module.exports = 2; // ***');
    expect(submitted!.body).not.toContain('s3cret');
    const [suggestion] = [...emu.state.reviewComments.values()];
    expect(suggestion).toMatchObject({ path: 'greet.js', line: 2 });
    expect(suggestion!.body).toBe('```suggestion\nconsole.log("hello, " + name);\n```');
    // Nothing pushed: the origin's refs are as they were.
    expect(git(scratch().origin, 'rev-parse', 'refs/pull/2/head')).toBe(head);
    expect(git(scratch().origin, 'for-each-ref', '--format=%(refname)', 'refs/heads')).toBe(
      'refs/heads/main',
    );
    expect(emu.violations).toEqual([]);
  });

  it('sends no review when the work left no change, and says so of a completed run', async () => {
    const { emu, review } = await forkReview();
    expect(await deliverForkReview(review)).toEqual({
      heldBack: [],
      note: 'Every item is completed, and the work left no changes, so there is no review.',
    });
    expect(await deliverForkReview({ ...review, result: { ...RESULT, status: 'incomplete' } })).toEqual({
      heldBack: [],
    });
    expect(emu.state.reviews.size).toBe(0);
  });
});
