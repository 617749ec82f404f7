// Bench measure 11: what the maintainer's MCP servers cost. A tool call through a local server in the sandbox
// (server-everything's `echo`, over its stdio) against a built-in tool (read_file of a small file), both
// through the toolbox as the loop calls them; and the cached prefix (tools and system prompt) of a run's first
// request with 5 and with 50 MCP tools, the 50 deferred behind the tool search and, on a model without it,
// loaded up front. The tools' shapes are server-memory's own, renamed to make 50.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runAgent } from '../../../src/agent/loop.js';
import { TodoManager } from '../../../src/agent/todo/todos.js';
import { createToolbox } from '../../../src/agent/tools/index.js';
import type { OutsideTool, OutsideTools, ToolContext } from '../../../src/agent/tools/types.js';
import { startMcpServers } from '../../../src/mcp/servers.js';
import { Model } from '../../../src/model/client.js';
import { childEnv } from '../../../src/sandbox/commands/child-env.js';
import { openSandbox } from '../../../src/sandbox/setup.js';
import { parseMcpConfig } from '../../../src/settings/mcp-servers.js';
import { ROOT } from '../action-harness.js';
import { reply, startModelServer, text, toolUse } from '../anthropic/server.js';
import { median } from './stats.js';

export interface McpCost {
  /** read_file of a small file through the toolbox. */
  medianBuiltInCallMs: number;
  /** server-everything's echo through the toolbox, the server in the sandbox. */
  medianMcpCallMs: number;
  medianAddedPerCallMs: number;
  /** Starting server-everything in the sandbox, up to its tools listed. */
  startMs: number;
  calls: number;
  /** The first request's prompt (tools and system, all cache written) by how many MCP tools it offers. */
  prefix: Array<{ tools: number; deferred: boolean; model: string; promptTokens: number }>;
}

const KEY = 'sk-ant-bench-key-000000000000000000000';

export async function measureMcpCost(calls: number): Promise<McpCost> {
  const workspace = await mkdtemp(join(tmpdir(), 'todo-agent-bench-mcp-'));
  const sandbox = await openSandbox({ workspace, network: 'host' });
  try {
    await writeFile(join(workspace, 'small.txt'), 'one line\n');
    const env = childEnv(process.env);
    const server = (path: string, args: string[] = []) => ({
      command: process.execPath,
      args: [path, ...args],
    });
    const config = parseMcpConfig(
      JSON.stringify({
        mcpServers: {
          everything: {
            ...server(join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), [
              'stdio',
            ]),
            tools: ['echo'],
          },
          memory: {
            ...server(join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')),
            env: { MEMORY_FILE_PATH: '/tmp/memory.jsonl' },
            tools: ['*'],
          },
        },
      }),
      'bench',
      {},
    );
    const started = performance.now();
    const servers = startMcpServers(config, {
      workspace,
      sandbox,
      env,
      timeoutMs: 60_000,
      warn: () => {},
    });
    // The servers start beside the run; the measure wants them up, their tools listed.
    await servers.settled;
    const startMs = performance.now() - started;
    try {
      const toolbox = createToolbox(new TodoManager(), 60, { outside: servers });
      const context: ToolContext = { workspace, bashTimeoutSeconds: 60, env, sandbox };
      const time = async (name: string, input: unknown): Promise<number> => {
        const begun = performance.now();
        const outcome = await toolbox.run(name, input, context);
        if (outcome.isError) throw new Error(`${name} failed: ${outcome.output}`);
        return performance.now() - begun;
      };
      await time('read_file', { path: 'small.txt' }); // warm-up of both, not counted
      await time('mcp__everything__echo', { message: 'warm' });
      const builtIn: number[] = [];
      const mcp: number[] = [];
      // Interleaved, so that the machine's load falls on both alike.
      for (let i = 0; i < calls; i++) {
        builtIn.push(await time('read_file', { path: 'small.txt' }));
        mcp.push(await time('mcp__everything__echo', { message: `call ${i}` }));
      }
      const memoryTools = servers.tools.filter((tool) => tool.name.startsWith('mcp__memory__'));
      return {
        medianBuiltInCallMs: median(builtIn),
        medianMcpCallMs: median(mcp),
        medianAddedPerCallMs: median(mcp.map((ms, i) => ms - builtIn[i]!)),
        startMs,
        calls,
        prefix: [
          await firstPrompt(workspace, toolset(memoryTools, 5), 'claude-sonnet-5-5'),
          await firstPrompt(workspace, toolset(memoryTools, 50), 'claude-sonnet-5-5'),
          await firstPrompt(workspace, toolset(memoryTools, 50), 'claude-opus-4-1'),
        ],
      };
    } finally {
      await servers.close();
    }
  } finally {
    sandbox.close();
    await rm(workspace, { recursive: true, force: true });
  }
}

/** `count` tools shaped as `tools` are (cycled through, renamed so that each name is its own). */
function toolset(tools: readonly OutsideTool[], count: number): OutsideTools {
  const made = Array.from({ length: count }, (_, i) => {
    const tool = tools[i % tools.length]!;
    return { ...tool, name: `${tool.name}_${i}` };
  });
  return { tools: made, servers: [`memory: ${count} tools`] };
}

/** The prompt tokens of a run's first request (all of it a cache write: the prefix the run reuses). */
async function firstPrompt(
  workspace: string,
  outside: OutsideTools,
  model: string,
): Promise<McpCost['prefix'][number]> {
  const plan = (status: string) =>
    toolUse('todo', { items: [{ text: 'Look', status, activeForm: 'Looking' }] });
  const server = await startModelServer([reply(plan('completed')), reply(text('Done.'))], { apiKey: KEY });
  try {
    await runAgent({
      task: 'Look around',
      model: new Model({ apiKey: KEY, baseURL: server.url, maxRetries: 0, model }),
      workspace,
      outside,
    });
    if (server.violations.length > 0) throw new Error(server.violations[0]!.message);
    const request = server.requests[0]!.body as { tools: Array<{ defer_loading?: boolean }> };
    const { usage } = await fetchUsage(server.url, request);
    return {
      tools: outside.tools.length,
      deferred: request.tools.some((tool) => tool.defer_loading),
      model,
      promptTokens: usage,
    };
  } finally {
    await server.close();
  }
}

/** The scripted server's count of a request's prompt (its count_tokens endpoint). */
async function fetchUsage(url: string, body: object): Promise<{ usage: number }> {
  const {
    stream: _stream,
    max_tokens: _max,
    messages: _messages,
    ...prefix
  } = body as Record<string, unknown>;
  const response = await fetch(`${url}/v1/messages/count_tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': KEY },
    body: JSON.stringify({ ...prefix, messages: [{ role: 'user', content: 'x' }] }),
  });
  const counted = (await response.json()) as { input_tokens: number };
  return { usage: counted.input_tokens };
}
