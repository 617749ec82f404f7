/**
 * Checks HTTP requests (and the emulator's own responses) against GitHub's published OpenAPI
 * description, so that tests fail when code sends something api.github.com would refuse.
 *
 * The 13 MB description is parsed once per process. Schemas are compiled lazily with ajv by JSON
 * pointer into one registered copy of the document, so `#/components/...` refs resolve as written.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';

type Json = Record<string, unknown>;
type Method = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

const METHODS: readonly Method[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const DOC_ID = 'github-openapi';
/** Trailing parameters GitHub lets contain slashes (file paths, git refs, branch names). */
const MULTI_SEGMENT_PARAMS = new Set(['path', 'ref', 'branch', 'head', 'basehead']);

export interface OperationMatch {
  operationId: string;
  pathTemplate: string;
  /** Path parameters, URI-decoded, as strings. */
  params: Record<string, string>;
}

/** Where a request problem lies; the emulator maps `route` and `path` to 404, the rest to 422. */
export type ProblemKind = 'route' | 'path' | 'query' | 'body';

export interface RequestProblem {
  kind: ProblemKind;
  message: string;
}

export interface RequestCheck {
  match?: OperationMatch;
  problems: RequestProblem[];
}

interface Operation {
  operationId: string;
  pathTemplate: string;
  method: Method;
  /** JSON pointer (without '#') of the operation object inside the document. */
  pointer: string;
  node: Json;
}

interface Route {
  template: string;
  regex: RegExp;
  paramNames: string[];
  paramCount: number;
  literalLength: number;
  operations: Map<Method, Operation>;
}

interface Spec {
  doc: Json;
  ajv: Ajv;
  routes: Route[];
  /** Routes whose last `{param}` may span several segments (`contents/{path}`, `git/ref/{ref}`). */
  greedyRoutes: Route[];
  byOperationId: Map<string, Operation>;
  validators: Map<string, ValidateFunction>;
}

let cached: Spec | undefined;

/** Path of the description inside the installed @octokit/openapi package. */
export function openApiDocumentPath(): string {
  const require = createRequire(import.meta.url);
  const pkgJson = require.resolve('@octokit/openapi/package.json');
  return pkgJson.replace(/package\.json$/, 'generated/api.github.com.json');
}

function loadSpec(): Spec {
  if (cached) return cached;
  const raw = JSON.parse(readFileSync(openApiDocumentPath(), 'utf8')) as Json;
  const doc: Json = {
    $id: DOC_ID,
    paths: normalizeNullable(raw.paths),
    components: normalizeNullable(raw.components),
  };
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
  addFormats(ajv);
  ajv.addSchema(doc);
  const routes = buildRoutes(doc.paths as Record<string, Json>, false);
  const byOperationId = new Map<string, Operation>();
  for (const route of routes)
    for (const op of route.operations.values()) byOperationId.set(op.operationId, op);
  cached = {
    doc,
    ajv,
    routes,
    greedyRoutes: buildRoutes(doc.paths as Record<string, Json>, true),
    byOperationId,
    validators: new Map(),
  };
  return cached;
}

function addFormats(ajv: Ajv): void {
  // ajv-formats is CommonJS whose module.exports is the plugin, which also carries `.default`.
  const plugin = (formatsModule as unknown as { default?: typeof formatsModule }).default ?? formatsModule;
  (plugin as unknown as (a: Ajv) => void)(ajv);
  // GitHub-specific formats ajv does not know: accept any string rather than fail compilation.
  for (const name of ['repo.nwo', 'timestamp']) ajv.addFormat(name, true);
}

/**
 * OpenAPI 3.0 `nullable` is only understood by ajv next to a `type`; rewrite it into plain JSON
 * Schema everywhere (`type: [T, 'null']`, or `anyOf [..., null]` when there is no type).
 */
function normalizeNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(normalizeNullable);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    // Example payloads are data, not schemas: copy them untouched.
    out[key] = key === 'example' || key === 'examples' ? value : normalizeNullable(value);
  }
  if (!('nullable' in out)) return out;
  const nullable = out.nullable === true;
  delete out.nullable;
  if (!nullable) return out;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}

function escapePointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function buildRoutes(paths: Record<string, Json>, greedy: boolean): Route[] {
  const routes: Route[] = [];
  for (const [template, item] of Object.entries(paths)) {
    const paramNames: string[] = [];
    const parts = template.split(/(\{[^}]+\})/);
    const lastParamIndex = parts.findLastIndex((p) => p.startsWith('{'));
    const lastParam = parts[lastParamIndex]?.slice(1, -1) ?? '';
    const endsInParam = parts.slice(lastParamIndex + 1).join('') === '';
    if (greedy && !(endsInParam && MULTI_SEGMENT_PARAMS.has(lastParam))) continue;
    let source = '';
    let literalLength = 0;
    parts.forEach((part, index) => {
      if (part.startsWith('{')) {
        paramNames.push(part.slice(1, -1));
        source += greedy && index === lastParamIndex ? '(.+)' : '([^/]+?)';
      } else {
        source += part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        literalLength += part.length;
      }
    });
    const operations = new Map<Method, Operation>();
    for (const method of METHODS) {
      const node = item[method] as Json | undefined;
      if (!node || typeof node.operationId !== 'string') continue;
      const pointer = `/paths/${escapePointerSegment(template)}/${method}`;
      operations.set(method, {
        operationId: node.operationId,
        pathTemplate: template,
        method,
        pointer,
        node,
      });
    }
    routes.push({
      template,
      regex: new RegExp(`^${source}$`),
      paramNames,
      paramCount: paramNames.length,
      literalLength,
      operations,
    });
  }
  // Most specific first: fewer parameters, then more literal text.
  return routes.sort((a, b) => a.paramCount - b.paramCount || b.literalLength - a.literalLength);
}

function decodeSegment(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function findRoute(
  routes: Route[],
  pathname: string,
  method: Method,
): { route?: Route; op?: Operation; params: Record<string, string> } {
  let pathOnly: { route: Route; params: Record<string, string> } | undefined;
  for (const route of routes) {
    const m = route.regex.exec(pathname);
    if (!m) continue;
    const params: Record<string, string> = {};
    route.paramNames.forEach((name, i) => (params[name] = decodeSegment(m[i + 1] ?? '')));
    const op = route.operations.get(method);
    if (op) return { route, op, params };
    pathOnly ??= { route, params };
  }
  return pathOnly ?? { params: {} };
}

function locate(method: string, pathname: string) {
  const spec = loadSpec();
  const m = method.toLowerCase() as Method;
  const clean = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  const exact = findRoute(spec.routes, clean, m);
  if (exact.op) return exact;
  const greedy = findRoute(spec.greedyRoutes, clean, m);
  if (greedy.op) return greedy;
  return exact.route ? exact : greedy;
}

/** The OpenAPI operation GitHub would route this request to, if any. */
export function matchOperation(method: string, pathname: string): OperationMatch | undefined {
  const { op, params } = locate(method, pathname);
  return op ? { operationId: op.operationId, pathTemplate: op.pathTemplate, params } : undefined;
}

/**
 * The custom media types the operation's description documents (`application/vnd.github.full+json` for
 * issues and their comments, `application/vnd.github-commitcomment.full+json` for pull request reviews and
 * review comments), each with what it adds, as the description lists them: empty when it lists none.
 */
export function documentedMediaTypes(operationId: string): string[] {
  const description = loadSpec().byOperationId.get(operationId)?.node.description;
  if (typeof description !== 'string') return [];
  return [...description.matchAll(/\*\*`(application\/vnd\.github[^`]*\+json)`\*\*/g)].map((m) => m[1]!);
}

function validatorAt(pointer: string): ValidateFunction {
  const spec = loadSpec();
  let fn = spec.validators.get(pointer);
  if (!fn) {
    const ref = `${DOC_ID}#${pointer.split('/').map(encodeURIComponent).join('/')}`;
    fn = spec.ajv.compile({ $ref: ref });
    spec.validators.set(pointer, fn);
  }
  return fn;
}

