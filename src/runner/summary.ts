// The job summary: the final checklist and a table of turns, tool calls and tokens.
import { type AgentObserver } from '../agent/events.js';
import { promptTokens, type Usage } from '../model/usage.js';
import { writeSummary } from './output.js';
import { shortNumber } from '../text/markdown.js';

interface TurnRow {
  turn: number;
  tools: string[];
  usage?: Usage;
}

const MAX_ROWS = 200;

export class RunSummary {
  readonly #turns = new Map<number, TurnRow>();

  observer: AgentObserver = (event) => {
    if (event.type === 'turn_start') this.#turns.set(event.turn, { turn: event.turn, tools: [] });
    if (event.type === 'tool')
      this.#turns.get(event.turn)?.tools.push(event.isError ? `${event.name} ✗` : event.name);
    if (event.type === 'turn_end') {
      const row = this.#turns.get(event.turn);
      if (row) row.usage = event.usage;
    }
  };

  /**
   * Writes the summary; `checklist` is the final comment body, `githubReads` the GitHub requests made for the
   * model (the github tool and the first message's map of mentions).
   */
  async write(checklist: string, githubReads = 0): Promise<void> {
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
