// Workflow files left out of the work with our real git, so that a token without the workflows permission
// costs only them: taken out of what is staged, or out of the commits made, each time kept as a patch.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitWithout, isWorkflowFile, takeOutStagedWorkflows } from '../../src/delivery/workflow-files.js';
import { useWorkTree } from '../support/delivery-fixture.js';
import { commitFiles, git } from '../support/git-fixture.js';

const tree = useWorkTree('workflow-files-', { 'index.js': 'module.exports = 1;\n', 'README.md': '# Hi\n' });
const hide = (text: string) => text.replaceAll('s3cret', '***');
const CI = '.github/workflows/ci.yml';

describe('isWorkflowFile', () => {
  it('is a file under .github/workflows/ only', () => {
    expect(isWorkflowFile(CI)).toBe(true);
    expect(isWorkflowFile('.github/dependabot.yml')).toBe(false);
    expect(isWorkflowFile('docs/.github/workflows/x.yml')).toBe(false);
  });
});

describe('takeOutStagedWorkflows', () => {
  it('unstages the workflow files, leaves them on disk, and keeps their change as a redacted patch', async () => {
    const { dir, repo, start, write } = tree;
    write(CI, 'name: ci\nenv: { TOKEN: s3cret }\n');
    write('index.js', 'module.exports = 2;\n');
    git(dir, 'add', '-A');
    const withheld = await takeOutStagedWorkflows(repo, start, [CI], hide);
    expect(git(dir, 'diff', '--cached', '--name-only')).toBe('index.js');
    expect(readFileSync(join(dir, CI), 'utf8')).toContain('s3cret');
    expect(withheld).toMatchObject({ paths: [CI], refused: false });
    expect(withheld.refusal.rule).toContain(CI);
    expect(withheld.patch).toContain('+env: { TOKEN: *** }');
    expect(withheld.patch).not.toContain('index.js');
  });
});

describe('commitWithout', () => {
  const message = 'Fix index.js';

  it('makes the commits since the start again as one without the workflow files, which it keeps as a patch', async () => {
    const { dir, repo, start, write } = tree;
    commitFiles(dir, { 'index.js': 'module.exports = 2;\n' }, 'one');
    write(CI, 'name: ci\n');
    commitFiles(dir, { 'README.md': '# Hello\n' }, 'two');
    const withheld = await commitWithout(repo, { startSha: start, commitMessage: message, redact: hide });
    expect(withheld).toMatchObject({ paths: [CI], refused: true });
    expect(withheld!.patch).toContain('+name: ci');
    expect(git(dir, 'rev-list', '--count', `${start}..HEAD`)).toBe('1');
    expect(git(dir, 'log', '-1', '--format=%s')).toBe(message);
    expect(git(dir, 'diff', '--name-only', start, 'HEAD').split('\n')).toEqual(['README.md', 'index.js']);
    // The workflow file stays on disk, out of the commit.
    expect(existsSync(join(dir, CI))).toBe(true);
  });

  it('changes nothing when the work is only workflow files, or touches none', async () => {
    const { dir, repo, start, write } = tree;
    write(CI, 'name: ci\n');
    commitFiles(dir, {}, 'only a workflow');
    const head = git(dir, 'rev-parse', 'HEAD');
    expect(
      await commitWithout(repo, { startSha: start, commitMessage: message, redact: hide }),
    ).toBeUndefined();
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    git(dir, 'rm', '-q', CI);
    commitFiles(dir, { 'index.js': 'module.exports = 3;\n' }, 'no workflow left');
    const after = git(dir, 'rev-parse', 'HEAD');
    expect(
      await commitWithout(repo, { startSha: after, commitMessage: message, redact: hide }),
    ).toBeUndefined();
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(after);
  });
});
