import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { branchName } from '../../src/git/branch-name.js';
import { GIT_ENV as env } from '../support/git-fixture.js';

describe('branchName', () => {
  it('joins prefix, issue and run id', () => {
    expect(branchName('agent/', 12, '3456')).toBe('agent/issue-12-3456');
    expect(branchName('', 1, '2')).toBe('issue-1-2');
  });

  it('sanitises what git refuses', () => {
    expect(branchName('my agent/', 1, '2')).toBe('my-agent/issue-1-2');
    expect(branchName('a..b/', 1, '2')).toBe('a.b/issue-1-2');
    expect(branchName('agent/', 1, '2.lock')).toBe('agent/issue-1-2-lock');
    expect(branchName('x.lock/', 1, '2')).toBe('x-lock/issue-1-2');
    expect(branchName('a~b^c:d?e*f[g\\h/', 1, '2')).toBe('a-b-c-d-e-f-g-h/issue-1-2');
    expect(branchName('//.hidden//', 1, '2.')).toBe('hidden/issue-1-2');
    expect(branchName('-x@{y}/', 1, 'tab\there')).toBe('x-y}/issue-1-tab-here');
  });

  it('always yields a name git check-ref-format accepts as a branch', () => {
    const ask = (name: string) => {
      try {
        execFileSync('git', ['check-ref-format', '--branch', name], { env, stdio: 'ignore' });
        return true;
      } catch {
        return false;
      }
    };
    const piece = fc.string({
      unit: fc.constantFrom(...'ab./-@{}~^:?*[\\ \t.lock'.split('')),
      maxLength: 16,
    });
    fc.assert(
      fc.property(piece, fc.nat(), piece, (prefix, issue, runId) => {
        const name = branchName(prefix, issue, runId);
        expect(name, JSON.stringify([prefix, issue, runId])).toContain(`issue-${issue}`);
        expect(ask(name), name).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});
