// The job summary: the final checklist and a table of turns, tool calls and tokens.
import { type AgentObserver, type StructuredOutput } from '../agent/events.js';
import { promptTokens, type Usage } from '../model/usage.js';
import { writeSummary } from './output.js';
import { shortNumber } from '../text/markdown.js';

interface TurnRow {
  turn: number;
  tools: string[];
  usage?: Usage;
}

const MAX_ROWS = 200;

/** The most of the record's rendering the summary shows: its start and its end, around a cut. */
const RECORD_CHARS = 30_000;

/** The record's rendering in a closed <details>, fenced so that no backtick run in it can close the fence. */
function collapsed({ path, text }: { path: string; text: string }): string {
  const shown =
    text.length > RECORD_CHARS
      ? `${text.slice(0, RECORD_CHARS / 2)}\n… (${text.length - RECORD_CHARS} characters cut; the file has everything) …\n${text.slice(-RECORD_CHARS / 2)}`
      : text;
  const longest = Math.max(2, ...[...shown.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `<details><summary>Run record: <code>${escapeHtml(path)}</code></summary>\n\n${fence}text\n${shown.trimEnd()}\n${fence}\n\n</details>\n`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The `structured_output` output: the answer as JSON, empty when there is none. */
export function structuredOutputJson(output: StructuredOutput | undefined): string {
  return output && 'value' in output ? JSON.stringify(output.value) : '';
}

/** Why the step fails for its final answer, when `output_schema` asked for one that never matched. */
export function structuredOutputFailure(output: StructuredOutput | undefined): string | undefined {
  return output && 'error' in output ? `output_schema: ${output.error}` : undefined;
}

/** The answer, fenced so that no backtick run in it can close the fence, or why there is none. */
function structuredSection(output: StructuredOutput): string {
  if ('error' in output) return `### Structured output\n\nNone: ${output.error}\n`;
  const json = JSON.stringify(output.value, null, 2);
  const fence = '`'.repeat(Math.max(2, ...[...json.matchAll(/`+/g)].map((m) => m[0].length)) + 1);
  return `### Structured output\n\n${fence}json\n${json}\n${fence}\n`;
}

export class RunSummary {
  readonly #turns = new Map<number, TurnRow>();
  #structured: StructuredOutput | undefined;

  observer: AgentObserver = (event) => {
    if (event.type === 'end') this.#structured = event.result.structuredOutput;
    if (event.type === 'turn_start') this.#turns.set(event.turn, { turn: event.turn, tools: [] });
    if (event.type === 'tool')
      this.#turns.get(event.turn)?.tools.push(event.isError ? `${event.name} ✗` : event.name);
    if (event.type === 'turn_end') {
      const row = this.#turns.get(event.turn);
      if (row) row.usage = event.usage;
    }
  };

  /**
   * Writes the summary; `checklist` is the final comment body, `record` the run record shown as the terminal
   * shows a run, which goes in collapsed, `githubReads` the GitHub requests made for the model (the github
   * tool and the first message's map of mentions).
   */
  async write(checklist: string, record?: { path: string; text: string }, githubReads = 0): Promise<void> {
    const rows = [...this.#turns.values()]
      .slice(-MAX_ROWS)
      .map((row) => [
        String(row.turn),
        row.tools.join(', ') || '—',
        shortNumber(row.usage ? promptTokens(row.usage) : 0),
        shortNumber(row.usage?.cache_read_input_tokens ?? 0),
        shortNumber(row.usage?.output_tokens ?? 0),
      ]);
    await writeSummary((summary) => {
      summary.addRaw(checklist, true).addEOL();
      if (this.#structured) summary.addRaw(structuredSection(this.#structured), true);
      if (record) summary.addRaw(collapsed(record), true);
      if (rows.length === 0) return;
      summary.addHeading('Turns', 3).addTable([
        [
          { data: 'Turn', header: true },
          { data: 'Tool calls', header: true },
          { data: 'Input tokens', header: true },
          { data: 'Cached', header: true },
          { data: 'Output tokens', header: true },
        ],
        ...rows,
      ]);
      if (githubReads > 0) summary.addRaw(`GitHub requests for the model: ${githubReads}`, true);
    });
  }
}
