import { describe, expect, it } from 'vitest';
import { estimateInputTokens, MODEL_MODES, reply, text, toolUse } from '../support/anthropic/server.js';
import { LONG_RUN_FILE, longReadScript, longRunFileText } from '../support/bench/scripts.js';
import {
  HELLO_FILES,
  HELLO_RESULT,
  HELLO_TASK,
  helloScript,
  planAt,
} from '../support/anthropic/scenarios.js';
import { KEY, originGit, TOKEN, useWorldsPerTest, type World } from './setup.js';

let world: World | undefined;
const worlds = useWorldsPerTest();

const gitShow = (w: World, spec: string) => originGit(w, 'show', spec);

describe.each(MODEL_MODES)('the bundled action (dist/index.js) as a runner runs it (%s)', (mode) => {
  it('turns `/agent <task>` into a live checklist comment and a pull request that closes the issue', async () => {
    // A model that takes a moment per reply, so the comment shows the list moving.
    world = await worlds.create(helloScript(), { latencyMs: 400, mode });
    // On Sonnet 5.5 the key and endpoint come from a job-level `env:` instead of the inputs.
    const fromEnv = { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: world.model.url };
    const run = await world.trigger(
      `/agent ${HELLO_TASK}`,
      mode === 'sonnet-5-5'
        ? { inputs: { anthropic_api_key: '', anthropic_base_url: '' }, env: fromEnv }
        : {},
    );
    const { github, model } = world;

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(github.violations).toEqual([]);
    expect(model.violations).toEqual([]);
    expect(model.remaining()).toBe(0);

    // Outputs.
    expect(run.outputs.status).toBe('completed');
    expect(run.outputs.branch).toBe('agent/issue-1-4242');
    const pr = github.state.pulls[0]!;
    expect(run.outputs.pr_url).toBe(pr.html_url);
    expect(JSON.parse(run.outputs.todos!).map((t: { status: string }) => t.status)).toEqual(
      Array(4).fill('completed'),
    );
    const usage = JSON.parse(run.outputs.usage!) as Record<string, number>;
    expect(usage.output_tokens).toBeGreaterThan(0);
    expect(Number(run.outputs.cost_usd)).toBeGreaterThan(0);

    // One checklist comment, created beside the first model call (tests/e2e/waits.test.ts: the model
    // does not wait for it), then only edited.
    const comments = world.botComments();
    expect(comments).toHaveLength(1);
    const [checklist] = comments;
    expect(
      github.calls.filter((c) => c.method === 'POST' && c.path.endsWith('/issues/1/comments')),
    ).toHaveLength(1);
    const versions = checklist!.versions;
    expect(versions.some((v) => v.includes('- [ ] 🔄 **Adding type hints**'))).toBe(true);
    expect(versions.length).toBeLessThanOrEqual(1 + 5 + 1); // planning, at most one per todo update, final
    expect(versions[0]).toContain('_planning…_');
    const done = versions.map((v) => (v.match(/^- \[x\] /gm) ?? []).length);
    expect(done).toEqual([...done].sort((a, b) => a - b)); // progress never goes backwards
    const final = checklist!.body;
    expect(final).toContain('✅ todo-agent finished');
    expect(final.match(/^- \[x\] /gm)).toHaveLength(4);
    expect(final).toContain(`#${pr.number}`);
    expect(final).toContain('<!-- agent-state');

    // The pull request and the pushed branch.
    expect(pr).toMatchObject({ head: 'agent/issue-1-4242', base: 'main', state: 'open' });
    expect(pr.body.startsWith('Closes #1')).toBe(true);
    expect(pr.body).toContain('moved the call under a `__main__` guard');
    expect(await gitShow(world, 'agent/issue-1-4242:hello.py')).toBe(HELLO_RESULT.trimEnd());
    const author = await originGit(world, 'log', '-1', '--format=%an <%ae>', 'agent/issue-1-4242');
    expect(author).toBe('github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>');

    // The pacer's rule for mutating requests: at most 5 in any second, one at a time (at the emulator).
    const writes = github.writes();
    for (let i = 5; i < writes.length; i++)
      expect(writes[i]!.at - writes[i - 5]!.at).toBeGreaterThanOrEqual(999);
    for (let i = 1; i < writes.length; i++)
      expect(writes[i]!.at).toBeGreaterThanOrEqual(writes[i - 1]!.answeredAt);

    // Reactions, log groups, job summary; no secret anywhere.
    const trigger = [...github.state.comments.values()].find((c) => c.user === 'maintainer')!;
    expect(trigger.reactions).toEqual(['eyes', 'rocket']);
    expect(run.stdout).toContain('::group::Turn 1');
    expect(run.summary).toContain('✅ todo-agent finished');
    expect(run.summary).toContain('Tool calls');
    // Each command's line says how it ended and how long it took, in the log and in the summary's record.
    const commandLine = /[·✗] bash python3 hello\.py \((exit \d+|killed), \d+ (ms|s)\)/;
    expect(run.stdout).toMatch(commandLine);
    expect(run.summary).toMatch(commandLine);
    // `::add-mask::` lines are how the runner learns what to mask; everything else must be clean.
    const log = run.stdout.split('\n').filter((line) => !line.startsWith('::add-mask::'));
    expect(run.stdout).toContain(`::add-mask::${TOKEN}`);
    const everything = [...log, run.summary, ...versions, pr.body].join('\n');
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(KEY);
  });

  it('reminds the model after three turns without a todo update, and the run still completes', async () => {
    world = await worlds.create(
      [
        reply(planAt(0)),
        reply(toolUse('bash', { command: 'ls' })),
        reply(toolUse('bash', { command: 'cat hello.py' })),
        reply(toolUse('bash', { command: 'echo "# notes" > NOTES.md' })),
        reply(planAt(4)),
        reply(text('Added NOTES.md.')),
      ],
      { mode },
    );
    const run = await world.trigger('/agent add a notes file', { inputs: { reminder_rounds: '3' } });
    expect(run.outputs.status).toBe('completed');
    const reminded = world.model.requests.map((r) =>
      JSON.stringify(r.body.messages.at(-1)).includes('<reminder>'),
    );
    expect(reminded).toEqual([false, false, false, false, true, false]);
    expect(world.model.violations).toEqual([]);
  });

  it('runs 300 turns held to max_context_tokens, clearing as it goes, with no request refused or over budget', async () => {
    const budget = 40_000;
    world = await worlds.create(longReadScript(300), {
      mode,
      files: { ...HELLO_FILES, [LONG_RUN_FILE]: longRunFileText(10_000) },
    });
    const run = await world.trigger('/agent summarise the logs', {
      inputs: { max_context_tokens: String(budget), max_turns: '400', max_cost_usd: 'none' },
    });
    expect(world.model.violations).toEqual([]);
    expect(run.outputs.status).toBe('completed');
    expect(world.model.requests).toHaveLength(301);
    const sizes = world.model.requests.map((r) => estimateInputTokens(r.body));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(budget);
    const cleared = world.model.requests.filter((r) =>
      JSON.stringify(r.body.messages.at(-1)).includes('<context-note>'),
    );
    expect(cleared.length).toBeGreaterThan(5);
  });

  it('stops at max_cost_usd as incomplete, with the cost in its outputs and comment', async () => {
    // 100,000 input + 1,000 output tokens an answer: $0.21 on Sonnet 5.5, $0.315 on Sonnet 4.5.
    const usage = {
      input_tokens: 100_000,
      output_tokens: 1_000,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    };
    const spend = (step: ReturnType<typeof reply>) => ({ ...step, usage });
    world = await worlds.create(
      [
        spend(reply(planAt(0))),
        spend(reply(toolUse('write_file', { path: 'NOTES.md', content: 'a start\n' }))),
        spend(reply(toolUse('bash', { command: 'true' }))),
        reply(text('never')),
      ],
      { mode },
    );
    const run = await world.trigger('/agent write notes', { inputs: { max_cost_usd: '0.5' } });
    expect(world.model.violations).toEqual([]);
    expect(run.outputs.status).toBe('incomplete');
    expect(run.outputs.cost_usd).toBe('0.6300');
    expect(world.model.requests).toHaveLength(mode === 'sonnet-5-5' ? 3 : 2);
    // Markdown-escaped in the comment.
    expect(world.botComments()[0]!.body).toContain(String.raw`passed the limit of \$0.50 \(max\_cost\_usd\)`);
  });
});

