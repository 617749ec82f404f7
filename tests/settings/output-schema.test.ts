// The output_schema setting: inline JSON or a path in the repository, read from the base commit; a bad
// value gets one sentence, and a schema the base branch does not have is named.
import { describe, expect, it } from 'vitest';
import { loadOutputSchema, readOutputSchemaSetting } from '../../src/settings/output-schema.js';

const SCHEMA = '{"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}';

describe('readOutputSchemaSetting', () => {
  it('reads nothing from an empty input, inline JSON as it is, and anything else as a path', () => {
    expect(readOutputSchemaSetting('  ')).toBeUndefined();
    expect(readOutputSchemaSetting(` ${SCHEMA}\n`)).toEqual({ kind: 'inline', text: SCHEMA });
    expect(readOutputSchemaSetting('.github/answer.schema.json')).toEqual({
      kind: 'file',
      path: '.github/answer.schema.json',
    });
  });

  it('says what is wrong with JSON that does not parse, and with a path outside the repository', () => {
    expect(readOutputSchemaSetting('{"type": ')).toEqual({
      problem: expect.stringMatching(/^output_schema is not JSON \(.+\)$/),
    });
    expect(readOutputSchemaSetting('../secrets.json')).toEqual({
      problem: expect.stringContaining(
        "a path inside the repository (like .github/answer.schema.json), got '../secrets.json'",
      ),
    });
  });
});

describe('loadOutputSchema', () => {
  it('checks an inline schema without reading anything', async () => {
    const schema = await loadOutputSchema({ kind: 'inline', text: SCHEMA }, () => {
      throw new Error('read nothing');
    });
    expect(schema.mismatch({ ok: true })).toBeUndefined();
    expect(schema.mismatch({ ok: 'yes' })).toBeDefined();
  });

  it("reads a path from the base commit, naming the file in a bad schema's problem", async () => {
    const asked: string[] = [];
    const base: Record<string, string> = { 'a.json': SCHEMA, 'b.json': '[1]' };
    const readBase = async (path: string) => (asked.push(path), base[path]);
    const schema = await loadOutputSchema({ kind: 'file', path: 'a.json' }, readBase);
    expect(schema.mismatch({ ok: false })).toBeUndefined();
    await expect(loadOutputSchema({ kind: 'file', path: 'b.json' }, readBase)).rejects.toThrow(
      'output_schema (b.json) must be a JSON Schema object',
    );
    await expect(loadOutputSchema({ kind: 'file', path: 'c.json' }, readBase)).rejects.toMatchObject({
      name: 'OutputSchemaError',
      message: 'output_schema names c.json, which the base branch does not have',
    });
    expect(asked).toEqual(['a.json', 'b.json', 'c.json']);
  });
});
