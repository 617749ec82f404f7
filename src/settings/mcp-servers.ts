// The `mcp_servers` setting: the maintainer's MCP servers in the JSON Claude Code and the MCP documentation
// use (`{"mcpServers": {"name": {...}}}`), checked whole before a run starts. Each server must list the tools
// it may offer; `${VAR}` in `env` and `headers` is filled from the job's environment, and every value filled
// so is a secret (the caller registers them with the redactor). Pure: text and an environment in, a checked
// configuration out, or one sentence per problem.
import { z } from 'zod';

/** What `tools: ["*"]` says: every tool the server offers. Written out by the maintainer, never assumed. */
export const ALL_TOOLS = '*';

/**
 * A server's name becomes part of each tool's name (`mcp__<server>__<tool>`), which the API takes as
 * `[a-zA-Z0-9_-]`: so do we, without `__` (it separates the parts) and short enough to leave room.
 */
const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;
const MAX_SERVER_NAME = 40;
/** A variable reference: `${NAME}` or `${NAME:-default}`. */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

const stringMap = z.record(z.string(), z.string({ error: 'must be a string' }));

const toolList = z
  .array(z.string({ error: 'each tool must be a name (a string)' }), {
    error: 'is required: list the tools the model may use (exact names, or "*" for all of them)',
  })
  .superRefine((tools, context) => {
    if (tools.length === 0)
      context.addIssue({ code: 'custom', message: 'lists no tool: name at least one, or "*" for all' });
    if (tools.includes(ALL_TOOLS) && tools.length > 1)
      context.addIssue({ code: 'custom', message: '"*" already allows every tool: give it alone' });
    for (const tool of tools.filter((name) => name !== ALL_TOOLS && /[*?]/.test(name)))
      context.addIssue({
        code: 'custom',
        message: `"${tool}": tools are exact names (no patterns); "*" alone allows every tool`,
      });
  });

const common = { tools: toolList, readOnly: z.boolean({ error: 'must be true or false' }).optional() };

const localServer = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string({ error: 'is required' }).trim().min(1, 'is empty'),
  args: z.array(z.string({ error: 'each argument must be a string' })).default([]),
  env: stringMap.default({}),
  cwd: z.string().optional(),
  ...common,
});

const remoteServer = z.strictObject({
  type: z.enum(['http', 'sse']),
  url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }),
  headers: stringMap.default({}),
  ...common,
});

/** The schema a server's object is read by: remote when it says so (a `type` or a `url`), else local. */
function serverSchema(raw: unknown): z.ZodType<LocalServerConfig | RemoteServerConfig> | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  if ('url' in raw || ('type' in raw && raw.type !== 'stdio')) return remoteServer;
  return 'command' in raw ? localServer : undefined;
}

const fileSchema = z.strictObject({
  mcpServers: z.record(z.string(), z.unknown(), { error: 'must be an object of servers by name' }),
});

export type LocalServerConfig = z.output<typeof localServer>;
export type RemoteServerConfig = z.output<typeof remoteServer>;
export type ServerConfig = (LocalServerConfig | RemoteServerConfig) & { name: string };

export interface McpConfig {
  servers: ServerConfig[];
  /** Every value `${VAR}` filled in: secrets for the redactor and the runner's masking. */
  secrets: string[];
}

/** The setting as the workflow gives it: the JSON itself, or a path in the repository to read it from. */
export type McpServersSetting = { kind: 'inline'; config: McpConfig } | { kind: 'file'; path: string };

export class McpConfigError extends Error {
  override name = 'McpConfigError';
}

export function isLocal(server: ServerConfig): server is LocalServerConfig & { name: string } {
  return !('url' in server);
}

/**
 * The configuration in `text` (from `where`: the input, a file), with `${VAR}` filled from `env`; throws
 * McpConfigError listing every problem.
 */
