// The tools' runtime as the action's settings ask for it, on a real workspace: with `sandbox: off`, no
// sandbox and no gate, and the log warns that the tools can read the runner and, unless tool_network is
// `all`, that they reach every host. (The sandbox itself is built by tests/sandbox/ and tests/e2e/.)
import { describe, expect, it } from 'vitest';
import { isolationOf, startSandbox } from '../../../src/action/prepare/tool-sandbox.js';
import { readSettings } from '../../../src/settings/settings.js';
import { usePrinted } from '../../support/printed.js';
import { RUNNER_ENV } from '../../support/runner-env.js';
import { useTempDir } from '../../support/temp-dir.js';

const printed = usePrinted();
const tempDir = useTempDir('tool-sandbox');

const settingsFor = (inputs: NodeJS.ProcessEnv) =>
  readSettings({
    ...RUNNER_ENV,
    GITHUB_WORKSPACE: tempDir(),
    INPUT_GITHUB_TOKEN: 'ghs_toolSandboxTest',
    INPUT_ANTHROPIC_API_KEY: 'sk-ant-tool-sandbox-test',
    ...inputs,
  });

const NO_TOOLCHAINS = Promise.resolve({ env: {}, projectFiles: {} });
const warnings = () =>
  printed()
    .split('\n')
    .filter((line) => line.startsWith('::warning::'));

describe('startSandbox', () => {
  it('with sandbox: off, opens no sandbox and no gate, and warns of both things that follow', async () => {
    const runtime = await startSandbox(
      settingsFor({ INPUT_SANDBOX: 'off' }),
      'read-write',
      [],
      [],
      NO_TOOLCHAINS,
    );
    try {
      expect(runtime.sandbox).toBeUndefined();
      expect(runtime.gate).toBeUndefined();
    } finally {
      await runtime.close();
    }
    expect(warnings()).toEqual([
      '::warning::sandbox: off: the tools run without a sandbox and can read the runner and its credentials (isolation: off).',
      '::warning::tool_network: allowlist needs the sandbox: with sandbox: off the tools reach every host.',
    ]);
  });

  it('with sandbox: off and tool_network: all, warns only that the tools can read the runner', async () => {
    const runtime = await startSandbox(
      settingsFor({ INPUT_SANDBOX: 'off', INPUT_TOOL_NETWORK: 'all' }),
      'read-only',
      [],
      [],
      NO_TOOLCHAINS,
    );
    await runtime.close();
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain('sandbox: off:');
  });
});

describe('isolationOf', () => {
  it('names no sandbox as off', () => {
    expect(isolationOf(undefined)).toBe('off');
  });
});
