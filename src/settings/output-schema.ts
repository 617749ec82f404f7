// The `output_schema` input: a JSON Schema for the run's final answer, inline (it starts with `{`) or a path
// in the repository, read from the base branch's commit (never the work tree, which the model edits). The
// inline JSON is parsed with the other settings; the schema itself is checked (model/output-schema.ts) before
// the first model request, once the file is read.
import type { OutputSchema } from '../model/output-schema.js';
import { repositoryPath } from './mcp-servers.js';

export type OutputSchemaSetting = { kind: 'inline'; text: string } | { kind: 'file'; path: string };

/** The setting, or its problem as one sentence; undefined when the input is empty. */
export function readOutputSchemaSetting(
  value: string,
): OutputSchemaSetting | { problem: string } | undefined {
  const text = value.trim();
  if (text === '') return undefined;
  if (text.startsWith('{')) {
    try {
      JSON.parse(text);
    } catch (error) {
      return { problem: `output_schema is not JSON (${(error as Error).message})` };
    }
    return { kind: 'inline', text };
  }
  const path = repositoryPath(text);
  if (path === undefined)
    return {
      problem: `output_schema must be a JSON Schema or a path inside the repository (like .github/answer.schema.json), got '${text}'`,
    };
  return { kind: 'file', path };
}

/** The schema the setting names, checked; throws an OutputSchemaError that says what is wrong. */
export async function loadOutputSchema(
  setting: OutputSchemaSetting,
  readBase: (path: string) => Promise<string | undefined>,
): Promise<OutputSchema> {
  const { parseOutputSchema, OutputSchemaError } = await import('../model/output-schema.js');
  if (setting.kind === 'inline') return parseOutputSchema(setting.text);
  const text = await readBase(setting.path);
  if (text === undefined)
    throw new OutputSchemaError(`output_schema names ${setting.path}, which the base branch does not have`);
  return parseOutputSchema(text, `output_schema (${setting.path})`);
}
