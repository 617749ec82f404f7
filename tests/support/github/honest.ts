// The check every emulator test ends with: nothing GitHub would refuse, answers as GitHub documents them.
import { expect } from 'vitest';
import { validateResponse } from './openapi.js';
import type { GitHubEmulator } from './types.js';

/**
 * No violations, and every answer matches GitHub's documented response schema. (GitHub answers 404
 * on more operations than its description lists, so undocumented error statuses are let through.)
 */
export function expectHonest(emu: GitHubEmulator): void {
  expect(emu.violations).toEqual([]);
  for (const call of emu.calls) {
    if (!call.operationId) continue;
    const problems = validateResponse(call.operationId, call.status, call.response).filter(
      (p) => !(call.status >= 400 && p.includes('does not document')),
    );
    expect(problems, `${call.method} ${call.path} ${call.status}`).toEqual([]);
  }
}
