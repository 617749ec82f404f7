// The MCP servers of a run, for real: the reference servers from the npm registry and hostile ones
// (tests/support/mcp/), each started in the sandbox as bash runs, their tools offered as the configuration
// allows, their answers shaped as the model is shown them, and nothing of them left once the run closes them.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMcpServers, type McpServers } from '../../src/mcp/servers.js';
import { parseMcpConfig } from '../../src/settings/mcp-servers.js';
import { Redactor } from '../../src/text/redact.js';
import type { ToolContext } from '../../src/agent/tools/types.js';
import { DEFAULT_OUTPUT_LIMIT } from '../../src/sandbox/commands/capped-output.js';
import { processesNamed } from '../support/processes.js';
import { runnerLayout } from '../support/sandbox-layout.js';
import { startRemoteMcpServer } from '../support/mcp/http-server.js';
import ownPackage from '../../package.json' with { type: 'json' };

const { ws, sandbox, env, hiddenDir } = await runnerLayout();
const REPO = path.resolve(import.meta.dirname, '../..');
const HOSTILE = path.join(REPO, 'tests/support/mcp/hostile-server.mjs');
const EVERYTHING = path.join(REPO, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const MEMORY = path.join(REPO, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const node = process.execPath;

const warnings: string[] = [];
const redactor = new Redactor();
const context: ToolContext = { workspace: ws, bashTimeoutSeconds: 60, env, sandbox, redaction: redactor };

async function start(servers: Record<string, unknown>, jobEnv: NodeJS.ProcessEnv = {}, timeoutMs = 20_000) {
  const config = parseMcpConfig(JSON.stringify({ mcpServers: servers }), 'mcp_servers', jobEnv);
  for (const secret of config.secrets) redactor.add(secret);
  const started = startMcpServers(config, {
    workspace: ws,
    sandbox,
    env,
    timeoutMs,
    warn: (line) => warnings.push(line),
  });
  opened.push(started);
  await started.settled;
  return started;
}
const opened: McpServers[] = [];
afterAll(async () => {
  await Promise.all(opened.map((servers) => servers.close()));
});

function tool(servers: McpServers, name: string) {
  const found = servers.tools.find((t) => t.name === name);
  if (!found) throw new Error(`${name} is not offered: ${servers.tools.map((t) => t.name).join(', ')}`);
  return found;
}

describe('the reference servers in the sandbox', () => {
  it('offers only the listed tools of server-everything, answers text, an image and an error', async () => {
    const servers = await start(
      {
        everything: {
          command: node,
          args: [EVERYTHING, 'stdio'],
          env: { GREETING: '${JOB_GREETING}' },
          tools: ['echo', 'get-tiny-image', 'get-sum', 'get-env', 'no-such-tool'],
        },
      },
      { JOB_GREETING: 'hello-from-the-job-env' },
    );
    expect(servers.tools.map((t) => t.name).sort()).toEqual([
      'mcp__everything__echo',
      'mcp__everything__get-env',
      'mcp__everything__get-sum',
      'mcp__everything__get-tiny-image',
    ]);
    expect(servers.servers).toEqual(['everything: 4 tools (9 more it has are not allowed)']);
    expect(warnings).toContain(
      'MCP server "everything": it has no tool "no-such-tool", which its configuration lists.',
    );
    expect(tool(servers, 'mcp__everything__echo').description).toBe(
      '[MCP server "everything", its description] Echoes back the input string',
    );
    expect(await tool(servers, 'mcp__everything__echo').run({ message: 'hi there' }, context)).toBe(
      'Echo: hi there',
    );
    const image = await tool(servers, 'mcp__everything__get-tiny-image').run({}, context);
    expect(typeof image === 'string' ? undefined : image.images?.[0]?.mediaType).toBe('image/png');
    expect(typeof image === 'string' ? image : image.text).toMatch(/\[image 1: PNG image, \d+×\d+ px/);
    await expect(tool(servers, 'mcp__everything__get-sum').run({ a: 'one' }, context)).rejects.toThrow(
      /the MCP server "everything" (answered with an error|refused the call)/,
    );
    // The server's environment: the tools' one and its own env, never the action's secrets.
    const environment = await tool(servers, 'mcp__everything__get-env').run({}, context);
    // Its own env reached it; the value came from the job's environment, so the model sees it redacted.
    expect(environment).toContain('"GREETING": "***"');
    expect(environment).not.toContain('hello-from-the-job-env');
    expect(environment).not.toContain('ANTHROPIC');
    expect(environment).not.toContain('INPUT_');
    // An unlisted tool's name is refused, saying why.
    expect(servers.refusal('mcp__everything__toggle-simulated-logging')).toBe(
      'mcp__everything__toggle-simulated-logging is not offered: the MCP server "everything" may be used only for the tools its configuration lists (echo, get-tiny-image, get-sum, get-env, no-such-tool)',
    );
  });

  it('gives a slow call its timeout, cancels it, and keeps the server for the next call', async () => {
    const servers = await start(
      {
        slow: {
          command: node,
          args: [EVERYTHING, 'stdio'],
          tools: ['trigger-long-running-operation', 'echo'],
        },
      },
      {},
      // Room to start on a loaded machine (the timeout is the same for the start and for each call).
      10_000,
    );
    await expect(
      tool(servers, 'mcp__slow__trigger-long-running-operation').run({ duration: 60, steps: 3 }, context),
    ).rejects.toThrow(
      'the MCP server "slow" did not answer trigger-long-running-operation within 10 s (mcp_timeout)',
    );
    expect(await tool(servers, 'mcp__slow__echo').run({ message: 'still here' }, context)).toBe(
      'Echo: still here',
    );
  });

  it('runs server-memory with its file in the sandbox /tmp, and marks its read-only tools', async () => {
    const servers = await start({
      memory: { command: node, args: [MEMORY], env: { MEMORY_FILE_PATH: '/tmp/memory.jsonl' }, tools: ['*'] },
    });
    expect(servers.tools).toHaveLength(9);
    expect(
      servers.tools
        .filter((t) => t.readOnly)
        .map((t) => t.name)
        .sort(),
    ).toEqual(['mcp__memory__open_nodes', 'mcp__memory__read_graph', 'mcp__memory__search_nodes']);
    await tool(servers, 'mcp__memory__create_entities').run(
      { entities: [{ name: 'todo-agent', entityType: 'project', observations: ['runs MCP servers'] }] },
      context,
    );
    expect(await tool(servers, 'mcp__memory__read_graph').run({}, context)).toContain('runs MCP servers');
    // The file went to the sandbox's own /tmp: nothing reached the host's.
    expect(await readdir(ws)).not.toContain('memory.jsonl');
  });
});

describe('a remote server', () => {
  it('is reached over streamable HTTP with a header filled from the job environment, and left out when it refuses', async () => {
    const remote = await startRemoteMcpServer('remote-secret-token-77');
    try {
      const servers = await start(
        {
          docs: {
            type: 'http',
            url: remote.url,
            headers: { Authorization: 'Bearer ${DOCS_TOKEN}' },
            tools: ['lookup'],
          },
          wrong: {
            type: 'http',
            url: remote.url,
            headers: { Authorization: 'Bearer not-the-token' },
            tools: ['*'],
          },
        },
        { DOCS_TOKEN: 'remote-secret-token-77' },
      );
      expect(servers.tools.map((t) => t.name)).toEqual(['mcp__docs__lookup']);
      expect(tool(servers, 'mcp__docs__lookup').readOnly).toBe(true);
      expect(await tool(servers, 'mcp__docs__lookup').run({ term: 'gate' }, context)).toBe(
        'docs for gate: see page 7',
      );
      expect(remote.authorized).toBeGreaterThan(0);
      expect(remote.refused).toBeGreaterThan(0);
      // Who we are, from package.json (not a fixed "1").
      expect(remote.client).toEqual({ name: ownPackage.name, version: ownPackage.version });
      expect(ownPackage.version).toMatch(/^\d+\.\d+\.\d+/);
      const left = warnings.find((line) => line.startsWith('MCP server "wrong" is left out'));
      expect(left).toMatch(/it did not start: .*401/);
      expect(left).not.toContain('remote-secret-token-77');
    } finally {
      await remote.close();
    }
  });
});

describe('hostile servers', () => {
  it('leaves out a server that exits at start or never answers, saying why, and starts the others', async () => {
    const started = performance.now();
    const servers = await start(
      {
        broken: { command: node, args: [HOSTILE, 'exit'], tools: ['*'] },
        intmp: { command: node, args: ['/tmp/todo-agent-no-such-server/index.js'], tools: ['search'] },
        inhidden: { command: node, args: [path.join(hiddenDir, 'server.mjs')], tools: ['*'] },
        silent: { command: node, args: [HOSTILE, 'silent'], tools: ['*'] },
        fine: { command: node, args: [HOSTILE], tools: ['fail'] },
      },
      {},
      5_000,
    );
    expect(performance.now() - started).toBeLessThan(8_000);
    expect(servers.tools.map((t) => t.name)).toEqual(['mcp__fine__fail']);
    expect(warnings.join('\n')).toMatch(
      /MCP server "broken" is left out: it exited at start \(exit code 3\): hostile-server: cannot open the database at \/nowhere/,
    );
    // Node's own stack trace: its cause, not its closing brace or version line, and why /tmp holds nothing.
    const intmp = warnings.find((line) => line.startsWith('MCP server "intmp"'));
    expect(intmp).toMatch(
      /^MCP server "intmp" is left out: it exited at start \(exit code 1\): Error: Cannot find module '\/tmp\/todo-agent-no-such-server\/index\.js'; \/tmp\/todo-agent-no-such-server\/index\.js is under \/tmp, which the sandbox gives the server a new, empty one of: /,
    );
    expect(intmp).not.toMatch(/Node\.js v|\| \}|MODULE_NOT_FOUND/);
    // A path the sandbox hides (the runner's files), as the sandbox itself lists them.
    expect(warnings.find((line) => line.startsWith('MCP server "inhidden"'))).toContain(
      `; ${path.join(hiddenDir, 'server.mjs')} is under ${hiddenDir}, a path the sandbox hides (the runner's own files): put the server in the repository`,
    );
    expect(servers.refusal('mcp__intmp__search')).toMatch(
      /^mcp__intmp__search cannot be used: the MCP server "intmp" did not start \(it exited at start \(exit code 1\): Error: Cannot find module/,
    );
    expect(servers.refusal('mcp__fine__crash')).toMatch(/^mcp__fine__crash is not offered: /);
    expect(warnings).toContain('MCP server "silent" is left out: it did not start within 5 s (mcp_timeout).');
    expect([...servers.servers].sort()).toEqual([
      'broken: not available (it did not start)',
      'fine: 1 tool (6 more it has are not allowed)',
      'inhidden: not available (it did not start)',
      'intmp: not available (it did not start)',
      'silent: not available (it did not start)',
    ]);
    expect(servers.summary).toBe(
      'broken (not available), intmp (not available), inhidden (not available), silent (not available), fine (1 tool)',
    );
    await expect(tool(servers, 'mcp__fine__fail').run({}, context)).rejects.toThrow(
      'the MCP server "fine" answered with an error: the ticket system is down',
    );
  });

  it('says when a server stops during the run, and its tools then answer with why', async () => {
    const servers = await start({ crashing: { command: node, args: [HOSTILE], tools: ['crash', 'fail'] } });
    await expect(tool(servers, 'mcp__crashing__crash').run({}, context)).rejects.toThrow(
      /the MCP server "crashing" is not available: it stopped \(exit code 5\): hostile-server: out of memory/,
    );
    await expect(tool(servers, 'mcp__crashing__fail').run({}, context)).rejects.toThrow(
      /the MCP server "crashing" is not available: it stopped \(exit code 5\)/,
    );
    expect(warnings.join('\n')).toMatch(
      /MCP server "crashing" stopped during the run: it stopped \(exit code 5\): hostile-server: out of memory; its tools answer with why\./,
    );
  });

  it('cuts 50 MB of text as bash output is cut, and a secret the configuration filled in is redacted', async () => {
    const servers = await start(
      {
        hostile: {
          command: node,
          args: [HOSTILE],
          env: { TOKEN: '${HOSTILE_TOKEN}' },
          tools: ['flood', 'env'],
        },
      },
      { HOSTILE_TOKEN: 'filled-in-secret-value-42' },
    );
    const flood = (await tool(servers, 'mcp__hostile__flood').run({}, context)) as string;
    expect(flood.length).toBeLessThan(DEFAULT_OUTPUT_LIMIT + 1_000);
    expect(flood.startsWith('FLOOD START\nflood line\n')).toBe(true);
    expect(flood.endsWith('flood line\nFLOOD END')).toBe(true);
    expect(flood).toMatch(
      /characters cut: showing the first [\d,]+ and the last [\d,]+; to see the rest, call the tool again/,
    );
    expect(await tool(servers, 'mcp__hostile__env').run({ name: 'TOKEN' }, context)).toBe('TOKEN=***');
  });

  it('stops a server that ignores SIGTERM and its stdin closing, with every process of it, in under 2 s', async () => {
    const marker = `mcp-stubborn-${process.pid}`;
    const servers = await start({
      stubborn: { command: node, args: [HOSTILE, 'stubborn', marker], tools: ['hang'] },
    });
    const hanging = tool(servers, 'mcp__stubborn__hang').run({}, context);
    expect(await processesNamed(marker)).not.toEqual([]);
    const started = performance.now();
    await servers.close();
    expect(performance.now() - started).toBeLessThan(2_000);
    await expect(hanging).rejects.toThrow(/the MCP server "stubborn" is not available/);
    expect(await processesNamed(marker)).toEqual([]);
  });
});
