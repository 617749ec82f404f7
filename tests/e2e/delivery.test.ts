// Delivery end to end through dist/index.js: the signed commit through the emulator's GraphQL, the fallback
// to git push for what the API cannot express, what is held back, and a push GitHub refuses.
import { afterEach, describe, expect, it } from 'vitest';
import { reply, text, toolUse, type ScriptStep } from '../support/anthropic/server.js';
import { planAt } from '../support/anthropic/scenarios.js';
import { refuseWorkflowPushes } from '../support/github/origin-rules.js';
import { createWorld, TOKEN, type World } from './setup.js';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const TASK =
  'Add a small greeting tool next to hello.py, with a test, and keep the rest of the repository exactly as it is';
const PLAN = [{ text: 'Write the greeting tool', activeForm: 'Writing the greeting tool' }];

/** One item, one bash call that makes the change, the item done, a summary. */
function oneCommand(command: string): ScriptStep[] {
  return [
    reply(planAt(0, PLAN)),
    reply(toolUse('bash', { command })),
    reply(planAt(1, PLAN)),
    reply(text('Wrote the tool.')),
  ];
}

const originGit = (w: World, args: string[]) =>
  w.sandbox.git(['--git-dir', w.sandbox.origin, ...args], w.sandbox.root);

describe('delivery (dist/index.js)', () => {
  it('commits through GraphQL createCommitOnBranch, signed, and the local branch matches the remote', async () => {
    world = await createWorld(oneCommand('printf \'print("hi")\\n\' > tool.py'));
    const run = await world.trigger(`/agent ${TASK}`);
    const { github } = world;
    expect(run.stderr).toBe('');
    expect(github.violations).toEqual([]);
    expect(run.outputs.status).toBe('completed');
    const branch = 'agent/issue-1-4242';
    expect(github.calls.some((c) => c.operationId === 'git/create-ref' && c.status === 201)).toBe(true);
    expect(github.state.apiCommits).toHaveLength(1);
    const [commit] = github.state.apiCommits;
    expect(await originGit(world, ['rev-parse', `refs/heads/${branch}`])).toBe(commit!.oid);
    // The local branch is GitHub's commit, so a later `continue` starts from it.
    expect(await world.sandbox.git(['rev-parse', 'HEAD'])).toBe(commit!.oid);
    const message = await originGit(world, ['log', '-1', '--format=%an <%ae>|%cn|%B', branch]);
    const [author, committer, body] = message.split('|');
    expect(author).toBe('github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>');
    expect(committer).toBe('GitHub');
    const [subject] = body!.split('\n');
    expect(subject!.length).toBeLessThanOrEqual(72);
    expect(subject).toMatch(/^Add a small greeting tool next to hello\.py, with a test, and keep the/);
    expect(body).toContain('- Write the greeting tool');
    expect(body).toMatch(/Co-authored-by: maintainer <\d+\+maintainer@users\.noreply\.github\.com>/);
    expect(body).toContain('/actions/runs/4242');
    // One request opens the pull request with its whole description: the files as git counts them.
    const pr = github.state.pulls[0]!;
    expect(pr.body).toContain('`tool.py` +1 −0 (added)');
    expect(github.calls.filter((c) => c.operationId === 'pulls/update')).toHaveLength(0);
    expect(github.calls.filter((c) => c.operationId === 'pulls/list-files')).toHaveLength(0);
  });

  it('pushes with git, and says why, when the change holds an executable file', async () => {
    world = await createWorld(oneCommand("printf '#!/bin/sh\\necho hi\\n' > run.sh && chmod +x run.sh"));
    const run = await world.trigger(`/agent ${TASK}`);
    const { github } = world;
    expect(github.violations).toEqual([]);
    expect(run.outputs.status).toBe('completed');
    expect(github.state.apiCommits).toEqual([]);
    const tree = await originGit(world, ['ls-tree', 'agent/issue-1-4242', 'run.sh']);
    expect(tree.startsWith('100755 ')).toBe(true);
    expect(github.state.pulls[0]!.body).toContain('pushed with git, so GitHub did not sign it');
    expect(github.state.pulls[0]!.body).toContain('executable');
  });

  it('holds back a virtualenv, node_modules and caches the task made: the pull request holds its files only', async () => {
    const command = [
      'python3 -m venv .venv',
      'mkdir -p node_modules/left-pad pkg',
      'echo "module.exports = 1" > node_modules/left-pad/index.js',
      // __pycache__/ is in this repository's .gitignore; a stray .pyc outside it is not.
      'echo x > pkg/mod.cpython-311.pyc',
      'touch .DS_Store',
      "printf 'def tool():\\n    return 1\\n' > pkg/tool.py",
    ].join(' && ');
    // Something is held back, so the model gets its last look at the list, and says it is right.
    world = await createWorld([...oneCommand(command), reply(text('The list is right: only pkg/tool.py.'))]);
    const run = await world.trigger(`/agent ${TASK}`);
    const { github, model } = world;
    expect(github.violations).toEqual([]);
    expect(run.outputs.status).toBe('completed');
    expect(model.remaining()).toBe(0);
    const review = JSON.stringify(model.requests.at(-1)!.body);
    expect(review).toContain('check the files that will be committed (1)');
    expect(review).toContain('pkg/tool.py (new, +2 −0)');
    expect(review).toContain('.venv: a Python virtualenv');
    const files = await originGit(world, ['diff', '--name-only', 'main...agent/issue-1-4242']);
    expect(files.split('\n')).toEqual(['pkg/tool.py']);
    const body = github.state.pulls[0]!.body;
    expect(body).toContain('### Held back');
    expect(body).toMatch(/`\.venv` \(\d+ files\): a Python virtualenv/);
    expect(body).toContain('`node_modules`');
    expect(body).toContain('`pkg/mod.cpython-311.pyc`: Python bytecode');
    expect(body).toContain('`.DS_Store`');
  });

  it('keeps the work of a push refused for a workflow file: the patch in the comment, and what to change', async () => {
    world = await createWorld(
      oneCommand("mkdir -p .github/workflows && printf 'name: ci\\non: push\\n' > .github/workflows/ci.yml"),
      { workflowsPermission: false },
    );
    await refuseWorkflowPushes(world.sandbox.origin);
    const run = await world.trigger(`/agent ${TASK}`, { inputs: { signed_commits: 'false' } });
    const { github } = world;
    expect(github.violations).toEqual([]);
    expect(github.state.pulls).toEqual([]);
    expect(await originGit(world, ['branch', '--list', 'agent/*'])).toBe('');
    const [checklist] = world.botComments();
    const comment = checklist!.body;
    expect(comment).toContain('GitHub refused the work:');
    expect(comment).toContain('may not create or change workflow files \\(.github/workflows/ci.yml\\)');
    expect(comment).toContain('Workflows: write');
    expect(comment).toContain('<details><summary>');
    expect(comment).toContain('+name: ci');
    expect(comment).toContain('diff --git a/.github/workflows/ci.yml b/.github/workflows/ci.yml');
    expect(run.outputs.status).toBe('completed');
    expect(comment).not.toContain(TOKEN);
  });
});
