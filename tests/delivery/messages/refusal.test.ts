import { describe, expect, it } from 'vitest';
import { refusalOf, refusedWorkflowFile, workflowRule } from '../../../src/delivery/messages/refusal.js';

describe('refusalOf', () => {
  it('names the workflows permission, with the file, and what to change', () => {
    const refusal = refusalOf(
      ' ! [remote rejected] HEAD -> agent/x (refusing to allow a GitHub App to create or update workflow `.github/workflows/ci.yml` without `workflows` permission)',
    );
    expect(refusal?.rule).toContain('.github/workflows/ci.yml');
    expect(refusal?.advice).toContain('Workflows');
  });

  it('tells a workflow file refused by a push or by the API (app or personal token) from any other refusal', () => {
    for (const text of [
      'refusing to allow a GitHub App to create or update workflow `.github/workflows/a.yml` without `workflows` permission',
      'refusing to allow a Personal Access Token to create or update workflow `.github/workflows/a.yml` without `workflow` scope',
      'Request failed due to following response errors:\n - refusing to allow an OAuth App to create or update workflow `.github/workflows/a.yml` without `workflow` scope',
    ])
      expect(refusedWorkflowFile(text), text).toBe(true);
    expect(
      refusedWorkflowFile('remote: error: GH013: Repository rule violations found for refs/heads/x.'),
    ).toBe(false);
    expect(workflowRule(['.github/workflows/a.yml', '.github/workflows/b.yml']).rule).toBe(
      'the token may not create or change workflow files (.github/workflows/a.yml, .github/workflows/b.yml)',
    );
  });

  it('names the rule behind an API refusal as Octokit words it (each GraphQL error a ` - ` line)', () => {
    const refusal = refusalOf(
      'Request failed due to following response errors:\n - Repository rule violations found\n\nChanges must be made through a pull request.\n\n',
    );
    expect(refusal?.rule).toBe('a repository ruleset (GH013): Changes must be made through a pull request');
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

  it('names the rules a ruleset says were broken, as GitHub prints them, and advises for the first it knows', () => {
    const push = [
      'remote: error: GH013: Repository rule violations found for refs/heads/agent/issue-1-4242.        ',
      'remote: Review all repository rules at https://github.com/o/r/rules?ref=refs%2Fheads%2Fagent%2Fissue-1-4242        ',
      'remote: ',
      'remote: - Commits must have verified signatures.        ',
      'remote:   Found 1 violation:        ',
      'remote: ',
      'remote:   027faa7121ee9df79db623e1a2848d2cc88a8dba        ',
      'remote: ',
      'remote: - Changes must be made through a pull request.        ',
      ' ! [remote rejected] HEAD -> agent/issue-1-4242 (push declined due to repository rule violations)',
    ].join('\n');
    const refusal = refusalOf(push)!;
    expect(refusal.rule).toBe(
      'a repository ruleset (GH013): Commits must have verified signatures; Changes must be made through a pull request',
    );
    expect(refusal.advice).toContain('leave `signed_commits` on');
    // The API's words for a branch a ruleset may not create (REST create-ref).
    const api = refusalOf(
      'Repository rule violations found\n\nCannot create ref due to creations being restricted.\n\n - https://docs.github.com/rest/git/refs#create-a-reference',
    )!;
    expect(api.rule).toBe(
      'a repository ruleset (GH013): Cannot create ref due to creations being restricted',
    );
    expect(api.advice).toContain('`branch_prefix`');
  });

  it('names the rule a protected branch says was broken, in the old and the new wording', () => {
    for (const line of [
      'remote: - Changes must be made through a pull request.',
      'remote: error: Changes must be made through a pull request.',
    ]) {
      const refusal = refusalOf(
        `remote: error: GH006: Protected branch update failed for refs/heads/main.\n${line}\n ! [remote rejected] main -> main (protected branch hook declined)`,
      )!;
      expect(refusal.rule).toBe('a protected branch (GH006): Changes must be made through a pull request');
      expect(refusal.advice).toContain('`branch_prefix`');
    }
  });

  it('is undefined for anything else (a network failure)', () => {
    expect(refusalOf('fatal: unable to access: Could not resolve host')).toBeUndefined();
  });
});
