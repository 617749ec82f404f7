import { describe, expect, it } from 'vitest';
import { refusalOf } from '../../src/delivery/refusal.js';

describe('refusalOf', () => {
  it('names the workflows permission, with the file, and what to change', () => {
    const refusal = refusalOf(
      ' ! [remote rejected] HEAD -> agent/x (refusing to allow a GitHub App to create or update workflow `.github/workflows/ci.yml` without `workflows` permission)',
    );
    expect(refusal?.rule).toContain('.github/workflows/ci.yml');
    expect(refusal?.advice).toContain('Workflows');
  });

  it('names a ruleset (GH013), a protected branch (GH006) and the 100 MB limit (GH001)', () => {
    expect(
      refusalOf('remote: error: GH013: Repository rule violations found for refs/heads/x.')?.rule,
    ).toContain('GH013');
    expect(
      refusalOf('remote: error: GH006: Protected branch update failed for refs/heads/main.')?.rule,
    ).toContain('GH006');
    expect(
      refusalOf(
        "remote: error: File big.bin is 120.00 MB; this exceeds GitHub's file size limit of 100.00 MB\nremote: error: GH001: Large files detected.",
      )?.rule,
    ).toContain('100 MB');
  });

  it('is undefined for anything else (a network failure)', () => {
    expect(refusalOf('fatal: unable to access: Could not resolve host')).toBeUndefined();
  });
});
