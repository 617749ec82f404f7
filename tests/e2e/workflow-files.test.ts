// A change the token cannot push does not cost the rest of the work, end to end through dist/index.js: the
// model fixes index.js and adds a workflow file; GitHub refuses the workflow part (the emulator's GraphQL
// and the origin's pre-receive hook, in GitHub's words); the pull request opens with the rest, the workflow
// part attached as a patch, and the step's error and the job summary name the rule.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { reply, text, toolUse, type RecordedRequest } from '../support/anthropic/server.js';
import { planAt } from '../support/anthropic/scenarios.js';
import { refuseWorkflowPushes } from '../support/github/origin-rules.js';
import { ACTION_USERS, originGit, useWorldsPerTest, type World } from './setup.js';

let world: World | undefined;
const worlds = useWorldsPerTest();

const FILES = {
  'package.json': '{ "name": "adder", "scripts": { "test": "node test.js" } }\n',
  'index.js': 'module.exports = (a, b) => a - b;\n',
  'test.js': "const add = require('./index.js');\nif (add(1, 2) !== 3) process.exit(1);\n",
};
const TASK = 'Fix add() in index.js and run the tests in CI on every push';
const PLAN = [
  { text: 'Fix add()', activeForm: 'Fixing add()' },
  { text: 'Add a CI workflow', activeForm: 'Adding a CI workflow' },
];
const WORKFLOW = '.github/workflows/test.yml';

function script() {
  const command = [
    "printf 'module.exports = (a, b) => a + b;\\n' > index.js",
    'mkdir -p .github/workflows',
    `printf 'name: test\\non: push\\njobs:\\n  test:\\n    runs-on: ubuntu-latest\\n    steps:\\n      - uses: actions/checkout@v4\\n      - run: npm test\\n' > ${WORKFLOW}`,
    'node test.js',
  ].join(' && ');
  return [
    reply(planAt(0, PLAN)),
    reply(toolUse('bash', { command })),
    reply(planAt(2, PLAN)),
    reply(text('Fixed add() and added a CI workflow that runs npm test.')),
  ];
}

/** Everything the model was sent in a request, as text. */
const sent = (request: RecordedRequest) => JSON.stringify(request.body.messages);

describe.each(ACTION_USERS)('workflow files the token may not change (dist/index.js), as $who', ({ as }) => {
  it('with the workflow token: the model is told up front, the rest becomes the pull request', async () => {
    world = await worlds.create(script(), { files: FILES, workflowsPermission: false });
    await refuseWorkflowPushes(world.sandbox.origin);
    const run = await world.trigger(`/agent ${TASK}`, { as });
    const { github, model } = world;
    expect(github.violations).toEqual([]);
    expect(model.remaining()).toBe(0);
    // Told in its environment note, before it planned; its last look lists the file as left out.
    expect(sent(model.requests[0]!)).toContain(
      "Workflow files: this run's token may not create, change or delete files under .github/workflows/",
    );
    expect(sent(model.requests[3]!)).toContain(
      `Left out of the pull request, because this token may not create or change workflow files (their change is attached to it as a patch):\\n- ${WORKFLOW}`,
    );
    // The pull request holds the fix, signed by GitHub; nothing was sent that touched the workflow.
    const branch = 'agent/issue-1-4242';
    expect((await originGit(world, 'diff', '--name-only', `main...${branch}`)).split('\n')).toEqual([
      'index.js',
    ]);
    expect(github.state.apiCommits).toHaveLength(1);
    const pr = github.state.pulls[0]!;
    expect(run.outputs.pr_url).toContain('/pull/');
    expect(pr.body).toContain('### Not in this pull request');
    expect(pr.body).toContain(`The run also changed \`${WORKFLOW}\`, which this pull request leaves out`);
    expect(pr.body).toContain('+      - run: npm test');
    // One verdict everywhere: `partial`. The step passes with a warning that names the rule and the part left
    // out; the record's last line, the job summary and the checklist's heading say the same.
    expect(run.outputs.status).toBe('partial');
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('::error::');
    expect(run.stdout).toContain(
      `::warning::todo-agent delivered the work without ${WORKFLOW} (their change is attached to the pull request as a patch): the token may not create or change workflow files (${WORKFLOW}).`,
    );
    const summaryLine = run.summary.split('\n').find((line) => line.startsWith('delivery: '))!;
    expect(summaryLine).toContain(`left out ${WORKFLOW} (the token may not create or change workflow files`);
    const record = (await readFile(run.outputs.transcript!, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(record.at(-1)).toMatchObject({ type: 'result', status: 'partial' });
    expect(run.summary).toContain('⚠️ todo-agent finished, with a part left out:');
    expect(record.find((line) => line.type === 'delivery').withheld.patch).toContain('+name: test');
    // The checklist says where the work went, and what it went without.
    const comment = world.botComments()[0]!.body;
    expect(comment).toContain('### ⚠️ todo-agent finished, with a part left out:');
    expect(comment).toContain('The work went ahead without');
    expect(comment).toContain(`PR #${pr.number}`);
    // The workflow file stays in the workspace for whoever applies it.
    expect(await readFile(`${world.sandbox.workspace}/${WORKFLOW}`, 'utf8')).toContain('npm test');
  });

  it('with an app token GitHub refuses: the push goes again without the workflow, in one commit', async () => {
    world = await worlds.create(script(), {
      files: FILES,
      workflowsPermission: false,
      appBot: 'todo-app[bot]',
    });
    await refuseWorkflowPushes(world.sandbox.origin);
    const run = await world.trigger(`/agent ${TASK}`, { as, inputs: { signed_commits: 'false' } });
    const { github, model } = world;
    expect(github.violations).toEqual([]);
    // Nothing told the model: only GitHub's refusal says what this token may do.
    expect(sent(model.requests[0]!)).not.toContain('Workflow files:');
    const branch = 'agent/issue-1-4242';
    expect((await originGit(world, 'diff', '--name-only', `main...${branch}`)).split('\n')).toEqual([
      'index.js',
    ]);
    expect(await originGit(world, 'rev-list', '--count', `main..${branch}`)).toBe('1');
    const pr = github.state.pulls[0]!;
    expect(pr.body).toContain('(GitHub refused them)');
    expect(pr.body).toContain('+name: test');
    expect(run.outputs.status).toBe('partial');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `::warning::todo-agent delivered the work without ${WORKFLOW} (their change is attached to the pull request as a patch): the token may not create or change workflow files`,
    );
  });
});
