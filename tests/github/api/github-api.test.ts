// GitHubApi (src/github/api/github-api.ts) against the GitHub emulator over real HTTP: GitHub's own facts, and the one client
// under every resource, with the real retry and throttling plugins.
import { describe, expect, it } from 'vitest';
import { statusOf } from '../../../src/github/api/octokit.js';
import { secondaryRateLimit, PACKAGE_HOSTS } from '../../support/github/emulator.js';
import { outcomes, useApiPerTest } from '../../support/github/per-test.js';

const apiFor = useApiPerTest();

describe("GitHub's own facts", () => {
  it("reads GitHub's package hosts from GET /meta, and says so when its answer has none", async () => {
    const { api, emu } = await apiFor();
    expect(await api.packageHosts()).toEqual([...PACKAGE_HOSTS]);
    const older = await apiFor({ packageHosts: null });
    await expect(older.api.packageHosts()).rejects.toThrow('its answer has no domains.packages');
    expect([...emu.violations, ...older.emu.violations]).toEqual([]);
  });
});

describe('the client under every resource', () => {
  it('retries a comment edit that meets a 5xx (plugin-retry)', async () => {
    const { api, emu } = await apiFor();
    const { id } = emu.addComment(1, 'github-actions[bot]', 'v1');
    emu.failNext(
      { method: 'PATCH', path: /\/issues\/comments\/\d+$/ },
      { status: 502, body: { message: 'Bad gateway' } },
    );
    await api.issues.updateComment(id, 'v2');
    expect(outcomes(emu)).toEqual(['PATCH 502', 'PATCH 200']);
    expect(emu.state.comments.get(id)?.body).toBe('v2');
  });

  it('retries a reaction that meets a 5xx (plugin-retry)', async () => {
    const { api, emu } = await apiFor();
    const { id } = emu.addComment(1, 'maintainer', '/agent go');
    emu.failNext(
      { method: 'POST', path: /\/reactions$/ },
      { status: 500, body: { message: 'Server error' } },
    );
    await api.issues.react(id, 'eyes');
    expect(outcomes(emu)).toEqual(['POST 500', 'POST 201']);
    expect(emu.state.comments.get(id)?.reactions).toEqual(['eyes']);
  });

  it('waits out a secondary rate limit (plugin-throttling) and says so', async () => {
    const { api, emu, warnings } = await apiFor();
    const { id } = emu.addComment(1, 'github-actions[bot]', 'v1');
    emu.failNext({ method: 'PATCH', path: /\/issues\/comments\/\d+$/ }, secondaryRateLimit(1));
    await api.issues.updateComment(id, 'v2');
    expect(outcomes(emu)).toEqual(['PATCH 403', 'PATCH 200']);
    expect(emu.state.comments.get(id)?.body).toBe('v2');
    expect(warnings).toEqual([expect.stringMatching(/secondary rate limit on PATCH .*; retrying in 1 s$/)]);
  });

  it('does not wait minutes for a rate limit: it gives up and the error reaches the caller', async () => {
    const { api, emu, warnings } = await apiFor();
    const { id } = emu.addComment(1, 'github-actions[bot]', 'v1');
    emu.failNext({ method: 'PATCH', path: /\/issues\/comments\/\d+$/ }, secondaryRateLimit(900));
    const error = await api.issues.updateComment(id, 'v2').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(statusOf(error)).toBe(403);
    expect(outcomes(emu)).toEqual(['PATCH 403']);
    expect(warnings).toEqual([expect.stringMatching(/giving up \(retry after 900 s\)$/)]);
  });
});

describe('statusOf', () => {
  it('reads a numeric status and nothing else', () => {
    expect(statusOf({ status: 404 })).toBe(404);
    expect(statusOf({ status: '404' })).toBeUndefined();
    expect(statusOf(null)).toBeUndefined();
    expect(statusOf(new Error('x'))).toBeUndefined();
  });
});
