// The terminal observer: the live todo panel and one line per tool call, for the CLI and the action log.
import type { AgentEvent, AgentObserver } from '../agent/events.js';
import { describeFailure } from '../agent/verify.js';
import { formatDuration } from '../text/markdown.js';
import { redactAndCut } from '../text/redact.js';
import { oneLine, renderPanel, type PanelHelper } from './panel.js';
import type { TodoItem } from '../agent/todo/todos.js';
import type { Screen } from './screen.js';

/** The observer that prints the run on `screen`. */
export function terminalReporter(screen: Screen): AgentObserver {
  // The run's list and its helpers', for a panel that nests them.
  let items: readonly TodoItem[] = [];
  const helpers: PanelHelper[] = [];
  const panel = () => screen.print(...renderPanel(items, 'Todos', helpers), '\n');
  return (event: AgentEvent) => {
    switch (event.type) {
      case 'todos':
        items = event.items;
        panel();
        break;
      case 'helper_start': {
        const { session, kind, description, under } = event;
        helpers.push({ session, kind, description, items: [], ...(under === undefined ? {} : { under }) });
        screen.print(`  ↳ ${session} (${kind}) started: ${oneLine(description)}\n`);
        break;
      }
      case 'helper': {
        const helper = helpers.find((one) => one.session === event.session);
        const inner = event.event;
        if (inner.type === 'tool')
          screen.print(
            `    · [${event.session}] ${inner.name} ${summarizeInput(inner.input)}${commandOutcome(inner)}\n`,
          );
        if (!helper || (inner.type !== 'todos' && inner.type !== 'end')) break;
        if (inner.type === 'todos') helper.items = inner.items;
        else Object.assign(helper, { items: inner.result.todos ?? helper.items, ended: inner.result.status });
        panel();
        break;
      }
      case 'tool':
        screen.print(
          `  ${event.isError ? '✗' : '·'} ${event.name} ${summarizeInput(event.input)}${commandOutcome(event)}\n`,
        );
        break;
      case 'nudge':
        screen.print(`  ↺ ${event.kind.replace('_', ' ')}\n`);
        break;
      case 'verify': {
        const { report } = event;
        const seconds = Math.round(report.durationMs / 1000);
        const how = report.passed ? `passed in ${seconds} s` : `failed (${describeFailure(report)})`;
        screen.print(
          `  ${report.passed ? '✓' : '✗'} verify ${report.command}: ${how}, round ${report.round} of ${report.attempts}\n`,
        );
        if (!report.passed) screen.print(`${report.outputTail.replace(/^/gm, '    ').trimEnd()}\n`);
        break;
      }
      case 'compaction':
        screen.print(
          event.summarized
            ? `  ⇣ context compacted on the server (${event.kind})\n`
            : `  ⇣ compaction on the server brought no summary (${event.stopReason ?? 'failed'}); the run goes on\n`,
        );
        break;
      case 'network_refused':
        screen.print(`  ⛔ network gate refused ${event.host}:${event.port}: ${event.reason}\n`);
        break;
      case 'end':
        screen.print(
          `\n${event.result.status}: ${event.result.reason} (${event.result.turns} turns, ${event.result.toolCalls} tool calls${event.result.compactions ? `, ${event.result.compactions} compactions` : ''})\n`,
        );
        break;
      default:
        break;
    }
  };
}

/**
 * How a command ended, for a tool call that ran one (bash): its exit status, or that it was killed (a
 * timeout, a cancel), and how long it took; a failed `npm ci` and a passing one must not look alike.
 */
export function commandOutcome(call: { exitCode?: number | null; durationMs: number }): string {
  if (call.exitCode === undefined) return '';
  const took = call.durationMs < 1000 ? `${Math.round(call.durationMs)} ms` : formatDuration(call.durationMs);
  return ` (${call.exitCode === null ? 'killed' : `exit ${call.exitCode}`}, ${took})`;
}

/** A one-line hint of what a tool call did: the command or path, shortened. */
export function summarizeInput(input: unknown): string {
  if (typeof input !== 'object' || input === null) return '';
  const record = input as Record<string, unknown>;
  const value =
    record.command ??
    record.path ??
    record.description ??
    (Array.isArray(record.items) ? `${record.items.length} items` : '');
  // Redacted before the cut: the log's own redaction would not recognise half a secret.
  return redactAndCut(String(value).replace(/\s+/g, ' ').trim(), 100);
}
