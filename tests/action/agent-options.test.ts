// What the settings and the work plan make of the agent's options (src/action/agent-options.ts): the parts that
// are pure (the model's auth and choices, the run's facts, the verify gate, the view of an earlier run), tested
// here from real settings read from a runner's environment. agentOptions as a whole runs in tests/e2e/.
import { describe, expect, it } from 'vitest';
import { briefingOf, modelAuth, modelChoices, runFacts, verifyGate } from '../../src/action/agent-options.js';
import type { OwnPlan, WorkPlan } from '../../src/github/request/work-plan.js';
import { addSecret, githubIdToken } from '../../src/runner/output.js';
import { readSettings } from '../../src/settings/settings.js';
import { RUNNER_ENV } from '../support/runner-env.js';

const RUNNER = { ...RUNNER_ENV, INPUT_GITHUB_TOKEN: 'ghs_agentOptionsTest' };
const KEY = 'sk-ant-agent-options-test';
const settingsWith = (inputs: NodeJS.ProcessEnv = {}) =>
  readSettings({ ...RUNNER, INPUT_ANTHROPIC_API_KEY: KEY, ...inputs });

const plan = (more: Partial<OwnPlan> = {}): OwnPlan => ({
  kind: 'fresh',
  branch: 'agent/issue-7',
  base: 'main',
  task: 'Fix add()',
  continuesBranch: false,
  ...more,
});

describe('modelAuth', () => {
  it('hands the model the API key when there is no federation rule', () => {
    expect(modelAuth(settingsWith())).toEqual({ apiKey: KEY });
  });

  it("with a federation rule, uses no key: the job's OIDC token is asked for anew and masked as it comes", () => {
    const settings = readSettings({
      ...RUNNER,
      INPUT_FEDERATION_RULE_ID: 'fdrl_example',
      INPUT_ORGANIZATION_ID: '00000000-0000-4000-8000-000000000001',
      INPUT_SERVICE_ACCOUNT_ID: 'svac_example',
      ACTIONS_ID_TOKEN_REQUEST_URL: 'https://token.actions.example/abc',
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'id-token-request-token',
    });
    const auth = modelAuth(settings);
    expect(auth.apiKey).toBeUndefined();
    expect(auth.federation).toMatchObject({
      federationRuleId: 'fdrl_example',
      organizationId: '00000000-0000-4000-8000-000000000001',
      serviceAccountId: 'svac_example',
    });
    expect(auth.federation!.identityToken).toBe(githubIdToken);
    expect(auth.federation!.onSecret).toBe(addSecret);
  });
});

describe('modelChoices', () => {
  it('passes effort and prices only when they are set, and always the compaction setting', () => {
    const plain = modelChoices(settingsWith());
    expect(Object.keys(plain).sort()).toEqual(['compaction', 'onNotice']);
    const chosen = modelChoices(settingsWith({ INPUT_EFFORT: 'high', INPUT_PRICE_PER_MTOK: '3, 15' }));
    expect(chosen).toMatchObject({ effort: 'high', pricePerMtok: { input: 3, output: 15 } });
    expect(chosen.compaction).toBe(plain.compaction);
  });
});

describe('verifyGate', () => {
  it('is empty without a verify command, and names the command and its attempts with one', () => {
    expect(verifyGate(settingsWith())).toEqual({});
    expect(
      verifyGate(settingsWith({ INPUT_VERIFY_COMMAND: 'npm test', INPUT_VERIFY_ATTEMPTS: '3' })),
    ).toEqual({
      verify: { command: 'npm test', attempts: 3 },
    });
  });
});

describe('runFacts', () => {
  it("tells the model the repository, its branches and today's date, and no network without a sandbox", () => {
    const facts = runFacts(settingsWith(), plan());
    expect(facts).toMatchObject({
      repository: 'octo-org/hello-world',
      baseBranch: 'main',
      branch: 'agent/issue-7',
      freshCheckout: true,
    });
    expect(facts.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(facts).not.toHaveProperty('network');
    expect(facts).not.toHaveProperty('contributor');
    expect(facts).not.toHaveProperty('verifyCommand');
  });

  it("says the sandbox's network: off without one, the allowlist when gated, nothing when it reaches every host", () => {
    expect(runFacts(settingsWith(), plan(), 'none').network).toBe('off');
    expect(runFacts(settingsWith(), plan(), 'gated').network).toBe('allowlist');
    expect(runFacts(settingsWith(), plan(), 'host')).not.toHaveProperty('network');
  });

  it("names a fork's contributor, where the work comes from and how it goes back, and the verify command", () => {
    const fork: WorkPlan = {
      ...plan(),
      kind: 'fork',
      continuesBranch: false,
      fork: {
        number: 9,
        repo: 'someone/hello-world',
        ref: 'patch-1',
        author: 'someone',
        maintainerCanModify: false,
        delivery: 'review',
      },
    };
    const facts = runFacts(settingsWith({ INPUT_VERIFY_COMMAND: 'make check' }), fork);
    expect(facts.contributor).toEqual({
      login: 'someone',
      from: 'someone/hello-world',
      delivery: 'review',
      editable: false,
    });
    expect(facts.verifyCommand).toBe('make check');
  });
});

describe('briefingOf', () => {
  const todos = [{ id: '1', text: 'Read the code', status: 'completed' as const }];

  it("carries an earlier run's list and its task as data, with the maintainer's edits", () => {
    expect(briefingOf({ todos, task: 'Fix add()', edits: 'The maintainer removed item 2.' })).toEqual({
      resumedTodos: todos,
      earlierTask: 'Fix add()',
      maintainerEdits: 'The maintainer removed item 2.',
    });
  });

  it('says an approved plan is to be worked through, and leaves out what the earlier run did not have', () => {
    const briefing = briefingOf({ todos, approved: true });
    expect(briefing.resumedTodos).toBe(todos);
    expect(briefing.resumeNote).toContain('The maintainer approved this plan.');
    expect(briefing).not.toHaveProperty('earlierTask');
    expect(briefing).not.toHaveProperty('maintainerEdits');
    expect(briefingOf({ todos })).not.toHaveProperty('resumeNote');
  });
});
