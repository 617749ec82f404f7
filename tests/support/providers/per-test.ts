// What the provider tests share: the platform stand-ins a test starts, closed after it (with its temporary
// folder removed and the environment it stubbed restored), and a way to stub several variables at once.
import { rm } from 'node:fs/promises';
import { afterEach, vi } from 'vitest';
import type { PlatformServer } from './gateway.js';
import type { GoogleTokenServer } from './google-token-server.js';

/** The current test's stand-ins, set by the test itself. */
export interface PlatformStandIns {
  server?: PlatformServer | undefined;
  tokens?: GoogleTokenServer | undefined;
  dir?: string | undefined;
}

/** Registers, in the calling test file, the clean-up after each test of what it set in the returned object. */
export function usePlatformStandIns(): PlatformStandIns {
  const stand: PlatformStandIns = {};
  afterEach(async () => {
    await stand.server?.close();
    await stand.tokens?.close();
    if (stand.dir) await rm(stand.dir, { recursive: true, force: true });
    stand.server = stand.tokens = stand.dir = undefined;
    vi.unstubAllEnvs();
  });
  return stand;
}

export function stubEnv(env: Record<string, string>): void {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
}
