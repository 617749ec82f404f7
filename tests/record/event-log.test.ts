// The CLI's `--events FILE`: every agent event the observer sees becomes one redacted JSON line.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openEventLog } from '../../src/record/event-log.js';
import { useTempDir } from '../support/temp-dir.js';

const tempDir = useTempDir('event-log');

describe('openEventLog', () => {
  it('writes each event as a stamped JSON line, redacted, all on disk at the close', async () => {
    const path = join(tempDir(), 'events.jsonl');
    const log = openEventLog(path, (text) => text.replaceAll('hunter2', '***'));
    log.observer({ type: 'turn_start', turn: 1 });
    log.observer({ type: 'assistant_text', turn: 1, text: 'the password is hunter2' });
    await log.close();
    const events = (await readFile(path, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.map(({ at: _at, ...event }) => event)).toEqual([
      { type: 'turn_start', turn: 1 },
      { type: 'assistant_text', turn: 1, text: 'the password is ***' },
    ]);
    expect(events.every((event) => typeof event.at === 'number')).toBe(true);
  });

  it('keeps every string as it is when nothing redacts', async () => {
    const path = join(tempDir(), 'events.jsonl');
    const log = openEventLog(path);
    log.observer({ type: 'assistant_text', turn: 2, text: 'plain hunter2' });
    await log.close();
    expect(await readFile(path, 'utf8')).toContain('"text":"plain hunter2"');
  });
});
