// The `output_schema` setting: a JSON Schema the run's final answer must match. Checked once, before any
// model request: a valid JSON Schema (ajv compiles it), and one the API's structured outputs can take (no
// recursion, no `$ref` outside the schema, and the SDK's own transform accepts it: that transform moves
// the constraints structured outputs do not enforce, such as `minimum` or `maxLength`, into descriptions).
// The answer is validated against the schema as given, so those constraints still hold.
import { Ajv, type ErrorObject } from 'ajv';
import formatsModule from 'ajv-formats';
import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';

export interface OutputSchema {
  /** The schema as the maintainer wrote it. */
  schema: Record<string, unknown>;
  /** The schema as the API's structured outputs take it. */
  wire: Record<string, unknown>;
  /** The first way `value` does not match, as one phrase; undefined when it matches. */
  mismatch(value: unknown): string | undefined;
}

export class OutputSchemaError extends Error {
  override name = 'OutputSchemaError';
}

/** `text` (JSON) made an OutputSchema; throws an OutputSchemaError that says what is wrong. */
export function parseOutputSchema(text: string, where = 'output_schema'): OutputSchema {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new OutputSchemaError(`${where} is not JSON (${(error as Error).message})`);
  }
  return checkOutputSchema(value, where);
}

export function checkOutputSchema(value: unknown, where = 'output_schema'): OutputSchema {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new OutputSchemaError(`${where} must be a JSON Schema object, like {"type": "object", …}`);
  const schema = value as Record<string, unknown>;
  const refProblem = refsProblem(schema);
  if (refProblem)
    throw new OutputSchemaError(`${where} cannot be used with structured outputs: ${refProblem}`);
  const ajv = new Ajv({ allErrors: false, strict: false });
  // CommonJS under ESM: the plugin is the module's default, or the module itself once bundled.
  const addFormats =
    (formatsModule as unknown as { default?: typeof formatsModule }).default ?? formatsModule;
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
  let validate: ReturnType<Ajv['compile']>;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw new OutputSchemaError(`${where} is not a valid JSON Schema: ${(error as Error).message}`);
  }
  let wire: Record<string, unknown>;
  try {
    wire = transformJSONSchema(schema) as Record<string, unknown>;
  } catch (error) {
    throw new OutputSchemaError(
      `${where} cannot be used with structured outputs: ${(error as Error).message}`,
    );
  }
  return {
    schema,
    wire,
    mismatch: (answer) => (validate(answer) ? undefined : describe(validate.errors?.[0])),
  };
}

function describe(error: ErrorObject | undefined): string {
  if (!error) return 'it does not match';
  const at = error.instancePath || '(the whole answer)';
  const extra =
    error.keyword === 'additionalProperties'
      ? ` (${String((error.params as { additionalProperty?: unknown }).additionalProperty)})`
      : error.keyword === 'enum'
        ? ` (${JSON.stringify((error.params as { allowedValues?: unknown }).allowedValues)})`
        : '';
  return `${at} ${error.message ?? 'does not match'}${extra}`;
}

/**
 * What structured outputs refuse of `$ref`: one that points outside the schema, or one that reaches back to
 * a schema it is inside of (a recursive schema). Undefined when every `$ref` is a local, acyclic pointer.
 */
function refsProblem(schema: Record<string, unknown>): string | undefined {
  const resolve = (pointer: string): unknown =>
    pointer
      .slice(2)
      .split('/')
      .filter(Boolean)
      .map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], schema);
  const walk = (node: unknown, within: readonly string[]): string | undefined => {
    if (Array.isArray(node)) {
      for (const item of node) {
        const problem = walk(item, within);
        if (problem) return problem;
      }
      return undefined;
    }
    if (typeof node !== 'object' || node === null) return undefined;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string') {
      if (ref !== '#' && !ref.startsWith('#/'))
        return `$ref '${ref}' points outside the schema (only local references are taken)`;
      if (within.includes(ref))
        return `$ref '${ref}' makes the schema recursive (recursive schemas are not taken)`;
      const problem = walk(resolve(ref), [...within, ref]);
      if (problem) return problem;
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === '$ref') continue;
      const problem = walk(child, within);
      if (problem) return problem;
    }
    return undefined;
  };
  return walk(schema, ['#']);
}
