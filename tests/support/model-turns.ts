// What the model client tests share: the turn they send, and the error a call that must fail fails with.
import { expect } from 'vitest';
import type { TurnRequest } from '../../src/model/client.js';

/** One user message and no tools, with what a test changes. */
export const testTurn = (overrides: Partial<TurnRequest> = {}): TurnRequest => ({
  system: 'You are a test.',
  tools: [],
  messages: [{ role: 'user', content: 'Hi' }],
  maxTokens: 1024,
  ...overrides,
});

/** The rejection of `promise`, or a failure of the test if it resolves. */
export async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected the request to fail'),
    (error: unknown) => error,
  );
}