export function parseMcpConfig(text: string, where: string, env: NodeJS.ProcessEnv): McpConfig {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new McpConfigError(`${where} is not valid JSON (${(error as Error).message})`);
  }
  const file = fileSchema.safeParse(json);
  if (!file.success)
    throw new McpConfigError(
      `${where}: ${problems(file.error, []).join('; ')} (expected {"mcpServers": {…}})`,
    );
  const found: string[] = [];
  const servers: ServerConfig[] = [];
  const secrets = new Set<string>();
  for (const [name, raw] of Object.entries(file.data.mcpServers)) {
    const at = `server "${name}"`;
    if (!SERVER_NAME.test(name) || name.length > MAX_SERVER_NAME) {
      found.push(
        `${at}: a name is letters, digits, - and single _ (no __), at most ${MAX_SERVER_NAME} characters`,
      );
      continue;
    }
    const schema = serverSchema(raw);
    if (!schema) {
      found.push(`${at}: needs \`command\` (a local server) or \`type: "http"\` with \`url\``);
      continue;
    }
    if (typeof raw === 'object' && raw !== null && 'oauth' in raw) {
      found.push(
        `${at}: \`oauth\` is not supported (no OAuth flow runs in CI): give the server's token in \`headers\`, as "Authorization": "Bearer \${MCP_TOKEN}" with MCP_TOKEN set from a secret in the step's env`,
      );
      continue;
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      found.push(...problems(parsed.error, [at]));
      continue;
    }
    const server = { ...parsed.data, name };
    const fill = (map: Record<string, string>, field: string): Record<string, string> =>
      Object.fromEntries(
        Object.entries(map).map(([key, value]) => {
          const filled = fillVariables(value, env, (variable) =>
            found.push(
              `${at}: ${field}.${key} names \${${variable}}, which the job's environment does not set`,
            ),
          );
          for (const secret of filled.secrets) secrets.add(secret);
          return [key, filled.value];
        }),
      );
    servers.push(
      isLocal(server)
        ? { ...server, env: fill(server.env, 'env') }
        : { ...server, headers: fill(server.headers, 'headers') },
    );
  }
  if (found.length > 0) throw new McpConfigError(`${where}: ${found.join('; ')}`);
  return { servers, secrets: [...secrets] };
}

/** `value` with each `${VAR}` (or `${VAR:-default}`) filled in; `missing` hears of each unset one. */
export function fillVariables(
  value: string,
  env: NodeJS.ProcessEnv,
  missing: (variable: string) => void,
): { value: string; secrets: string[] } {
  const secrets: string[] = [];
  const filled = value.replace(REFERENCE, (_whole, variable: string, fallback: string | undefined) => {
    const set = env[variable];
    if (set !== undefined && set !== '') {
      secrets.push(set);
      return set;
    }
    if (fallback !== undefined) return fallback;
    missing(variable);
    return '';
  });
  return { value: filled, secrets };
}

/**
 * The `mcp_servers` input: empty is none, JSON (it starts with `{`) is the configuration itself, anything
 * else is a path in the repository, read later from the base branch's commit (never the work tree).
 */
export function readMcpServersSetting(value: string, env: NodeJS.ProcessEnv): McpServersSetting | undefined {
  const text = value.trim();
  if (text === '') return undefined;
  if (text.startsWith('{')) return { kind: 'inline', config: parseMcpConfig(text, 'mcp_servers', env) };
  const path = repositoryPath(text);
  if (path === undefined)
    throw new McpConfigError(
      `mcp_servers must be the JSON itself or a path inside the repository (like .mcp.json), got '${text}'`,
    );
  return { kind: 'file', path };
}

/** `text` as a path inside the repository (without a leading `./`); undefined when it leads outside. */
export function repositoryPath(text: string): string | undefined {
  const path = text.trim().replace(/^\.\//, '');
  if (path === '' || path.startsWith('/') || path.split('/').includes('..') || /[\n\0]/.test(path))
    return undefined;
  return path;
}

/** Each issue as `where: message`, its path joined after `prefix`. */
function problems(error: z.ZodError, prefix: readonly string[]): string[] {
  return error.issues.map((issue) => {
    const [head, ...rest] = [...prefix, ...issue.path.map(String)];
    if (head === undefined) return issue.message;
    return rest.length > 0 ? `${head}: ${rest.join('.')} ${issue.message}` : `${head}: ${issue.message}`;
  });
}
