import { describe, expect, it } from 'vitest';
import {
  fillVariables,
  McpConfigError,
  parseMcpConfig,
  readMcpServersSetting,
} from '../../src/settings/mcp-servers.js';

const parse = (config: unknown, env: NodeJS.ProcessEnv = {}) =>
  parseMcpConfig(JSON.stringify(config), 'mcp_servers', env);
const problem = (config: unknown, env: NodeJS.ProcessEnv = {}): string => {
  try {
    parse(config, env);
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigError);
    return (error as Error).message;
  }
  throw new Error('no problem found');
};

describe('parseMcpConfig', () => {
  it("reads Claude Code's format: local servers over stdio and remote ones over HTTP", () => {
    const config = parse(
      {
        mcpServers: {
          memory: { command: 'npx', args: ['-y', 'server-memory'], tools: ['*'], readOnly: true },
          docs: { type: 'http', url: 'https://docs.example.test/mcp', tools: ['search'] },
        },
      },
      {},
    );
    expect(config.servers).toEqual([
      {
        name: 'memory',
        command: 'npx',
        args: ['-y', 'server-memory'],
        env: {},
        tools: ['*'],
        readOnly: true,
      },
      { name: 'docs', type: 'http', url: 'https://docs.example.test/mcp', headers: {}, tools: ['search'] },
    ]);
    expect(config.secrets).toEqual([]);
  });

  it('fills ${VAR} in env and headers from the environment, and counts each value filled as a secret', () => {
    const config = parse(
      {
        mcpServers: {
          db: {
            command: 'db-mcp',
            env: { TOKEN: '${DB_TOKEN}', MODE: 'ro', URL: '${DB_URL:-local}' },
            tools: ['q'],
          },
          api: {
            type: 'http',
            url: 'http://127.0.0.1:1/mcp',
            headers: { Authorization: 'Bearer ${API_KEY}' },
            tools: ['*'],
          },
        },
      },
      { DB_TOKEN: 'db-secret-1234', API_KEY: 'api-secret-5678' },
    );
    expect(config.servers[0]).toMatchObject({ env: { TOKEN: 'db-secret-1234', MODE: 'ro', URL: 'local' } });
    expect(config.servers[1]).toMatchObject({ headers: { Authorization: 'Bearer api-secret-5678' } });
    expect(config.secrets.sort()).toEqual(['api-secret-5678', 'db-secret-1234']);
  });

  it('refuses a server without a tool list, and says how to write one', () => {
    expect(problem({ mcpServers: { memory: { command: 'npx' } } })).toBe(
      'mcp_servers: server "memory": tools is required: list the tools the model may use (exact names, or "*" for all of them)',
    );
    expect(problem({ mcpServers: { memory: { command: 'npx', tools: [] } } })).toContain(
      'lists no tool: name at least one, or "*" for all',
    );
  });

  it('takes exact names only: a pattern, or "*" beside names, is refused', () => {
    expect(problem({ mcpServers: { gh: { command: 'x', tools: ['read_*'] } } })).toContain(
      '"read_*": tools are exact names (no patterns)',
    );
    expect(problem({ mcpServers: { gh: { command: 'x', tools: ['*', 'read'] } } })).toContain(
      '"*" already allows every tool: give it alone',
    );
  });

  it('names every problem at once: unset variables, bad names, unknown fields, a server of neither kind', () => {
    const message = problem({
      mcpServers: {
        a__b: { command: 'x', tools: ['*'] },
        db: { command: 'x', env: { TOKEN: '${NOT_SET}' }, tools: ['*'] },
        typo: { command: 'x', tool: ['*'] },
        neither: { tools: ['*'] },
        ftp: { type: 'http', url: 'ftp://example.test', tools: ['*'] },
      },
    });
    expect(message).toContain('server "a__b": a name is letters, digits, - and single _ (no __)');
    expect(message).toContain(
      'server "db": env.TOKEN names ${NOT_SET}, which the job\'s environment does not set',
    );
    expect(message).toContain('server "typo"');
    expect(message).toContain(
      'server "neither": needs `command` (a local server) or `type: "http"` with `url`',
    );
    expect(message).toContain('server "ftp"');
  });

  it('refuses `oauth` and points to headers with a token from a secret', () => {
    const oauth = { clientId: 'abc', callbackPort: 8080 };
    expect(
      problem({ mcpServers: { linear: { type: 'http', url: 'https://mcp.example/', oauth, tools: ['*'] } } }),
    ).toBe(
      'mcp_servers: server "linear": `oauth` is not supported (no OAuth flow runs in CI): give the server\'s token in `headers`, as "Authorization": "Bearer ${MCP_TOKEN}" with MCP_TOKEN set from a secret in the step\'s env',
    );
  });

  it('says what is wrong with text that is not the expected JSON', () => {
    expect(() => parseMcpConfig('{not json', 'mcp_servers', {})).toThrow(/mcp_servers is not valid JSON/);
    expect(() => parseMcpConfig('{"servers": {}}', '.mcp.json', {})).toThrow(
      /^\.mcp\.json: .*\(expected \{"mcpServers": \{…\}\}\)$/,
    );
  });
});

describe('fillVariables', () => {
  it('leaves text without references alone and reports each unset variable', () => {
    const missing: string[] = [];
    expect(fillVariables('plain $HOME ${A}-${B:-b}', { A: 'a' }, (name) => missing.push(name))).toEqual({
      value: 'plain $HOME a-b',
      secrets: ['a'],
    });
    fillVariables('${X}${Y}', {}, (name) => missing.push(name));
    expect(missing).toEqual(['X', 'Y']);
  });
});

describe('readMcpServersSetting', () => {
  it('is none when empty, the configuration when JSON, a path in the repository otherwise', () => {
    expect(readMcpServersSetting('  ', {})).toBeUndefined();
    expect(readMcpServersSetting('{"mcpServers": {}}', {})).toEqual({
      kind: 'inline',
      config: { servers: [], secrets: [] },
    });
    expect(readMcpServersSetting('./.mcp.json', {})).toEqual({ kind: 'file', path: '.mcp.json' });
    expect(readMcpServersSetting('config/mcp.json', {})).toEqual({ kind: 'file', path: 'config/mcp.json' });
  });

  it('refuses a path that leaves the repository', () => {
    for (const path of ['/etc/mcp.json', '../other/.mcp.json', 'a/../../b'])
      expect(() => readMcpServersSetting(path, {})).toThrow(/a path inside the repository/);
  });
});
