// Tools that join while the run goes: on a model with tool search the first request does not wait for a
// server still starting, its tools join deferred once it is up (the prefix and its cache untouched) and a
// note says so; on a model without tool search the run waits for them all and offers them up front.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/agent/events.js';
import { runAgent } from '../../../src/agent/loop.js';
import { joinedNote } from '../../../src/agent/tools/late.js';
import type { OutsideTool, OutsideTools } from '../../../src/agent/tools/types.js';
import { Model } from '../../../src/model/client.js';
import { reply, text, toolSearch, toolUse, type RecordedRequest } from '../../support/anthropic/server.js';
import { useAgentWorkspace } from '../../support/agent-workspace.js';

const KEY = 'sk-ant-test-key-0000000000000000';
const ws = useAgentWorkspace('late-tools-');

/** Two servers still starting: `arrive()` brings docs up with two tools and says broken failed. */
function starting() {
  const calls: string[] = [];
  const tools: OutsideTool[] = [];
  const servers: string[] = [];
  let settle: () => void = () => undefined;
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  const outside: OutsideTools = {
    tools,
    servers,
    refusal: (name) => (name.startsWith('mcp__docs__') ? `${name} is not offered yet` : undefined),
    starting: { names: ['docs', 'broken'], settled },
  };
  const arrive = () => {
    for (const i of [0, 1])
      tools.push({
        name: `mcp__docs__tool_${i}`,
        description: `[MCP server "docs", its description] Tool number ${i}.`,
        inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
        readOnly: false,
        run: async () => {
          calls.push(`tool_${i}`);
          return `answer of tool ${i}`;
        },
      });
    servers.push('docs: 2 tools', 'broken: not available (it did not start)');
    settle();
  };
  return { outside, arrive, calls };
}

const plan = (status: string) =>
  toolUse('todo', { items: [{ text: 'Use the docs', activeForm: 'Using the docs', status }] });
type ToolShape = { name: string; type?: string; defer_loading?: boolean };
const tools = (request: RecordedRequest) => request.body.tools as ToolShape[];
const shown = (request: RecordedRequest) => tools(request).filter((tool) => !tool.defer_loading);
const userText = (request: RecordedRequest) => JSON.stringify(request.body.messages.at(-1));

describe('tools that join while the run goes', () => {
  it('asks at once on a model with tool search, adds a server that came up later as deferred tools, and keeps the prefix cached', async () => {
    const { outside, arrive, calls } = starting();
    const server = await ws.serve(
      [
        reply(plan('in_progress')),
        reply(toolSearch('mcp__docs__'), toolUse('mcp__docs__tool_1', { q: 'x' })),
        reply(plan('completed')),
        reply(text('Done.')),
      ],
      { apiKey: KEY },
    );
    const events: AgentEvent[] = [];
    // The servers come up only once the first answer is in: a run that waited for them would never ask.
    const result = await runAgent({
      task: 'Use the docs',
      model: new Model({ apiKey: KEY, baseURL: server.url, maxRetries: 0, model: 'claude-sonnet-4-5' }),
      workspace: ws.dir,
      outside,
      observers: [
        (event) => {
          events.push(event);
          if (event.type === 'response' && event.turn === 1) arrive();
        },
      ],
    });
    expect(server.violations).toEqual([]);
    expect(result.status).toBe('completed');
    const [first, second] = server.requests;
    // The tool search is there from the first request; no tool of a server is, and no note yet.
    expect(tools(first!).at(-1)).toEqual({
      type: 'tool_search_tool_regex_20251119',
      name: 'tool_search_tool_regex',
    });
    expect(tools(first!).some((tool) => tool.name.startsWith('mcp__'))).toBe(false);
    expect(userText(first!)).not.toContain('<mcp-servers>');
    // Then the server's tools join, deferred, with a note; the part that is cached never changes.
    expect(
      tools(second!)
        .filter((tool) => tool.defer_loading)
        .map((tool) => tool.name),
    ).toEqual(['mcp__docs__tool_0', 'mcp__docs__tool_1']);
    expect(userText(second!)).toContain(
      JSON.stringify(joinedNote(['docs: 2 tools', 'broken: not available (it did not start)'])).slice(1, -1),
    );
    for (const request of server.requests.slice(1)) {
      expect(shown(request)).toEqual(shown(first!));
      expect(request.body.system).toEqual(first!.body.system);
    }
    const system = JSON.stringify(first!.body.system);
    expect(system).toContain('- docs\\n- broken\\n');
    expect(system).toContain('<mcp-servers> note');
    expect(calls).toEqual(['tool_1']);
    expect(events.filter((e) => e.type === 'nudge' && e.kind === 'tools_joined')).toHaveLength(1);
    // The second request read the whole prompt the first one wrote: the deferred tools are not in the prefix.
    const usage = events.flatMap((e) => (e.type === 'response' ? [e.usage] : []));
    const firstPrompt = usage[0]!.cache_creation_input_tokens + usage[0]!.cache_read_input_tokens;
    expect(firstPrompt).toBeGreaterThan(0);
    expect(usage[1]!.cache_read_input_tokens).toBe(firstPrompt);
  });

  it('waits for every server on a model without tool search, and offers their tools up front', async () => {
    const { outside, arrive } = starting();
    const server = await ws.serve([reply(plan('completed')), reply(text('Nothing to do.'))], { apiKey: KEY });
    const run = runAgent({
      task: 'Look around',
      model: new Model({ apiKey: KEY, baseURL: server.url, maxRetries: 0, model: 'claude-opus-4-1' }),
      workspace: ws.dir,
      outside,
    });
    setImmediate(arrive);
    await run;
    expect(server.violations).toEqual([]);
    const [first] = server.requests;
    expect(tools(first!).map((tool) => tool.name)).toContain('mcp__docs__tool_1');
    expect(tools(first!).some((tool) => tool.defer_loading || tool.type)).toBe(false);
    const system = JSON.stringify(first!.body.system);
    expect(system).toContain('- docs: 2 tools');
    expect(system).toContain('- broken: not available (it did not start)');
    expect(JSON.stringify(server.requests.map((request) => request.body.messages))).not.toContain(
      '<mcp-servers>',
    );
  });

  it('tells a plan run of the servers that were up before its first request, in that request, read-only tools only', async () => {
    const { outside, arrive } = starting();
    arrive();
    const server = await ws.serve([reply(plan('pending')), reply(text('The plan.'))], { apiKey: KEY });
    await runAgent({
      task: 'Plan it',
      model: new Model({ apiKey: KEY, baseURL: server.url, maxRetries: 0, model: 'claude-sonnet-4-5' }),
      workspace: ws.dir,
      outside,
      planOnly: true,
    });
    expect(server.violations).toEqual([]);
    const [first] = server.requests;
    expect(userText(first!)).toContain('<mcp-servers>');
    // Neither of docs' tools is read-only: a plan is offered none of them, and still has the search.
    expect(tools(first!).some((tool) => tool.name.startsWith('mcp__'))).toBe(false);
    expect(tools(first!).at(-1)?.type).toBe('tool_search_tool_regex_20251119');
  });
});
