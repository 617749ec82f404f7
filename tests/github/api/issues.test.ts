// Issues (src/github/api/issues.ts) against the GitHub emulator: a thread's comments, our comments written and
// looked at again for free, with what leaves redacted.
import { describe, expect, it } from 'vitest';
import { statusOf } from '../../../src/github/api/octokit.js';
import { redactor } from '../../../src/text/redact.js';
import { outcomes, useApiPerTest } from '../../support/github/per-test.js';

const apiFor = useApiPerTest();

describe('reading a thread', () => {
  it('reads every page of a long thread, oldest first, telling bots from people', async () => {
    const { api, emu } = await apiFor();
    for (let i = 1; i <= 130; i++) emu.addComment(1, i % 10 === 0 ? 'github-actions[bot]' : 'alice', `c${i}`);
    const thread = await api.issues.comments(1);
    expect(thread).toHaveLength(130);
    expect(thread.map((c) => c.body)).toEqual(Array.from({ length: 130 }, (_, i) => `c${i + 1}`));
    expect(thread[9]).toMatchObject({ user: 'github-actions[bot]', userType: 'Bot' });
    expect(thread[0]).toMatchObject({ user: 'alice', userType: 'User' });
    expect(thread[0]!.htmlUrl).toMatch(/#issuecomment-\d+$/);
    expect(emu.calls.filter((c) => c.path.endsWith('/issues/1/comments'))).toHaveLength(2);
  });
});

describe('writing comments', () => {
  it('creates and edits a comment, with secrets and token shapes redacted on the way out', async () => {
    const { api, emu } = await apiFor();
    redactor.add('api-test-secret-value');
    const shaped = `ghp_${'a'.repeat(36)}`;
    const { id } = await api.issues.createComment(1, `key api-test-secret-value and ${shaped}`);
    await api.issues.updateComment(id, `now ${shaped} again`);
    expect(emu.state.comments.get(id)?.versions).toEqual(['key *** and ***', 'now *** again']);
    expect(emu.violations).toEqual([]);
  });

  it('passes on a refusal that no retry would fix (a deleted comment: 404)', async () => {
    const { api, emu } = await apiFor();
    const error = await api.issues.updateComment(424242, 'gone').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(statusOf(error)).toBe(404);
    expect(outcomes(emu)).toEqual(['PATCH 404']);
  });
});

describe('commentIfChanged', () => {
  it('answers undefined to an unchanged comment (a free 304), and the new body with a new ETag after an edit', async () => {
    const { api, emu } = await apiFor();
    const { id } = await api.issues.createComment(1, 'v1');
    const first = await api.issues.commentIfChanged(id);
    expect(first?.body).toBe('v1');
    expect(first?.etag).toMatch(/^W\/"/);
    expect(await api.issues.commentIfChanged(id, first!.etag)).toBeUndefined();
    expect(emu.notModified).toBe(1);
    emu.editComment(id, 'v2\nmore');
    const second = await api.issues.commentIfChanged(id, first!.etag);
    expect(second?.body).toBe('v2\r\nmore');
    expect(second?.etag).not.toBe(first!.etag);
    expect(emu.violations).toEqual([]);
  });

  it('looks for free right after our own edit, with the ETag of the edit, until someone else edits', async () => {
    const { api, emu } = await apiFor();
    const { id } = await api.issues.createComment(1, 'v1');
    const ours = await api.issues.updateComment(id, 'v2');
    expect(ours).toMatchObject({ id, body: 'v2', etag: expect.stringMatching(/^W\//) });
    expect(await api.issues.commentIfChanged(id, ours.etag)).toBeUndefined();
    expect(emu.notModified).toBe(1);
    emu.editComment(id, 'v3');
    expect((await api.issues.commentIfChanged(id, ours.etag))?.body).toBe('v3');
    expect(emu.violations).toEqual([]);
  });
});
