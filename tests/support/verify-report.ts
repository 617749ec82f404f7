// A round of verify_command as the agent reports it: the first of three rounds of `npm test`, failed with exit
// code 1, unless the overrides say otherwise.
import type { VerifyReport } from '../../src/agent/events.js';

export const verifyReport = (overrides: Partial<VerifyReport> = {}): VerifyReport => ({
  command: 'npm test',
  passed: false,
  round: 1,
  attempts: 3,
  exitCode: 1,
  timedOut: false,
  aborted: false,
  durationMs: 1200,
  outputTail: '',
  ...overrides,
});
