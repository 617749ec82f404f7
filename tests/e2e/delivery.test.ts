// Delivery end to end through dist/index.js, as root and as the unprivileged runner user with sudo: the
// signed commit through the emulator's GraphQL, the fallback to git push for what the API cannot express,
// the model's last look at the files to be committed, what is held back, and pushes GitHub refuses.
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OWNER, REPO } from '../support/action-harness.js';
import { reply, text, toolUse, type RecordedRequest, type ScriptStep } from '../support/anthropic/server.js';
import { planAt } from '../support/anthropic/scenarios.js';
import { expectToContainAll } from '../support/contains.js';
import { refuseWorkflowPushes, requireSignedCommits } from '../support/github/origin-rules.js';
import { ACTION_USERS, createWorld, originGit, TOKEN, type World } from './setup.js';

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

/** The text blocks of a request's last message (the model's last look comes as one). */
const lastTexts = (request: RecordedRequest) =>
  (request.body.messages.at(-1)!.content as Array<{ type: string; text?: string }>)
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- record lines, read field by field
const recordLines = (raw: string): any[] =>
  raw
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

describe.each(ACTION_USERS)('delivery (dist/index.js), as $who', ({ as }) => {
  it('commits through GraphQL createCommitOnBranch, signed, and the local branch matches the remote', async () => {
    world = await createWorld(oneCommand('printf \'print("hi")\\n\' > tool.py'));
    const run = await world.trigger(`/agent ${TASK}`, { as });
    const { github } = world;
    expect(run.stderr).toBe('');
    expect(github.violations).toEqual([]);
    expect(run.outputs.status).toBe('completed');
    const branch = 'agent/issue-1-4242';
    expect(github.calls.some((c) => c.operationId === 'git/create-ref' && c.status === 201)).toBe(true);
    expect(github.state.apiCommits).toHaveLength(1);
    const [commit] = github.state.apiCommits;
    expect(await originGit(world, 'rev-parse', `refs/heads/${branch}`)).toBe(commit!.oid);
    // The local branch is GitHub's commit, so a later `continue` starts from it.
    expect(await world.sandbox.git(['rev-parse', 'HEAD'])).toBe(commit!.oid);
    const message = await originGit(world, 'log', '-1', '--format=%an <%ae>|%cn|%B', branch);
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
    const run = await world.trigger(`/agent ${TASK}`, { as });
    const { github } = world;
    expect(github.violations).toEqual([]);
    expect(run.outputs.status, run.stdout).toBe('completed');
    expect(github.state.apiCommits).toEqual([]);
    const tree = await originGit(world, 'ls-tree', 'agent/issue-1-4242', 'run.sh');
    expect(tree.startsWith('100755 ')).toBe(true);
    expect(github.state.pulls[0]!.body).toContain('pushed with git, so GitHub did not sign it');
    expect(github.state.pulls[0]!.body).toContain('executable');
  });

  it('deletes the branch made at the last look when the model then undoes its whole change', async () => {
    world = await createWorld([
      reply(planAt(0, PLAN)),
      reply(toolUse('bash', { command: 'echo scratch > tool.py' })),
      reply(planAt(1, PLAN)),
      // The last look lists tool.py, and the branch for the signed commit is made then; the model removes it.
      reply(toolUse('bash', { command: 'rm tool.py' })),
      reply(text('On second thought the repository needs no change.')),
    ]);
    const run = await world.trigger(`/agent ${TASK}`, { as });
    const { github } = world;
    expect(github.violations).toEqual([]);
    expect(run.outputs.status, run.stdout).toBe('completed');
    const refs = github.calls.filter((c) => c.operationId?.startsWith('git/')).map((c) => c.operationId);
    expect(refs).toEqual(['git/create-ref', 'git/delete-ref']);
    expect(await originGit(world, 'branch', '--list', 'agent/*')).toBe('');
    expect(github.state.pulls).toEqual([]);
    expect(world.botComments()[0]!.body).toContain('left no changes in the repository');
  });

  it('commits a link inside the repository as a link, and holds back one leading out of it', async () => {
    world = await createWorld(
      oneCommand('ln -s hello.py greet.py && ln -s /home/runner/.npmrc npmrc && ln -s ../../etc/passwd up'),
    );
    const run = await world.trigger(`/agent ${TASK}`, { as });
    const { github } = world;
    expect(github.violations).toEqual([]);
    expect(run.outputs.status, run.stdout).toBe('completed');
    const files = await originGit(world, 'ls-tree', 'agent/issue-1-4242');
    expect(files).toMatch(/^120000 blob \S+\tgreet\.py$/m);
    expect(files).not.toMatch(/\t(npmrc|up)$/m);
    // The model saw it in its last look, and the pull request says so.
    const look = world.model.requests.flatMap(lastTexts).find((t) => t.startsWith('Before delivery'));
    expect(look).toContain('- npmrc: a symbolic link leading out of the repository');
    expect(github.state.pulls[0]!.body).toContain('a symbolic link leading out of the repository');
  });

  it('commits a tracked link retargeted out of the repository as it was, and the rest of the change', async () => {
    world = await createWorld(oneCommand('ln -sfn /home/runner/.npmrc current && echo tool > tool.py'));
    // The repository already holds a link, `current` → v1.txt, on main.
    await writeFile(join(world.sandbox.workspace, 'v1.txt'), 'one\n');
    await symlink('v1.txt', join(world.sandbox.workspace, 'current'));
    await world.sandbox.git(['add', '-A']);
    await world.sandbox.git(['commit', '-q', '-m', 'Add current']);
    await world.sandbox.git(['push', '-q', 'origin', 'main']);
    const run = await world.trigger(`/agent ${TASK}`, { as });
    const { github } = world;
    expect(github.violations).toEqual([]);
    expect(run.outputs.status, run.stdout).toBe('completed');
    const target = await originGit(world, 'cat-file', '-p', 'agent/issue-1-4242:current');
    expect(target).toBe('v1.txt');
    expect(await originGit(world, 'diff', '--name-only', 'main...agent/issue-1-4242')).toBe('tool.py');
    expect(github.state.pulls[0]!.body).toContain('a symbolic link changed to lead out of the repository');
  });

  it("holds back a real virtualenv, node_modules and caches; the model sees the list and deletes a stray: the pull request holds the task's files only", async () => {
    const command = [
      'printf \'from setuptools import setup\\nsetup(name="greet", version="0.1", packages=["pkg"])\\n\' > setup.py',
      "mkdir -p pkg node_modules/left-pad && touch pkg/__init__.py && printf 'def tool():\\n    return 1\\n' > pkg/tool.py",
      // The run this issue saw: a virtualenv the task made, the package installed in it as editable (from
      // the venv's own setuptools: there is no index to fetch build tools or pytest from here).
      'python3 -m venv .venv && .venv/bin/pip install -q --no-index --no-build-isolation -e .',
      'echo "module.exports = 1" > node_modules/left-pad/index.js',
      // __pycache__/ is in this repository's .gitignore; a stray .pyc outside it is not.
      'echo x > pkg/mod.cpython-311.pyc && touch .DS_Store',
    ].join(' && ');
    world = await createWorld([
      reply(planAt(0, PLAN)),
      reply(toolUse('bash', { command })),
      reply(planAt(1, PLAN)),
      // Its last look, beside the todo results: pip left greet.egg-info in the work tree, a stray.
      reply(toolUse('bash', { command: 'rm -rf greet.egg-info' })),
      reply(text('Removed greet.egg-info, which pip made; the rest is the task.')),
    ]);
    const run = await world.trigger(`/agent ${TASK}`, { as });
    const { github, model } = world;
    expect(github.violations).toEqual([]);
    expect(run.outputs.status).toBe('completed');
    expect(model.remaining()).toBe(0);
    // The list came with the results of the todo call that completed it, once, with line counts.
    const looks = lastTexts(model.requests[3]!);
    expect(looks).toHaveLength(1);
    const look = looks[0]!;
    expect(look).toContain('the files that will be committed (');
    expect(look).toContain('- pkg/tool.py (new, +2 −0)');
    expect(look).toContain('- setup.py (new, +2 −0)');
    expect(look).toContain('- pkg/__init__.py (new, +0 −0)');
    expect(look).toMatch(/- greet\.egg-info\/PKG-INFO \(new, \+\d+ −0\)/);
    expect(look).toContain('- .venv: a Python virtualenv');
    expect(look).not.toContain('.venv/');
    expect(JSON.stringify(model.requests[4]!.body.messages.at(-1))).not.toContain(
      'files that will be committed',
    );
    const files = await originGit(world, 'diff', '--name-only', 'main...agent/issue-1-4242');
    expect(files.split('\n')).toEqual(['pkg/__init__.py', 'pkg/tool.py', 'setup.py']);
    const body = github.state.pulls[0]!.body;
    expect(body).toContain('### Held back');
    expect(body).toMatch(/`\.venv` \(\d+ files\): a Python virtualenv/);
    expect(body).toContain('`node_modules`');
    expect(body).toContain('`pkg/mod.cpython-311.pyc`: Python bytecode');
    expect(body).toContain('`.DS_Store`');
    expect(body).not.toMatch(/`greet\.egg-info/);
    // The job summary's delivery line (the record as the terminal shows it) groups them as the PR does.
    const line = run.summary.split('\n').find((l) => l.startsWith('delivery: '))!;
    expect(line).toMatch(/held back: .*\.venv \(\d+ files\): a Python virtualenv \(it holds pyvenv\.cfg\)/);
    expect(line).toContain('node_modules: installed Node packages');
    expect(line).not.toContain('.venv/');
    expect(line.length).toBeLessThan(600);
  });

  it('keeps the work of a push refused for a workflow file: the patch in the comment, and what to change', async () => {
    world = await createWorld(
      oneCommand("mkdir -p .github/workflows && printf 'name: ci\\non: push\\n' > .github/workflows/ci.yml"),
      { workflowsPermission: false },
    );
    await refuseWorkflowPushes(world.sandbox.origin);
    const run = await world.trigger(`/agent ${TASK}`, { inputs: { signed_commits: 'false' }, as });
    const { github } = world;
    expect(github.violations).toEqual([]);
    expect(github.state.pulls).toEqual([]);
    expect(await originGit(world, 'branch', '--list', 'agent/*')).toBe('');
    const [checklist] = world.botComments();
    const comment = checklist!.body;
    expectToContainAll(comment, [
      'GitHub refused the work:',
      'may not create or change workflow files \\(.github/workflows/ci.yml\\)',
      'Workflows: write',
      '<details><summary>',
      '+name: ci',
      'diff --git a/.github/workflows/ci.yml b/.github/workflows/ci.yml',
    ]);
    expect(comment.split('\n')[0]).toMatch(/^### 🚫 GitHub refused the delivery of: /);
    // Work that did not reach GitHub fails the step, and the trigger says so (😕, not 👍).
    expect(run.outputs.status).toBe('failed');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('::error::todo-agent could not deliver the work');
    const trigger = [...github.state.comments.values()].find((c) => c.user === 'maintainer')!;
    expect(trigger.reactions).toEqual(['eyes', 'confused']);
    expect(comment).not.toContain(TOKEN);
    const lines = recordLines(await readFile(run.outputs.transcript!, 'utf8'));
    const delivery = lines.find((line) => line.type === 'delivery');
    expect(delivery.refused.reason).toContain('may not create or change workflow files');
    expect(delivery.refused.patch).toContain('+name: ci');
    // The record's last line says what the step's outputs say, and names the rule as the ::error:: does.
    expect(lines.at(-1)).toMatchObject({ type: 'result', status: 'failed' });
    expect(lines.at(-1).reason).toContain('may not create or change workflow files');
    expect(run.stdout).toMatch(
      /::error::todo-agent could not deliver the work .*may not create or change workflow files/,
    );
  });

  it('keeps the work the API refuses for a workflow file, and leaves no empty branch behind', async () => {
    // An app's token: whether it may change workflow files, only GitHub's refusal tells.
    world = await createWorld(
      oneCommand("mkdir -p .github/workflows && printf 'name: ci\\n' > .github/workflows/ci.yml"),
      { workflowsPermission: false, appBot: 'todo-app[bot]' },
    );
    const run = await world.trigger(`/agent ${TASK}`, { as });
    const { github } = world;
    expect(github.violations).toEqual([]);
    // The branch was made for the commit (REST), the commit refused (GraphQL), the branch deleted once.
    const operations = github.calls
      .filter((c) => c.operationId?.startsWith('git/'))
      .map((c) => `${c.operationId} ${c.status}`);
    expect(operations).toEqual(['git/create-ref 201', 'git/delete-ref 204']);
    expect(await originGit(world, 'branch', '--list', 'agent/*')).toBe('');
    expect(github.state.apiCommits).toEqual([]);
    expect(github.state.pulls).toEqual([]);
    const comment = world.botComments()[0]!.body;
    expect(comment.split('\n')[0]).toMatch(/^### 🚫 GitHub refused the delivery of: /);
    expect(comment).toContain('may not create or change workflow files \\(.github/workflows/ci.yml\\)');
    expect(comment).toContain('+name: ci');
    expect(run.outputs.status).toBe('failed');
  });

  it('keeps the work a ruleset refuses for its unsigned commit (GH013), and delivers it signed by default', async () => {
    world = await createWorld([
      ...oneCommand("printf 'print(1)\\n' > tool.py"),
      ...oneCommand("printf 'print(1)\\n' > tool.py"),
    ]);
    await requireSignedCommits(world.sandbox.origin, OWNER, REPO);
    const refused = await world.trigger(`/agent ${TASK}`, { inputs: { signed_commits: 'false' }, as });
    const { github } = world;
    expect(github.violations).toEqual([]);
    expect(github.state.pulls).toEqual([]);
    const comment = world.botComments()[0]!.body;
    expect(comment.split('\n')[0]).toMatch(/^### 🚫 GitHub refused the delivery of: /);
    expect(comment).toContain(
      '**GitHub refused the work:** a repository ruleset \\(GH013\\): Commits must have verified signatures.',
    );
    // Our advice renders once: its backticks are code, not escaped characters.
    expect(comment).toContain('leave `signed_commits` on \\(its default\\)');
    expect(comment).toContain('<details><summary>');
    expect(comment).toContain('+print(1)');
    const delivery = recordLines(await readFile(refused.outputs.transcript!, 'utf8')).find(
      (line) => line.type === 'delivery',
    );
    expect(delivery.refused.reason).toContain('Commits must have verified signatures');
    expect(delivery.refused.patch).toContain('+++ b/tool.py');
    // What the advice says: with signed commits on (the default), GitHub makes and signs the commit.
    const signed = await world.trigger(`/agent ${TASK}`, { as, runId: '4243' });
    expect(signed.outputs.status).toBe('completed');
    expect(github.state.apiCommits).toHaveLength(1);
    expect(github.state.pulls).toHaveLength(1);
    expect(world.botComments().at(-1)!.body.split('\n')[0]).toMatch(/^### ✅ todo-agent finished: /);
  });
});
