// A scripted model server per test, closed after it, and the real Model (the official SDK) that talks to it
// over 127.0.0.1: for the tests of the agent core's pieces that send one request or a few.
import { afterEach } from 'vitest';
import { Model } from '../../../src/model/client.js';
import { startModelServer, type ScriptedModelServer, type ScriptStep } from './server.js';

const KEY = 'sk-ant-per-test-key-000000000000';

/** Registers the closing; the returned function starts a server on `script` and a Model of `modelId` on it. */
export function useModelPerTest(): (
  script: ScriptStep[],
  modelId?: string,
) => Promise<{ model: Model; server: ScriptedModelServer }> {
  const started: ScriptedModelServer[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((server) => server.close()));
  });
  return async (script, modelId = 'claude-sonnet-4-5') => {
    const server = await startModelServer(script, { apiKey: KEY });
    started.push(server);
    return { model: new Model({ apiKey: KEY, baseURL: server.url, maxRetries: 0, model: modelId }), server };
  };
}
