// Who may run the agent (src/github/permissions.ts): write and admin, nobody else.
import { describe, expect, it } from 'vitest';
import { canWrite } from '../../src/github/permissions.js';

describe('canWrite', () => {
  it('lets admin and write run it, and not read, none or a permission never read', () => {
    expect(['admin', 'write', 'read', 'none', undefined].map((p) => canWrite(p as never))).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});
