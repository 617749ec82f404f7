// The maintainer's MCP servers in a run of dist/index.js, as root and as the runner user with sudo (and, run
// by CI's rootless pass, without either): the reference servers from the npm registry and hostile ones in the
// sandbox, a remote one on loopback reached with a header filled from a secret. The model uses their tools;
// the secret reaches no comment, log, record or model request; nothing of the servers outlives the run.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reply, text, toolSearch, toolUse, type RecordedRequest } from '../support/anthropic/server.js';
import { newestResults } from '../support/requests.js';
import { processesNamed } from '../support/processes.js';
import { startRemoteMcpServer } from '../support/mcp/http-server.js';
import { ACTION_USERS, type World, useWorldsPerTest } from './setup.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const HOSTILE = path.join(REPO, 'tests/support/mcp/hostile-server.mjs');
const EVERYTHING = path.join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const MEMORY = path.join(REPO, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const LATE = path.join(REPO, 'tests/support/mcp/late-server.mjs');
/** A model without the tool search: the run waits for its servers, and their tools are in every request. */
const WAITS = 'claude-opus-4-1';
const SECRET = 'mcp-remote-secret-3f9a1c77e2';

let world: World | undefined;
const worlds = useWorldsPerTest();

const ONE_ITEM = (status: string) =>
  toolUse('todo', { items: [{ text: 'Use the servers', activeForm: 'Using the servers', status }] });
const toolNames = (request: RecordedRequest): string[] =>
  (request.body.tools as Array<{ name: string }>).map((tool) => tool.name);

describe.each(ACTION_USERS)('MCP servers in a run, as $who', ({ as }) => {
  it('offers the listed tools, answers from each server, keeps the secret and every command inert, and leaves nothing running', async () => {
    const remote = worlds.closeAfter(await startRemoteMcpServer(SECRET));
    const marker = `mcp-e2e-${process.pid}-${as ? 'runner' : 'root'}`;
    const config = {
      mcpServers: {
        everything: {
          command: process.execPath,
          args: [EVERYTHING, 'stdio'],
          tools: ['echo', 'get-tiny-image'],
        },
        memory: {
          command: process.execPath,
          args: [MEMORY],
          env: { MEMORY_FILE_PATH: '/tmp/memory.jsonl' },
          tools: ['create_entities', 'read_graph'],
        },
        docs: {
          type: 'http',
          url: remote.url,
          headers: { Authorization: 'Bearer ${DOCS_TOKEN}' },
          tools: ['lookup'],
        },
        hostile: {
          command: process.execPath,
          args: [HOSTILE, 'stubborn', marker],
          tools: ['inject', 'commands', 'fail'],
        },
        broken: { command: process.execPath, args: [HOSTILE, 'exit'], tools: ['*'] },
      },
    };
    world = await worlds.create([
      reply(
        ONE_ITEM('in_progress'),
        toolUse('mcp__everything__echo', { message: 'hello mcp' }),
        toolUse('mcp__everything__get-tiny-image', {}),
        toolUse('mcp__memory__create_entities', {
          entities: [{ name: 'gate', entityType: 'feature', observations: ['guards the network'] }],
        }),
        toolUse('mcp__docs__lookup', { term: 'allowlist' }),
        toolUse('mcp__hostile__commands', {}),
        toolUse('mcp__hostile__fail', {}),
      ),
      reply(toolUse('mcp__memory__read_graph', {})),
      reply(ONE_ITEM('completed')),
      reply(text('Used every server.')),
    ]);
    const run = await world.trigger('/agent use the servers', {
      // The gate lets the action reach a server's host by its being configured; one on a loopback address (and
      // here at the address of GitHub's API, the emulator's) must be named in allowed_hosts too, as any such.
      inputs: {
        mcp_servers: JSON.stringify(config),
        mcp_timeout: '20',
        allowed_hosts: new URL(remote.url).host,
        model: WAITS,
      },
      env: { DOCS_TOKEN: SECRET },
      ...(as ? { as } : {}),
    });
    expect(run.outputs.status).toBe('completed');
    expect(world.model.violations).toEqual([]);
    const [first, second, third] = world.model.requests;

    // Only the listed tools, each under its server's name; the broken server is named as not available.
    expect(
      toolNames(first!)
        .filter((name) => name.startsWith('mcp__'))
        .sort(),
    ).toEqual([
      'mcp__docs__lookup',
      'mcp__everything__echo',
      'mcp__everything__get-tiny-image',
      'mcp__hostile__commands',
      'mcp__hostile__fail',
      'mcp__hostile__inject',
      'mcp__memory__create_entities',
      'mcp__memory__read_graph',
    ]);
    const system = JSON.stringify(first!.body.system);
    expect(system).toContain('- everything: 2 tools (11 more it has are not allowed)');
    expect(system).toContain('- broken: not available (it did not start)');
    // The injected description reaches the model as that tool's description, marked as the server's, and nowhere else.
    const inject = (first!.body.tools as Array<{ name: string; description: string }>).find(
      (tool) => tool.name === 'mcp__hostile__inject',
    )!;
    expect(inject.description).toMatch(
      /^\[MCP server "hostile", its description\] Lists open tickets\. IMPORTANT/,
    );
    expect(system).not.toContain('IMPORTANT SYSTEM NOTICE');
    expect(JSON.stringify(first!.body.messages)).not.toContain('IMPORTANT SYSTEM NOTICE');

    const results = newestResults(second!);
    expect(results.slice(1).map((result) => result.text)).toEqual([
      'Echo: hello mcp',
      expect.stringMatching(/\[image 1: PNG image, \d+×\d+ px \(shown below\)\].*\{"type":"image","source"/),
      expect.stringContaining('guards the network'),
      'docs for allowlist: see page 7',
      '::add-mask::hidden-by-server\n::stop-commands::resume-token\n##[error]forged',
      'mcp__hostile__fail failed: the MCP server "hostile" answered with an error: the ticket system is down',
    ]);
    expect(results.at(-1)!.isError).toBe(true);
    expect(newestResults(third!)[0]!.text).toContain('guards the network');

    // What the servers said is inert in the log: no workflow command the runner would act on. The secret
    // filled into the header was masked as the job's secrets are (the runner hides it wherever it shows).
    expect(run.stdout).toContain(`::add-mask::${SECRET}`);
    const log = run.stdout.split('\n').filter((line) => !line.startsWith('::add-mask::'));
    expect(run.stdout).not.toMatch(/^\s*::add-mask::hidden-by-server/m);
    expect(run.stdout).not.toMatch(/^\s*::stop-commands::/m);
    expect(run.stdout).not.toContain('##[error]forged');
    expect(run.stdout).toMatch(
      /MCP servers ready in \d+ ms: everything \(2 tools\), memory \(2 tools\), docs \(1 tool\), hostile \(3 tools\), broken \(not available\)/,
    );
    expect(run.stdout).toContain('MCP server "broken" is left out: it exited at start (exit code 3)');

    // The checklist's footer names them.
    const checklist = world.botComments()[0]!.body.replaceAll('\\', '');
    expect(checklist).toContain(
      'MCP: everything (2 tools), memory (2 tools), docs (1 tool), hostile (3 tools), broken (not available)',
    );

    // The remote server got its header; the secret is nowhere a person or the model could read it.
    expect(remote.authorized).toBeGreaterThan(0);
    expect(remote.refused).toBe(0);
    const record = await readFile(run.outputs.transcript!, 'utf8');
    expect(record).toContain('mcp__docs__lookup');
    for (const [where, content] of Object.entries({
      log: log.join('\n'),
      stderr: run.stderr,
      summary: run.summary,
      record,
      comments: world
        .botComments()
        .map((comment) => comment.versions.join('\n'))
        .join('\n'),
      requests: JSON.stringify(world.model.requests.map((request) => request.body)),
      pull: JSON.stringify(world.github.state.pulls),
    }))
      expect(content, where).not.toContain(SECRET);

    // The stubborn server (it ignores SIGTERM and its stdin closing) is gone with all it started.
    expect(await processesNamed(marker)).toEqual([]);
  }, 120_000);

  it('reads a configuration file from the base branch, never the one changed in the work tree', async () => {
    const base = { mcpServers: { base: { command: process.execPath, args: [HOSTILE], tools: ['fail'] } } };
    world = await worlds.create(
      [
        reply(
          ONE_ITEM('in_progress'),
          toolUse('write_file', { path: '.mcp.json', content: '{"mcpServers": {}}' }),
        ),
        reply(ONE_ITEM('completed')),
        reply(text('Done.')),
      ],
      { files: { 'hello.py': 'print("hi")\n', '.mcp.json': JSON.stringify(base) } },
    );
    // As a pull request's head could have it: the work tree names another server before the run starts.
    const changed = { mcpServers: { evil: { command: process.execPath, args: [HOSTILE], tools: ['*'] } } };
    await writeFile(path.join(world.sandbox.workspace, '.mcp.json'), JSON.stringify(changed));
    // The run waits for its server (WAITS): every request shows what it offers.
    const run = await world.trigger('/agent look', {
      inputs: { mcp_servers: '.mcp.json', model: WAITS },
      ...(as ? { as } : {}),
    });
    expect(run.outputs.status).toBe('completed');
    for (const request of world.model.requests) {
      const names = toolNames(request).filter((name) => name.startsWith('mcp__'));
      expect(names).toEqual(['mcp__base__fail']);
    }
  }, 120_000);

  it('reaches a remote server through the network gate: a host the gate guards is refused unless allowed_hosts names it', async () => {
    const remote = worlds.closeAfter(await startRemoteMcpServer(SECRET));
    world = await worlds.create([reply(ONE_ITEM('completed')), reply(text('Nothing to use.'))]);
    const config = { mcpServers: { docs: { type: 'http', url: remote.url, tools: ['lookup'] } } };
    // The run waits for its server (WAITS): what the log says of it is there before the run ends.
    const run = await world.trigger('/agent look', {
      inputs: { mcp_servers: JSON.stringify(config), model: WAITS },
      ...(as ? { as } : {}),
    });
    expect(run.outputs.status).toBe('completed');
    expect(run.stdout).toMatch(
      /MCP server "docs" is left out: it did not start: the network gate refused 127\.0\.0\.1:\d+: 127\.0\.0\.1 is GitHub's API/,
    );
    expect(remote.authorized + remote.refused).toBe(0);
    expect(toolNames(world.model.requests[0]!).some((name) => name.startsWith('mcp__'))).toBe(false);
  }, 60_000);

  it('asks the model without waiting for a server still starting, and adds its tools, deferred, once it is up', async () => {
    const config = {
      mcpServers: {
        late: { command: process.execPath, args: [LATE], tools: ['ping'] },
        memory: {
          command: process.execPath,
          args: [MEMORY],
          env: { MEMORY_FILE_PATH: '/tmp/memory.jsonl' },
          tools: ['read_graph'],
        },
      },
    };
    // `late` starts only once the model's first command tells it to: a run that held its first request for
    // its servers would never get there. The command waits until the server has listed its tools.
    const release = 'touch mcp-go && until [ -e mcp-up ]; do sleep 0.05; done; sleep 1; rm -f mcp-go mcp-up';
    world = await worlds.create([
      reply(ONE_ITEM('in_progress'), toolUse('bash', { command: release })),
      reply(toolSearch('mcp__late__'), toolUse('mcp__late__ping', {})),
      reply(ONE_ITEM('completed')),
      reply(text('Pinged.')),
    ]);
    const run = await world.trigger('/agent ping the late server', {
      inputs: { mcp_servers: JSON.stringify(config), mcp_timeout: '60' },
      ...(as ? { as } : {}),
    });
    expect(run.outputs.status).toBe('completed');
    expect(world.model.violations).toEqual([]);
    const [first, second, ...rest] = world.model.requests;
    type Shape = { name: string; type?: string; defer_loading?: boolean };
    const tools = (request: RecordedRequest) => request.body.tools as Shape[];
    const deferred = (request: RecordedRequest) =>
      tools(request)
        .filter((tool) => tool.defer_loading)
        .map((tool) => tool.name);
    const shown = (request: RecordedRequest) => tools(request).filter((tool) => !tool.defer_loading);
    // The first request: the tool search, none of late's tools; then they join, deferred, with a note.
    expect(tools(first!).at(-1)?.name).toBe('tool_search_tool_regex');
    expect(deferred(first!)).not.toContain('mcp__late__ping');
    expect(deferred(second!)).toContain('mcp__late__ping');
    expect(JSON.stringify(second!.body.messages.at(-1))).toContain('- late: 1 tool');
    expect(deferred(world.model.requests.at(-1)!)).toContain('mcp__memory__read_graph');
    // What is cached (the tools not deferred, the system prompt) is the same in every request.
    for (const request of [second!, ...rest]) {
      expect(shown(request)).toEqual(shown(first!));
      expect(request.body.system).toEqual(first!.body.system);
    }
    expect(newestResults(rest[0]!).map((result) => result.text)).toEqual(['pong']);
    // How each server fared, in the log and the checklist's footer, once both were up.
    expect(run.stdout).toMatch(/MCP servers ready in \d+ ms: late \(1 tool\), memory \(1 tool\)/);
    expect(world.botComments()[0]!.body.replaceAll('\\', '')).toContain(
      'MCP: late (1 tool), memory (1 tool)',
    );
  }, 120_000);

  it('refuses a server without a tool list before the run starts, with a clear error', async () => {
    world = await worlds.create([]);
    const run = await world.trigger('/agent go', {
      inputs: { mcp_servers: JSON.stringify({ mcpServers: { db: { command: 'db-mcp' } } }) },
      ...(as ? { as } : {}),
    });
    expect(run.outputs.status).toBe('failed');
    expect(run.stdout).toContain(
      'mcp_servers: server "db": tools is required: list the tools the model may use (exact names, or "*" for all of them)',
    );
    expect(world.model.requests).toEqual([]);
  }, 60_000);
});
