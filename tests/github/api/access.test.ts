// Access (src/github/api/access.ts) against the GitHub emulator: who may ask, and whom the token writes as.
import { describe, expect, it } from 'vitest';
import { useApiPerTest } from '../../support/github/per-test.js';

const apiFor = useApiPerTest();

describe('who may ask', () => {
  it('reads permissions, and a stranger (404) has none', async () => {
    const { api, emu } = await apiFor();
    expect(await api.access.permission('maintainer')).toBe('admin');
    expect(await api.access.permission('writer')).toBe('write');
    expect(await api.access.permission('reader')).toBe('read');
    expect(await api.access.permission('stranger')).toBe('none');
    expect(emu.violations).toEqual([]);
  });

  it('asks GitHub once per person for checks made together, and does not keep a failed answer', async () => {
    const { api, emu } = await apiFor();
    const permissionCalls = () =>
      emu.calls.filter((c) => c.operationId === 'repos/get-collaborator-permission-level').length;
    // The gate's check and the thread's authors' check, sent at the same moment.
    const answers = await Promise.all([api.access.permission('writer'), api.access.permission('writer')]);
    expect(answers).toEqual(['write', 'write']);
    expect(await api.access.permission('writer')).toBe('write');
    expect(permissionCalls()).toBe(1);
    emu.failNext(
      { method: 'GET', path: /\/collaborators\/reader\/permission$/ },
      { status: 404, body: { message: 'Not Found' } },
    );
    expect(await api.access.permission('reader')).toBe('none');
    emu.failNext(
      { method: 'GET', path: /\/collaborators\/maintainer\/permission$/ },
      { status: 401, body: { message: 'Bad credentials' } },
    );
    await expect(api.access.permission('maintainer')).rejects.toThrow();
    expect(await api.access.permission('maintainer')).toBe('admin');
    expect(permissionCalls()).toBe(4);
  });
});

describe('whom the token writes as', () => {
  it.each([
    ['the workflow token', {}, 'github-actions[bot]'],
    ['a personal access token', { tokenUser: 'agent-machine-user' }, 'agent-machine-user'],
    ['an app installation token', { appBot: 'todo-app[bot]' }, 'todo-app[bot]'],
  ] as const)(
    'knows whom %s writes as, and counts only that login as its own',
    async (_k, options, login) => {
      const { api, emu } = await apiFor(options);
      const { id } = emu.addComment(1, 'maintainer', '/agent go');
      await api.issues.react(id, 'eyes');
      expect(await api.access.identity()).toBe(login);
      expect(await api.access.wroteIt({ user: login })).toBe(true);
      // Another bot, a lookalike, or a person is never us.
      for (const other of ['welcome-bot[bot]', 'github-actions', 'todo-app', 'maintainer']) {
        if (other !== login) expect(await api.access.wroteIt({ user: other })).toBe(false);
      }
      expect(emu.violations).toEqual([]);
    },
  );

  it.each([
    ['the workflow token', {}, true],
    ['a personal access token', { tokenUser: 'agent-machine-user' }, false],
    ['an app installation token', { appBot: 'todo-app[bot]' }, false],
  ] as const)('knows whether %s is the workflow token, which no fork lets push', async (_k, options, is) => {
    const { api, emu } = await apiFor(options);
    const { id } = emu.addComment(1, 'maintainer', '/agent go');
    api.access.reacting(api.issues.react(id, 'eyes'));
    expect(await api.access.isWorkflowToken()).toBe(is);
  });

  it('does not take an unknown token for the workflow token (a push to a fork then says it)', async () => {
    const { api } = await apiFor();
    expect(await api.access.isWorkflowToken()).toBe(false);
  });

  it('falls back to the workflow bot when neither GET /user nor a reaction told it', async () => {
    const { api } = await apiFor();
    expect(await api.access.identity()).toBe('github-actions[bot]');
  });

  it.each([
    ['the workflow token (its 👀 comes back from github-actions[bot])', {}, false],
    ['a classic token without the workflow scope', { tokenUser: 'u', tokenScopes: ['repo'] }, false],
    ['a classic token with it', { tokenUser: 'u', tokenScopes: ['repo', 'workflow'] }, true],
    ['a fine-grained token (GitHub lists no scopes)', { tokenUser: 'u' }, undefined],
    ['an app installation token', { appBot: 'todo-app[bot]' }, undefined],
  ] as const)('knows whether %s may change workflow files', async (_k, options, may) => {
    const { api, emu } = await apiFor(options);
    const { id } = emu.addComment(1, 'maintainer', '/agent go');
    // The first 👀 is still on its way when asked: the answer waits for whom it comes back as.
    const release = emu.holdNext({ method: 'POST', path: /\/reactions$/ });
    api.access.reacting(api.issues.react(id, 'eyes'));
    const asked = api.access.mayChangeWorkflows();
    release();
    expect(await asked).toBe(may);
    expect(emu.violations).toEqual([]);
  });
});
