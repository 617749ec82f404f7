// The GitHub unit tests' repository on the emulator: its names and token, and an emulator per test that is
// closed after it, so each test file does not keep its own copy of either.
import { afterEach } from 'vitest';
import { startGitHubEmulator, type EmulatorOptions, type GitHubEmulator } from './emulator.js';

export const TEST_TOKEN = 'ghs_apiTestToken000000000000000000000001';
/** The repository the tests' emulators serve (and their clients name). */
export const TEST_REPO = { owner: 'octo-org', repo: 'hello-world' } as const;

/**
 * Registers, in the calling test file, the closing of every emulator the returned function starts (on
 * TEST_REPO with TEST_TOKEN unless the options say otherwise) once its test is over.
 */
export function useEmulatorPerTest(): (options?: EmulatorOptions) => Promise<GitHubEmulator> {
  const started: GitHubEmulator[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((emu) => emu.close()));
  });
  return async (options = {}) => {
    const emu = await startGitHubEmulator({ ...TEST_REPO, token: TEST_TOKEN, ...options });
    started.push(emu);
    return emu;
  };
}
