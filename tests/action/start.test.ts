// The action's first sign of life, against the GitHub emulator over real HTTP: the request read from the
// event file, and the 👀 on the comment that asked sent at once through node:http, answered with the login
// the token writes as; nothing sent when the event asks for nothing or a proxy stands between.
import { describe, expect, it } from 'vitest';
import { useActionStart } from '../support/action-start.js';
import { TEST_TOKEN } from '../support/github/per-test.js';

const asked = useActionStart();

describe('readStart', () => {
  it('reads the run asked for, and puts the 👀 on its comment at once, learning who the token writes as', async () => {
    const { emu, comment, start } = await asked('/agent tidy up hello.py');
    expect(start.asked).toMatchObject({ kind: 'run', request: { kind: 'task', task: 'tidy up hello.py' } });
    expect(start.settings.inputs.github_token).toBe(TEST_TOKEN);
    await start.eyes!.sent;
    expect(await start.eyes!.answer).toEqual({ ok: true, login: 'github-actions[bot]' });
    expect(comment.reactions).toEqual(['eyes']);
    expect(emu.calls.map((call) => `${call.method} ${call.path} ${call.status}`)).toEqual([
      `POST /repos/octo-org/hello-world/issues/comments/${comment.id}/reactions 201`,
    ]);
    expect(emu.violations).toEqual([]);
  });

  it('says why when GitHub refuses the 👀, without throwing', async () => {
    const { start } = await asked('/agent tidy', { env: { INPUT_GITHUB_TOKEN: 'ghs_wrongToken' } });
    expect(await start.eyes!.answer).toEqual({ ok: false, why: 'GitHub answered 401' });
  });

  it('sends nothing for a comment that asks for nothing, or behind a proxy (Octokit sends it there)', async () => {
    const skipped = await asked('Thanks, looks good.');
    expect(skipped.start.asked.kind).toBe('skip');
    expect(skipped.start.eyes).toBeUndefined();
    const proxied = await asked('/agent tidy', { env: { HTTPS_PROXY: 'http://proxy.example:3128' } });
    expect(proxied.start.asked.kind).toBe('run');
    expect(proxied.start.eyes).toBeUndefined();
    expect([...skipped.emu.calls, ...proxied.emu.calls]).toEqual([]);
  });
});
