// The decisions deliverWork makes before any delivery: the workspace's git directories are repaired first,
// whatever the run; a plan run then delivers nothing; and a delivery that throws turns the run into a failure
// with the reason in a sentence, keeping everything the agent did. Deliveries themselves run whole in
// tests/delivery/ and tests/e2e/.
import { describe, expect, it } from 'vitest';
import { deliverWork } from '../../src/action/deliver-work.js';
import type { JobRequest, Prepared } from '../../src/action/prepare/prepare.js';
import type { DeliverySession } from '../../src/delivery/session.js';
import type { WorkPlan } from '../../src/github/request/work-plan.js';
import { RESULT } from '../support/delivery-fixture.js';
import { useApiPerTest } from '../support/github/per-test.js';
import { commentTrigger } from '../support/runner-env.js';

const apiFor = useApiPerTest();

/** Stands for a part deliverWork must not touch in the case at hand: any use of it fails the test. */
const untouchable = <T extends object>(name: string): T =>
  new Proxy({} as T, {
    get: (_target, key) => {
      throw new Error(`${name}.${String(key)} was used`);
    },
  });

/** The run's request and preparation, as far as these decisions read them. */
async function world(kind: WorkPlan['kind'], repair: () => Promise<unknown>) {
  const { api, emu } = await apiFor();
  const plan = (
    kind === 'plan'
      ? { kind, base: 'main', task: 'Tidy' }
      : { kind, branch: 'agent/issue-1-7', base: 'main', task: 'Tidy', continuesBranch: false }
  ) as WorkPlan;
  const request = {
    settings: untouchable('settings'),
    trigger: { ...commentTrigger(), kind: 'run', request: { kind: 'task', task: 'Tidy' } },
    api,
    redactor: untouchable('redactor'),
  } as unknown as JobRequest;
  const prepared = {
    plan,
    guard: { repair },
    git: untouchable('git'),
    ownDir: untouchable('ownDir'),
    startSha: 'a'.repeat(40),
    threads: [],
  } as unknown as Prepared;
  const checklist = { url: undefined, readCommentBack: () => undefined };
  const deliver = () =>
    deliverWork(
      request,
      prepared,
      RESULT,
      checklist,
      kind === 'plan' ? undefined : untouchable<DeliverySession>('session'),
    );
  return { deliver, emu };
}

describe('deliverWork', () => {
  it('repairs the git directories, then delivers nothing for a plan run', async () => {
    let repaired = 0;
    const { deliver, emu } = await world('plan', async () => repaired++);
    expect(await deliver()).toEqual({ result: RESULT, delivery: {} });
    expect(repaired).toBe(1);
    expect(emu.calls).toEqual([]);
  });

  it('turns a delivery that throws into a failed run that keeps the agent’s work, and answers no thread', async () => {
    const { deliver, emu } = await world('fresh', async () => {
      throw new Error('a .git could not be repaired');
    });
    const { result, delivery } = await deliver();
    expect(result).toEqual({
      ...RESULT,
      status: 'failed',
      reason: 'the work could not be delivered: a .git could not be repaired',
    });
    expect(result.todos).toBe(RESULT.todos);
    expect(delivery).toEqual({});
    expect(emu.calls).toEqual([]);
  });
});
