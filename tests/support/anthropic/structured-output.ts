// Structured outputs as the scripted model server enforces them (the structured outputs page: "JSON
// outputs" with `output_config.format`, its JSON Schema limitations, and what it cannot be combined with).
// A request with `output_config.format` must give `type: "json_schema"` and a schema object; every object
// schema must say `additionalProperties: false`; the numeric, string-length and array-size constraints the
// page lists as unsupported are refused, as are recursive schemas and `$ref`s outside the schema; the
// models the page does not list get a 400; message prefilling (a last assistant turn) and citations are
// incompatible with JSON outputs.
import { asArray, isObject } from './cache.js';
import type { Json } from './types.js';

const UNSUPPORTED = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'maxItems',
  'uniqueItems',
] as const;

/** Model ids the page does not list as taking structured outputs. */
const WITHOUT = /^claude-(opus-4(-1)?|sonnet-4)(-\d{8})?$/;

function schemaProblem(node: unknown, at: string, root: Json, within: readonly string[]): string | undefined {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) {
      const problem = schemaProblem(item, `${at}.${i}`, root, within);
      if (problem) return problem;
    }
    return undefined;
  }
  if (!isObject(node)) return undefined;
  if (node.type === 'object' && node.additionalProperties !== false)
    return `${at}: For 'object' type, 'additionalProperties' must be explicitly set to false`;
  for (const keyword of UNSUPPORTED)
    if (keyword in node) return `${at}: JSON schema keyword '${keyword}' is not supported`;
  if ('minItems' in node && node.minItems !== 0 && node.minItems !== 1)
    return `${at}: 'minItems' values other than 0 or 1 are not supported`;
  if (typeof node.$ref === 'string') {
    const ref = node.$ref;
    if (ref !== '#' && !ref.startsWith('#/')) return `${at}: external '$ref' is not supported`;
    if (within.includes(ref)) return `${at}: recursive schemas are not supported`;
    const target = ref
      .slice(2)
      .split('/')
      .filter(Boolean)
      .reduce<unknown>((n, key) => (isObject(n) ? n[key] : undefined), root);
    const problem = schemaProblem(target, at, root, [...within, ref]);
    if (problem) return problem;
  }
  for (const [key, child] of Object.entries(node)) {
    if (key === '$ref' || key === 'enum' || key === 'const' || key === 'default') continue;
    const problem = schemaProblem(child, `${at}.${key}`, root, within);
    if (problem) return problem;
  }
  return undefined;
}

/** The 400 a request's JSON outputs would get, or undefined. */
export function structuredOutputViolation(body: Json): string | undefined {
  const config = body.output_config;
  if (!isObject(config) || config.format === undefined || config.format === null) return undefined;
  const format = config.format;
  if (!isObject(format) || format.type !== 'json_schema')
    return "output_config.format.type: Input should be 'json_schema'";
  if (!isObject(format.schema)) return 'output_config.format.schema: Input should be a valid dictionary';
  if (typeof body.model === 'string' && WITHOUT.test(body.model))
    return `output_config.format: structured outputs are not supported by ${body.model}`;
  const messages = asArray(body.messages);
  if (isObject(messages.at(-1)) && (messages.at(-1) as Json).role === 'assistant')
    return 'output_config.format: structured outputs cannot be combined with assistant message prefilling';
  const cites = JSON.stringify(messages).includes('"citations":{"enabled":true');
  if (cites) return 'output_config.format: structured outputs cannot be combined with citations';
  return schemaProblem(format.schema, 'output_config.format.schema', format.schema, ['#']);
}