describe('the bundled action (dist/index.js) as a runner runs it', () => {
  it('stops at max_turns as incomplete, pushes the work to a branch, and opens no pull request', async () => {
    world = await worlds.create([
      reply(planAt(0)),
      reply(toolUse('write_file', { path: 'NOTES.md', content: 'half done\n' })),
      reply(toolUse('bash', { command: 'true' })),
    ]);
    const run = await world.trigger('/agent write notes', { inputs: { max_turns: '3' } });
    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('incomplete');
    expect(run.outputs.pr_url).toBe('');
    expect(world.github.state.pulls).toHaveLength(0);
    expect(await gitShow(world, `${run.outputs.branch}:NOTES.md`)).toBe('half done');
    const final = world.botComments()[0]!.body;
    expect(final).toContain('⏸ todo-agent stopped');
    expect(final).toContain('it reached the limit of 3 turns');
    expect(final).toContain('/agent continue');
    expect(final).toContain(run.outputs.branch!);
  });

  it('says so, and opens no pull request, when a completed run changed nothing', async () => {
    world = await worlds.create([
      reply(planAt(0)),
      reply(toolUse('read_file', { path: 'hello.py' })),
      reply(planAt(4)),
      reply(text('hello.py already has everything asked for; nothing to change.')),
    ]);
    const run = await world.trigger('/agent check hello.py');
    expect(run.outputs.status).toBe('completed');
    expect(run.outputs.pr_url).toBe('');
    expect(run.outputs.branch).toBe('');
    expect(world.github.state.pulls).toHaveLength(0);
    const final = world.botComments()[0]!.body;
    expect(final).toContain('✅ todo-agent finished');
    expect(final).toContain('no changes');
    const heads = await originGit(world, 'for-each-ref', '--format=%(refname:short)', 'refs/heads');
    expect(heads.trim()).toBe('main');
  });

  it('refuses a user without write permission with one reply, and never calls the model', async () => {
    world = await worlds.create([reply(text('never'))]);
    const run = await world.trigger('/agent delete everything', { user: 'reader' });
    expect(run.outputs.status).toBe('refused');
    expect(world.model.requests).toHaveLength(0);
    const replies = world.botComments();
    expect(replies).toHaveLength(1);
    expect(replies[0]!.body).toContain('only collaborators with write access');
    expect(world.github.violations).toEqual([]);
  });

  it('does nothing at all for a comment that is not a trigger', async () => {
    world = await worlds.create([reply(text('never'))]);
    const run = await world.trigger('Thanks, /agent looks great');
    expect(run.code).toBe(0);
    expect(run.outputs.status).toBe('skipped');
    expect(world.github.calls).toHaveLength(0);
    expect(world.model.requests).toHaveLength(0);
  });

  it('ignores bots, so its own comments can never trigger it', async () => {
    world = await worlds.create([reply(text('never'))]);
    const run = await world.trigger('/agent loop forever', { user: 'github-actions[bot]', userType: 'Bot' });
    expect(run.outputs.status).toBe('skipped');
    expect(world.github.calls).toHaveLength(0);
    expect(world.model.requests).toHaveLength(0);
  });

  it('answers `/agent` with no task with a usage reply', async () => {
    world = await worlds.create([reply(text('never'))]);
    const run = await world.trigger('/agent');
    expect(run.outputs.status).toBe('skipped');
    expect(world.botComments()[0]!.body).toContain('Usage: `/agent <what to do>`');
    expect(world.model.requests).toHaveLength(0);
  });

  it('reports a failed model readably: failed status, ❌ comment, 😕 reaction, no stack trace or secret', async () => {
    world = await worlds.create([
      { error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } },
    ]);
    const run = await world.trigger('/agent do it');
    expect(run.code).toBe(1);
    expect(run.outputs.status).toBe('failed');
    const final = world.botComments()[0]!.body;
    expect(final).toContain('❌ todo-agent failed');
    expect(final).toContain('refused the credentials');
    expect(final).not.toMatch(/\n\s+at /);
    expect(final).not.toContain(KEY);
    const trigger = [...world.github.state.comments.values()].find((c) => c.user === 'maintainer')!;
    expect(trigger.reactions).toEqual(['eyes', 'confused']);
  });
});
