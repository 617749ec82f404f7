// The GitHub unit tests' repository on the emulator: its names and token, and an emulator per test that is
// closed after it, so each test file does not keep its own copy of either.
import { afterEach } from 'vitest';
import { GitHubApi } from '../../../src/github/api/github-api.js';
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

/**
 * Like useEmulatorPerTest, and the GitHubApi that talks to each emulator (with the real retry and throttling
 * plugins): the emulator grants maintainer admin, writer write, reader read, and holds issue 1 unless the
 * options say otherwise; what the client warns is kept in `warnings`.
 */
export function useApiPerTest(): (
  options?: Partial<EmulatorOptions>,
) => Promise<{ api: GitHubApi; emu: GitHubEmulator; warnings: string[] }> {
  const startEmulator = useEmulatorPerTest();
  return async (options = {}) => {
    const emu = await startEmulator({
      permissions: { maintainer: 'admin', writer: 'write', reader: 'read' },
      issues: [{ number: 1, title: 'Tidy up', body: 'Please tidy.' }],
      ...options,
    });
    const warnings: string[] = [];
    const api = new GitHubApi({
      ...TEST_REPO,
      token: TEST_TOKEN,
      baseUrl: emu.url,
      warn: (message) => warnings.push(message),
    });
    return { api, emu, warnings };
  };
}

/** What each request the emulator answered was: `PATCH 502`, `PATCH 200`. */
export const outcomes = (github: GitHubEmulator): string[] =>
  github.calls.map((c) => `${c.method} ${c.status}`);