/** Follows a local `$ref` (if any), returning the target node and its pointer. */
function deref(node: Json, pointer: string): { node: Json; pointer: string } {
  const ref = node.$ref;
  if (typeof ref !== 'string') return { node, pointer };
  const target = ref.replace(/^#/, '');
  let current: unknown = loadSpec().doc;
  for (const seg of target.split('/').slice(1)) {
    current = (current as Json)[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return deref(current as Json, target);
}

function formatErrors(where: string, errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const at = `${where}${e.instancePath}`;
    const allowed = e.keyword === 'enum' ? ` (${(e.params.allowedValues as unknown[]).join(', ')})` : '';
    return `${at} ${e.message ?? 'is invalid'}${allowed}`;
  });
}

/** URL parameters arrive as strings; turn them into the JSON type their schema expects. */
function coerce(value: string, schema: Json): unknown {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(value)) {
    return Number(value);
  }
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

interface Parameter {
  name: string;
  in: string;
  required: boolean;
  schema: Json;
  schemaPointer: string;
}

function parametersOf(op: Operation): Parameter[] {
  const list = (op.node.parameters as Json[] | undefined) ?? [];
  return list.map((p, i) => {
    const { node, pointer } = deref(p, `${op.pointer}/parameters/${i}`);
    return {
      name: String(node.name),
      in: String(node.in),
      required: node.required === true,
      schema: (node.schema as Json | undefined) ?? {},
      schemaPointer: `${pointer}/schema`,
    };
  });
}

function checkParameter(param: Parameter, values: string[]): string[] {
  const label = `${param.in} parameter "${param.name}"`;
  if (values.length === 0) return param.required ? [`${label} is required`] : [];
  const isArray = param.schema.type === 'array';
  const items = (param.schema.items as Json | undefined) ?? {};
  const data = isArray
    ? values.flatMap((v) => v.split(',')).map((v) => coerce(v, items))
    : coerce(values[values.length - 1] ?? '', param.schema);
  const validate = validatorAt(param.schemaPointer);
  return validate(data) ? [] : formatErrors(label, validate.errors);
}

function jsonContentPointer(node: Json, pointer: string): string | undefined {
  const content = node.content as Record<string, Json> | undefined;
  if (!content) return undefined;
  const type = Object.keys(content).find((t) => /json/.test(t));
  if (!type || !content[type]?.schema) return undefined;
  return `${pointer}/content/${escapePointerSegment(type)}/schema`;
}

function checkBody(op: Operation, body: unknown): string[] {
  if (!op.node.requestBody) return [];
  const { node, pointer } = deref(op.node.requestBody as Json, `${op.pointer}/requestBody`);
  if (body === undefined) return node.required === true ? ['request body is required'] : [];
  const schemaPointer = jsonContentPointer(node, pointer);
  if (!schemaPointer) return [];
  const validate = validatorAt(schemaPointer);
  return validate(body) ? [] : formatErrors('body', validate.errors);
}

/** Full check of one request, with each problem's kind so a server can pick 404 vs 422. */
export function checkRequest(method: string, url: string, body: unknown): RequestCheck {
  const parsed = new URL(url, 'http://api.github.invalid');
  const { route, op, params } = locate(method, parsed.pathname);
  const upper = method.toUpperCase();
  if (!op) {
    const message = route
      ? `method not allowed: ${upper} ${parsed.pathname} (${route.template})`
      : `unknown route: ${upper} ${parsed.pathname}`;
    return { problems: [{ kind: 'route', message }] };
  }
  const match = { operationId: op.operationId, pathTemplate: op.pathTemplate, params };
  const problems: RequestProblem[] = [];
  for (const param of parametersOf(op)) {
    if (param.in === 'path') {
      const value = params[param.name];
      const found = checkParameter(param, value === undefined ? [] : [value]);
      problems.push(...found.map((message) => ({ kind: 'path' as const, message })));
    } else if (param.in === 'query') {
      const values = [
        ...parsed.searchParams.getAll(param.name),
        ...parsed.searchParams.getAll(`${param.name}[]`),
      ];
      problems.push(...checkParameter(param, values).map((message) => ({ kind: 'query' as const, message })));
    }
  }
  problems.push(...checkBody(op, body).map((message) => ({ kind: 'body' as const, message })));
  return { match, problems };
}

/**
 * Problems GitHub's description finds with a request (empty when valid). `url` may be a full URL
 * or a path with a query string; `body` is the parsed JSON body or undefined.
 */
export function validateRequest(method: string, url: string, body: unknown): string[] {
  return checkRequest(method, url, body).problems.map((p) => `${p.kind}: ${p.message}`);
}

/** Problems with a response body for an operation and status (empty when it matches the description). */
export function validateResponse(operationId: string, status: number, body: unknown): string[] {
  const op = loadSpec().byOperationId.get(operationId);
  if (!op) return [`unknown operation ${operationId}`];
  const responses = op.node.responses as Record<string, Json>;
  const key = String(status) in responses ? String(status) : 'default' in responses ? 'default' : undefined;
  if (!key) return [`${operationId} does not document status ${status}`];
  const { node, pointer } = deref(responses[key] as Json, `${op.pointer}/responses/${key}`);
  const schemaPointer = jsonContentPointer(node, pointer);
  if (!schemaPointer)
    return body === undefined || body === '' ? [] : [`${operationId} ${status} has no body`];
  const validate = validatorAt(schemaPointer);
  return validate(body) ? [] : formatErrors(`response ${status}`, validate.errors);
}

/**
 * Problems with a webhook payload, by the description's name for the event and action (e.g.
 * 'pull-request-review-submitted'); its schemas sit beside the others as `webhook-<name>`.
 */
export function validateWebhook(name: string, payload: unknown): string[] {
  const schemas = loadSpec().doc.components as { schemas: Record<string, Json> };
  if (!schemas.schemas[`webhook-${name}`]) return [`unknown webhook ${name}`];
  const validate = validatorAt(`/components/schemas/webhook-${escapePointerSegment(name)}`);
  return validate(payload) ? [] : formatErrors(name, validate.errors);
}
