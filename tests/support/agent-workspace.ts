// What the agent core's tests share: a fresh workspace for each test (a repository, as openWorkspace makes
// it) and the scripted model servers the test starts, all closed and removed once the test is over.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { openWorkspace } from '../../src/agent/workspace.js';
import {
  startModelServer,
  type ModelServerOptions,
  type ScriptStep,
  type ScriptedModelServer,
} from './anthropic/server.js';

/** The current test's workspace and model server, set anew for each test. */
export interface AgentWorkspace {
  /** The workspace folder. */
  dir: string;
  /** The server `serve` started last in this test, if any. */
  server: ScriptedModelServer | undefined;
  /** Starts a scripted model server for this test; it is closed after the test (closing it sooner is fine). */
  serve(script: ScriptStep[], options: ModelServerOptions): Promise<ScriptedModelServer>;
}

/**
 * Registers, in the calling test file (or describe block), a workspace made before each test in a temporary
 * folder named from `prefix` (then `setup` on it), and its removal after, with every server `serve` started.
 */
export function useAgentWorkspace(
  prefix: string,
  setup: (dir: string) => Promise<void> = async () => undefined,
): AgentWorkspace {
  const started: ScriptedModelServer[] = [];
  const ws: AgentWorkspace = {
    dir: '',
    server: undefined,
    async serve(script, options) {
      const server = await startModelServer(script, options);
      started.push(server);
      ws.server = server;
      return server;
    },
  };
  beforeEach(async () => {
    ws.dir = await openWorkspace(await mkdtemp(join(tmpdir(), prefix)));
    await setup(ws.dir);
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((server) => server.close()));
    ws.server = undefined;
    await rm(ws.dir, { recursive: true, force: true });
  });
  return ws;
}
