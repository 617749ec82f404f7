import { describe, expect, it } from 'vitest';
import { checkOutputSchema, OutputSchemaError, parseOutputSchema } from '../../src/model/output-schema.js';
import { structuredOutputViolation } from '../support/anthropic/structured-output.js';

const RISK = {
  type: 'object',
  properties: { risk: { enum: ['low', 'high'] }, lines: { type: 'integer', minimum: 0, maximum: 500 } },
  required: ['risk', 'lines'],
};

describe('output_schema', () => {
  it('takes a schema, sends the form structured outputs take, and validates against the schema as written', () => {
    const schema = checkOutputSchema(RISK);
    // The wire form: additionalProperties false, the bounds moved into the description.
    expect(schema.wire).toMatchObject({ type: 'object', additionalProperties: false });
    expect(JSON.stringify(schema.wire)).not.toContain('"minimum"');
    // The scripted server, which enforces the structured outputs rules, takes the wire form but not the original.
    const request = (s: unknown) => ({
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'x' }],
      output_config: { format: { type: 'json_schema', schema: s } },
    });
    expect(structuredOutputViolation(request(schema.wire))).toBeUndefined();
    expect(structuredOutputViolation(request(RISK))).toMatch(/additionalProperties/);
    expect(schema.mismatch({ risk: 'low', lines: 3 })).toBeUndefined();
    expect(schema.mismatch({ risk: 'low', lines: 900 })).toBe('/lines must be <= 500');
    expect(schema.mismatch({ risk: 'none', lines: 1 })).toMatch(
      /^\/risk must be equal to one of the allowed values/,
    );
    expect(schema.mismatch({ risk: 'low' })).toBe("(the whole answer) must have required property 'lines'");
  });

  it('refuses what is not JSON, not a schema, or what structured outputs cannot take, saying why', () => {
    expect(() => parseOutputSchema('{nope')).toThrow(/^output_schema is not JSON/);
    expect(() => checkOutputSchema([1])).toThrow(/must be a JSON Schema object/);
    expect(() => checkOutputSchema({ type: 'no-such-type' })).toThrow(/is not a valid JSON Schema/);
    expect(() => checkOutputSchema({ $ref: 'https://example.invalid/schema.json' })).toThrow(
      /points outside the schema/,
    );
    const recursive = {
      type: 'object',
      properties: { tree: { $ref: '#/$defs/tree' } },
      $defs: { tree: { type: 'object', properties: { child: { $ref: '#/$defs/tree' } } } },
    };
    expect(() => checkOutputSchema(recursive)).toThrow(OutputSchemaError);
    expect(() => checkOutputSchema(recursive)).toThrow(/recursive schemas are not taken/);
    // A reference used twice is not a recursion.
    const shared = {
      type: 'object',
      properties: { a: { $ref: '#/$defs/n' }, b: { $ref: '#/$defs/n' } },
      $defs: { n: { type: 'string' } },
    };
    expect(checkOutputSchema(shared).mismatch({ a: 'x', b: 'y' })).toBeUndefined();
  });
});
