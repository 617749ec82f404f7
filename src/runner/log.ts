// The run as the job log shows it: one group per turn holding the terminal panel and the tool lines.
import { type AgentObserver } from '../agent/events.js';
import { promptTokens } from '../model/usage.js';
import { log } from './output.js';
import { terminalReporter } from '../terminal/reporter.js';
import { screen } from '../terminal/screen.js';

/** The log: one group per turn holding the terminal panel and tool lines. */
export function logObserver(): AgentObserver {
  // The runner's log viewer reads escape sequences as a terminal does: the lines pass the same screen.
  const report = terminalReporter(screen((text) => log.info(text.replace(/\n$/, '')), false));
  let open = false;
  const close = () => {
    if (open) log.endGroup();
    open = false;
  };
  return (event) => {
    if (event.type === 'turn_start') {
      close();
      log.startGroup(`Turn ${event.turn}`);
      open = true;
    }
    // A turn ended by a model error has no turn_end: the end event closes its group.
    if (event.type === 'end') close();
    report(event);
    if (event.type === 'turn_end') {
      log.info(
        `tokens: ${promptTokens(event.usage)} in, ${event.usage.output_tokens} out (stop: ${event.stopReason ?? 'none'})`,
      );
      close();
    }
  };
}
