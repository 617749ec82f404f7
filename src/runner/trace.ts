// The trace of a run's start and end: one line per step with its start and end, in ms since the process
// started (performance.timeOrigin), printed as debug lines (the log shows them with step debug on; the bench
// reads them). The entry's bundle (dist/index.js) and the rest (dist/main.js) each have their own copy of this
// module, so the steps are kept in one list on the global object, under a symbol of ours.
const KEY = Symbol.for('todo-agent.trace');

export interface TraceStep {
  name: string;
  startMs: number;
  endMs: number;
}

function steps(): TraceStep[] {
  const holder = globalThis as { [KEY]?: TraceStep[] };
  return (holder[KEY] ??= []);
}

const now = (): number => performance.now();

/** Records `name` from `startMs` (default: now) until `work` settles; hands back `work` itself. */
export function traced<T>(name: string, work: Promise<T>, startMs = now()): Promise<T> {
  const end = () => void steps().push({ name, startMs, endMs: now() });
  work.then(end, end);
  return work;
}

/** Records a step that began at `startMs` and ends now (a moment when `startMs` is omitted). */
export function traceStep(name: string, startMs = now()): void {
  steps().push({ name, startMs, endMs: now() });
}

/** The steps so far, by their start. */
export function traceSteps(): TraceStep[] {
  return [...steps()].sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
}

/** One line a step: `trace <start>–<end> ms <name>`, as the bench parses it back (`parseTrace`). */
export function traceLines(): string[] {
  const ms = (value: number) => value.toFixed(1);
  return traceSteps().map((step) => `trace ${ms(step.startMs)}–${ms(step.endMs)} ms ${step.name}`);
}

/** The steps of `traceLines`' lines found in `text` (a job log), in their order. */
export function parseTrace(text: string): TraceStep[] {
  const found: TraceStep[] = [];
  for (const match of text.matchAll(/trace (\d+(?:\.\d+)?)–(\d+(?:\.\d+)?) ms ([^\n]+)/g))
    found.push({ name: match[3]!.trim(), startMs: Number(match[1]), endMs: Number(match[2]) });
  return found;
}
