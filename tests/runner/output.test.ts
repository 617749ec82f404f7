// What the action hands the runner is redacted in one place: outputs, the summary and the log.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { redactor } from '../../src/text/redact.js';
import { log, setOutput, writeSummary } from '../../src/runner/output.js';
import { usePrinted } from '../support/printed.js';
import { foreignControls } from '../support/terminal.js';

const SECRET = 'runner-output-secret-1';
const SHAPED = `ghs_${'c'.repeat(36)}`;
let dir: string;
const saved = { ...process.env };

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-output-'));
  process.env.GITHUB_OUTPUT = join(dir, 'output');
  process.env.GITHUB_STEP_SUMMARY = join(dir, 'summary.md');
  await writeFile(process.env.GITHUB_OUTPUT, '');
  await writeFile(process.env.GITHUB_STEP_SUMMARY, '');
  redactor.add(SECRET);
});
afterEach(async () => {
  process.env = { ...saved };
  await rm(dir, { recursive: true, force: true });
});

describe('runner output', () => {
  it('redacts step outputs', async () => {
    setOutput('todos', JSON.stringify([{ text: `use ${SECRET} and ${SHAPED}` }]));
    const written = await readFile(join(dir, 'output'), 'utf8');
    expect(written).toContain('[{"text":"use *** and ***"}]');
    expect(written).not.toContain(SECRET);
  });

  it('redacts the job summary as a whole, table cells included', async () => {
    await writeSummary((summary) =>
      summary.addRaw(`checklist ${SECRET}`).addTable([[{ data: 'h', header: true }], [SHAPED]]),
    );
    const written = await readFile(join(dir, 'summary.md'), 'utf8');
    expect(written).toContain('checklist ***');
    expect(written).toContain('<td>***</td>');
    expect(written).not.toMatch(new RegExp(`${SECRET}|${SHAPED}`));
  });
});

describe('runner output: the log', () => {
  const printed = usePrinted();

  it('redacts log lines, warnings and group names', () => {
    log.info(`info ${SECRET}`);
    log.warning(`warn ${SHAPED}`);
    log.startGroup(`group ${SECRET}`);
    log.endGroup();
    const text = printed();
    expect(text).toContain('info ***');
    expect(text).toContain('warn ***');
    expect(text).toContain('group ***');
    expect(text).not.toMatch(new RegExp(`${SECRET}|${SHAPED}`));
  });

  it('prints a group that comes in while another is open once that one ends, never inside it', () => {
    log.group('Alone', ['first']);
    log.startGroup('Turn 1');
    log.info('in the turn');
    log.group(`Late ${SECRET}`, ['a', `b ${SECRET}`]);
    log.info('still in the turn');
    log.endGroup();
    expect(printed()).toBe(
      '::group::Alone\nfirst\n::endgroup::\n::group::Turn 1\nin the turn\nstill in the turn\n::endgroup::\n' +
        '::group::Late ***\na\nb ***\n::endgroup::\n',
    );
  });

  it('shows control characters in log lines as text: the log viewer reads escape sequences', () => {
    log.info('removed links: a\u001b[2K\u001b[1Gb');
    log.warning('title \u001b]0;x\u0007');
    log.startGroup('turn \u009b1m');
    log.endGroup();
    const text = printed();
    expect(text).toContain('removed links: a\\x1b[2K\\x1b[1Gb');
    expect(text).toContain('title \\x1b]0;x\\x07');
    expect(text).toContain('turn \\x9b1m');
    expect(foreignControls(text)).toEqual([]);
  });
});
