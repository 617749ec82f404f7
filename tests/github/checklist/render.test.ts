import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../../src/model/usage.js';
import type { TodoItem } from '../../../src/agent/todo/todos.js';
import { validateTodos } from '../../../src/agent/todo/todos.js';
import type { ChecklistState } from '../../../src/github/checklist/render.js';
import {
  MAX_BODY_CHARS,
  renderChecklist,
  renderTaskList,
  verifyLine,
  verifyOutput,
} from '../../../src/github/checklist/render.js';
import { escapeMarkdown, formatDuration, shortNumber } from '../../../src/text/markdown.js';
import { STATE_MARKER, parseAgentState } from '../../../src/github/checklist/state.js';
import { redactor } from '../../../src/text/redact.js';
import { stripInvisible } from '../../../src/text/invisible.js';

const ITEMS: TodoItem[] = [
  { id: '1', text: 'Read hello.py and how it is run', status: 'completed' },
  { id: '2', text: 'Add type hints to `greet()`', status: 'completed' },
  {
    id: '3',
    text: 'Add docstrings to the module',
    status: 'in_progress',
    activeForm: 'Adding docstrings',
  },
  { id: '4', text: 'Add a main guard', status: 'pending' },
];

function state(overrides: Partial<ChecklistState> = {}): ChecklistState {
  return {
    task: 'Add type hints to hello.py',
    items: ITEMS,
    phase: 'working',
    turn: 9,
    usage: emptyUsage(),
    resume: { branch: 'agent/issue-12-123', runId: '123' },
    ...overrides,
  };
}

const lines = (body: string) => body.split('\n');
const taskLines = (body: string) => lines(body).filter((line) => /^- \[[ x]\] /.test(line));

describe('renderChecklist: headings', () => {
  it.each([
    ['working', '### 🤖 todo-agent is working on: Add type hints to hello.py'],
    ['planning', '### 🤖 todo-agent is working on: Add type hints to hello.py'],
    ['completed', '### ✅ todo-agent finished: Add type hints to hello.py'],
    ['incomplete', '### ⏸ todo-agent stopped: Add type hints to hello.py'],
    ['failed', '### ❌ todo-agent failed: Add type hints to hello.py'],
    ['cancelled', '### ⏹ todo-agent was cancelled: Add type hints to hello.py'],
    ['refused', '### 🚫 todo-agent declined: Add type hints to hello.py'],
  ] as const)('%s', (phase, heading) => {
    expect(lines(renderChecklist(state({ phase })))[0]).toBe(heading);
  });

  it('says the delivery was refused, not finished, when GitHub refused the work, and when it could not be pushed', () => {
    const refused = { rule: 'a repository ruleset (GH013)', advice: 'Ask an admin.', patch: '+a\n' };
    for (const phase of ['completed', 'incomplete'] as const) {
      expect(lines(renderChecklist(state({ phase, refused })))[0]).toBe(
        '### 🚫 GitHub refused the delivery of: Add type hints to hello.py',
      );
    }
    expect(lines(renderChecklist(state({ phase: 'completed', refused: { patch: '+a\n' } })))[0]).toBe(
      '### ⚠️ todo-agent could not deliver: Add type hints to hello.py',
    );
    // A run that failed says so, whatever became of its work.
    expect(lines(renderChecklist(state({ phase: 'failed', refused })))[0]).toMatch(
      /^### ❌ todo-agent failed:/,
    );
  });

  it('shows "planning…" while planning, with no list when there are no items', () => {
    const body = renderChecklist(state({ phase: 'planning', items: [] }));
    expect(body).toContain('\n\n_planning…_\n');
    expect(body).not.toContain('done**');
    expect(taskLines(body)).toEqual([]);
  });

  it('puts the task on one escaped line of at most 120 characters plus an ellipsis', () => {
    const task = `Fix *this*\nand @someone ${'x'.repeat(200)}`;
    const heading = lines(renderChecklist(state({ task })))[0]!;
    expect(heading).toMatch(/^### 🤖 todo-agent is working on: Fix \\\*this\\\* and @\u200dsomeone x+…$/);
    const shown = heading.slice('### 🤖 todo-agent is working on: '.length).replace(/\\|\u200d/g, '');
    expect(Array.from(shown)).toHaveLength(121);
  });

  it('escapes a trailing "#" so that it is not taken for a closing sequence', () => {
    expect(lines(renderChecklist(state({ task: 'Port to C #' })))[0]).toMatch(/C \\#$/);
  });

  it('incomplete: note, branch link and how to continue', () => {
    const body = renderChecklist(
      state({
        phase: 'incomplete',
        note: 'Stopped after 60 turns.',
        branch: { name: 'agent/issue-12-123', url: 'https://github.com/o/r/tree/agent/issue-12-123' },
      }),
    );
    expect(body).toContain('\n\nStopped after 60 turns.\n\n');
    expect(body).toContain(
      'The work so far is on branch [`agent/issue-12-123`](https://github.com/o/r/tree/agent/issue-12-123). ' +
        'Comment `/agent continue` to pick up where it stopped.',
    );
  });

  it('incomplete: tells how to continue with the configured trigger', () => {
    const body = renderChecklist(state({ phase: 'incomplete', trigger: '@todo-bot' }));
    expect(body).toContain('Comment `@todo-bot continue` to pick up where it stopped.');
  });

  it('failed: shows one line of the note, never the stack trace', () => {
    const error = new Error('The API answered 529 (overloaded).');
    const body = renderChecklist(state({ phase: 'failed', note: `\n${error.stack}` }));
    expect(body).toContain('\n\nError: The API answered 529 \\(overloaded\\).\n\n');
    expect(body).not.toMatch(/^\s+at /m);
  });

  it('never shows a registered secret or a token in the note, task or items', () => {
    redactor.add('super-secret-value');
    const token = 'ghp_' + 'a'.repeat(36);
    const body = renderChecklist(
      state({
        phase: 'failed',
        task: `use ${token}`,
        note: 'git push failed: https://x-access-token:super-secret-value@github.com',
        items: [{ id: '1', text: `print super-secret-value and ${token}`, status: 'pending' }],
      }),
    );
    expect(body).not.toContain('super-secret-value');
    expect(body).not.toContain(token);
    expect(body).toContain('\\*\\*\\*');
    expect(parseAgentState(body)?.items[0]?.text).toBe('print *** and ***');
  });
});

describe('renderChecklist: redaction before every cut', () => {
  const SECRET = 'StraddleSecret0123456789abcdefXYZ';
  const TOKEN_BODY = 'Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8';
  /** Every 6-character piece of what must not show: a half of a cut secret would contain some. */
  const pieces = (text: string) => Array.from({ length: text.length - 5 }, (_, at) => text.slice(at, at + 6));
  const leaked = (body: string) => [...pieces(SECRET), ...pieces(TOKEN_BODY)].filter((p) => body.includes(p));

  it('leaves no part of a secret that straddles the task, note or item length limit', () => {
    redactor.add(SECRET);
    const straddle = (limit: number, secret: string) => `${'w'.repeat(limit - 10)} ${secret} and more words`;
    const body = renderChecklist(
      state({
        phase: 'failed',
        task: straddle(120, SECRET),
        note: straddle(300, `ghp_${TOKEN_BODY}`),
        items: [
          { id: '1', text: straddle(500, SECRET), status: 'pending' },
          { id: '2', text: 'x', status: 'in_progress', activeForm: straddle(500, `ghp_${TOKEN_BODY}`) },
        ],
      }),
    );
    expect(body).toContain('…'); // every one of them was cut
    expect(leaked(body)).toEqual([]);
  });

  it('escapes only what is left after redaction: an escaped token (`ghp\\_…`) would pass the API unseen', () => {
    expect(escapeMarkdown(`rotate ghp_${TOKEN_BODY} now`)).toBe('rotate \\*\\*\\* now');
  });

  it('leaves no part of one in the saved state when a long list makes the stored text shorter', () => {
    redactor.add(SECRET);
    const items: TodoItem[] = Array.from({ length: 20 }, (_, i) => ({
      id: String(i + 1),
      text: `${'s'.repeat(990)}${SECRET}${'t'.repeat(4000)}`,
      status: 'pending',
    }));
    const body = renderChecklist(state({ items }));
    expect(body.length).toBeLessThanOrEqual(MAX_BODY_CHARS);
    const stored = parseAgentState(body)!.items[0]!.text;
    expect(stored.length).toBeLessThan(1010); // cut at the 1,000-character step, inside the secret's place
    expect(leaked(body)).toEqual([]);
  });
});

describe('renderChecklist: progress and items', () => {
  it('shows the count and a 20-cell bar', () => {
    expect(renderChecklist(state())).toContain('**2 of 4 done** · `██████████··········` 50%');
    const none = ITEMS.map((item) => ({ ...item, status: 'pending' as const, activeForm: undefined }));
    expect(renderChecklist(state({ items: none }))).toContain('**0 of 4 done** · `····················` 0%');
    const all = ITEMS.map((item) => ({ ...item, status: 'completed' as const }));
    expect(renderChecklist(state({ items: all }))).toContain('**4 of 4 done** · `████████████████████` 100%');
  });

  it('renders one line per item in list order', () => {
    expect(taskLines(renderChecklist(state()))).toEqual([
      '- [x] Read hello.py and how it is run',
      '- [x] Add type hints to \\`greet\\(\\)\\`',
      '- [ ] 🔄 **Adding docstrings** — Add docstrings to the module',
      '- [ ] Add a main guard',
    ]);
  });

  it('renderTaskList gives the same lines alone, for the pull request body', () => {
    expect(renderTaskList(ITEMS).split('\n')).toEqual(taskLines(renderChecklist(state())));
    expect(renderTaskList([])).toBe('_No todos._');
  });

  it('bolds the item text when the in-progress item has no activeForm', () => {
    const items: TodoItem[] = [{ id: 'a', text: 'Run the tests', status: 'in_progress' }];
    expect(taskLines(renderChecklist(state({ items })))).toEqual(['- [ ] 🔄 **Run the tests**']);
  });

  it('neutralises links, images, HTML, mentions and autolinks in item text', () => {
    const text =
      '[click](https://evil.example) ![img](x.png) <img src=x onerror=alert(1)> @octocat @org/team ' +
      'https://evil.example www.evil.example me@mail.example $x^2$ ~~gone~~ a|b fix #12';
    const [line] = taskLines(renderChecklist(state({ items: [{ id: '1', text, status: 'pending' }] })));
    expect(line).toBe(
      '- [ ] \\[click\\]\\(https:\u200b//evil.example\\) \\!\\[img\\]\\(x.png\\) ' +
        '&lt;img src=x onerror=alert\\(1\\)&gt; @\u200doctocat @\u200dorg/team https:\u200b//evil.example ' +
        'www\u200b.evil.example me@\u200dmail.example \\$x^2\\$ \\~\\~gone\\~\\~ a\\|b fix #12',
    );
  });

  it('keeps even pathological lists under the GitHub body limit, still parseable', () => {
    const items: TodoItem[] = Array.from({ length: 20 }, (_, i) => ({
      id: String(i + 1),
      text: '<&'.repeat(5000),
      status: i === 0 ? 'in_progress' : 'pending',
      activeForm: '>&'.repeat(5000),
    }));
    const body = renderChecklist(state({ items }));
    expect(body.length).toBeLessThanOrEqual(MAX_BODY_CHARS);
    expect(taskLines(body)).toHaveLength(20);
    expect(parseAgentState(body)?.items).toHaveLength(20);
  });
});

describe('renderChecklist: footer', () => {
  it('shows every part that exists, with short numbers', () => {
    const body = renderChecklist(
      state({
        usage: {
          input_tokens: 2000,
          cache_creation_input_tokens: 200,
          cache_read_input_tokens: 12_000,
          output_tokens: 1100,
        },
        costUsd: 0.1234,
        elapsedMs: 72_000,
        runUrl: 'https://github.com/o/r/actions/runs/123',
        branch: { name: 'agent/issue-12-123', url: 'https://github.com/o/r/tree/agent/issue-12-123' },
        pr: { number: 13, url: 'https://github.com/o/r/pull/13' },
      }),
    );
    expect(body).toContain(
      '<sub>turn 9 · 14.2k tokens in (12k cached), 1.1k out · $0.12 · 1 min 12 s · ' +
        '[workflow run](https://github.com/o/r/actions/runs/123) · ' +
        'branch [`agent/issue-12-123`](https://github.com/o/r/tree/agent/issue-12-123) · PR #13</sub>\n' +
        STATE_MARKER,
    );
  });

  it('counts the compactions on the server after the cost, and says nothing of them when there were none', () => {
    const body = renderChecklist(state({ costUsd: 0.5, compactions: 3 }));
    expect(body).toMatch(/\$0\.50 · 3 compactions/);
    expect(renderChecklist(state({ costUsd: 0.5, compactions: 1 }))).toMatch(/\$0\.50 · 1 compaction\b/);
    expect(renderChecklist(state({ costUsd: 0.5 }))).not.toMatch(/compaction/);
  });

  it('names every host the network gate refused, most refused first, ten at most', () => {
    const hosts = Array.from({ length: 12 }, (_, i) => ({ host: `h${i}.example`, count: 12 - i }));
    const body = renderChecklist(
      state({ blockedHosts: [{ host: 'evil`x.example:22', count: 40 }, ...hosts] }),
    );
    expect(body).toContain(
      'network gate refused ``evil`x.example:22`` ×40, `h0.example` ×12, `h1.example` ×11, `h2.example` ×10, ' +
        '`h3.example` ×9, `h4.example` ×8, `h5.example` ×7, `h6.example` ×6, `h7.example` ×5, `h8.example` ×4, 3 more</sub>',
    );
  });

  it('leaves out what does not exist', () => {
    const body = renderChecklist(state({ turn: 0 }));
    expect(body).not.toContain('<sub>');
    expect(renderChecklist(state())).toContain('<sub>turn 9</sub>');
    const noCache = { ...emptyUsage(), input_tokens: 950, output_tokens: 20 };
    expect(renderChecklist(state({ usage: noCache }))).toContain('<sub>turn 9 · 950 tokens in, 20 out</sub>');
  });

  it('links only http(s) URLs and encodes characters that would end the link', () => {
    const body = renderChecklist(
      state({
        runUrl: 'javascript:alert(1)',
        branch: { name: 'we`ird', url: 'https://x.example/a b)(c' },
      }),
    );
    expect(body).not.toContain('javascript');
    expect(body).toContain('branch [``we`ird``](https://x.example/a%20b%29%28c)');
  });

  it.each([
    [0, '0'],
    [950, '950'],
    [1234, '1.2k'],
    [12_000, '12k'],
    [14_200, '14.2k'],
    [123_456, '123k'],
    [999_960, '1M'],
    [3_400_000, '3.4M'],
    [2_500_000_000, '2.5B'],
  ])('shortNumber(%d) is %s', (n, text) => {
    expect(shortNumber(n)).toBe(text);
  });

  it.each([
    [400, '0 s'],
    [42_000, '42 s'],
    [60_000, '1 min'],
    [72_000, '1 min 12 s'],
    [3_600_000, '1 h'],
    [3_900_000, '1 h 5 min'],
  ])('formatDuration(%d) is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('agent-state', () => {
  it('is the last line and holds v, the items and the resume data', () => {
    const body = renderChecklist(state({ resume: { branch: 'b', runId: '7', base: 'main', extra: 3 } }));
    const last = lines(body).at(-1)!;
    expect(last.startsWith(`${STATE_MARKER} {`)).toBe(true);
    expect(last.endsWith('} -->')).toBe(true);
    expect(parseAgentState(body)).toEqual({
      v: 1,
      items: ITEMS,
      branch: 'b',
      runId: '7',
      base: 'main',
      extra: 3,
    });
  });

  it('does not let resume data replace v or items', () => {
    const body = renderChecklist(state({ resume: { v: 9, items: [] } }));
    expect(parseAgentState(body)).toEqual({ v: 1, items: ITEMS });
  });
});

// ---- properties ----

const NASTY = [
  '-->',
  '<!--',
  '<!-- agent-state',
  '--!>',
  '`',
  '```',
  '[ ]',
  '[x]',
  '- [ ] ',
  '@user',
  '<b>',
  '</sub>',
  '&amp;',
  '\n',
  '\r\n',
  '\r',
  '\u2028',
  '\t',
  '    ',
  '# ',
  '#12',
  '1. ',
  '> ',
  '===',
  '|',
  '*',
  '_',
  '\\',
  '~',
  '$',
  '![a](b)',
  'https://x.example',
  'www.x.example',
  '\u0000',
  '\u001b[31m',
];

const textArb = fc
  .array(fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom(...NASTY)), { maxLength: 8 })
  .map((parts) => parts.join(''))
  // A text of invisible characters only is refused as empty, like an empty one.
  .filter((text) => stripInvisible(text).trim() !== '');

const rawItemArb = fc.record(
  {
    text: textArb,
    status: fc.constantFrom('pending', 'in_progress', 'completed'),
    activeForm: textArb,
  },
  { requiredKeys: ['text', 'status'] },
);

/** Valid todo lists: positional ids, at most one item in progress. */
const itemsArb = fc.array(rawItemArb, { minLength: 1, maxLength: 20 }).map((raw) => {
  let active = false;
  const fixed = raw.map((item) => {
    if (item.status !== 'in_progress') return item;
    if (active) return { ...item, status: 'pending' };
    active = true;
    return item;
  });
  return validateTodos(fixed);
});

const phaseArb = fc.constantFrom(
  'planning',
  'working',
  'completed',
  'incomplete',
  'failed',
  'cancelled',
  'refused',
) satisfies fc.Arbitrary<ChecklistState['phase']>;

const stateArb = fc.record({ items: itemsArb, task: textArb, phase: phaseArb, note: textArb });

/** True when a Markdown-special character appears without a backslash before it. */
function hasUnescapedSpecial(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if ('`*_[]|~!$<>'.includes(text[i]!)) return true;
  }
  return false;
}

/** The model-written parts of a task-list line. */
function itemParts(line: string): string[] {
  const rest = line.slice('- [ ] '.length);
  const active = /^🔄 \*\*(.*?)\*\* — (.*)$/.exec(rest);
  if (active) return [active[1]!, active[2]!];
  const bold = /^🔄 \*\*(.*)\*\*$/.exec(rest);
  return bold ? [bold[1]!] : [rest];
}

describe('renderChecklist properties', () => {
  it('renders exactly one task-list line per item, in order, and nothing else as a list line', () => {
    fc.assert(
      fc.property(stateArb, (s) => {
        const body = renderChecklist(state(s));
        const all = lines(body);
        const first = all.findIndex((line) => line.startsWith('- ['));
        const block = all.slice(first, first + s.items.length);
        expect(block.every((line) => line.startsWith('- [ ] ') || line.startsWith('- [x] '))).toBe(true);
        expect(all[first + s.items.length]).toBe('');
        expect(all[first - 1]).toBe('');
        expect(taskLines(body)).toEqual(block);
        block.forEach((line, i) => {
          expect(line.startsWith(s.items[i]!.status === 'completed' ? '- [x] ' : '- [ ] ')).toBe(true);
        });
      }),
    );
  });

  it('lays the body out as known blocks only: item text never starts a block of its own', () => {
    fc.assert(
      fc.property(stateArb, (s) => {
        const body = renderChecklist(state(s));
        const hasNote = s.note.split(/\r\n|[\n\r\u2028\u2029]/).some((line) => escapeMarkdown(line) !== '');
        const expected =
          1 + // heading
          (hasNote ? 2 : 0) +
          (s.phase === 'planning' ? 2 : 0) +
          2 + // progress
          1 +
          s.items.length +
          (s.phase === 'incomplete' ? 2 : 0) +
          1 + // blank before footer
          1 + // footer
          1; // state
        expect(lines(body)).toHaveLength(expected);
        for (const line of taskLines(body)) {
          for (const part of itemParts(line)) {
            expect(hasUnescapedSpecial(part)).toBe(false);
            expect(part).not.toMatch(/&(?!amp;|lt;|gt;)|:\/\/|www\.|@(?!\u200d)/i);
          }
        }
      }),
    );
  });

  it('has exactly one agent-state marker and one comment end, after it, at the very end', () => {
    fc.assert(
      fc.property(stateArb, (s) => {
        const body = renderChecklist(state(s));
        expect(body.split(STATE_MARKER)).toHaveLength(2);
        expect(body.split('<!--')).toHaveLength(2);
        expect(body.split('-->')).toHaveLength(2);
        expect(body.indexOf('-->')).toBeGreaterThan(body.indexOf(STATE_MARKER));
        expect(body.endsWith(' -->')).toBe(true);
      }),
    );
  });

  it('round-trips the items through agent-state', () => {
    fc.assert(
      fc.property(stateArb, (s) => {
        expect(parseAgentState(renderChecklist(state(s)))?.items).toEqual(s.items);
      }),
    );
  });

  it('escapeMarkdown always yields a single line', () => {
    fc.assert(
      fc.property(textArb, (text) => {
        expect(escapeMarkdown(text)).not.toMatch(/[\n\r\u2028\u2029]/);
      }),
    );
  });
});

describe('the verify_command result', () => {
  const report = {
    command: 'npm test',
    passed: true,
    round: 1,
    attempts: 3,
    exitCode: 0,
    timedOut: false,
    aborted: false,
    durationMs: 41_000,
    outputTail: '',
  };

  it('shows a pass with its time, and the rounds when it took more than one', () => {
    expect(verifyLine(report)).toBe('✅ `npm test` passed in 41 s');
    expect(verifyLine({ ...report, round: 3 })).toBe('✅ `npm test` passed in 41 s (3 rounds)');
    expect(verifyLine({ ...report, passed: false, exitCode: 2, round: 2 })).toBe(
      '❌ `npm test` failed: exit code 2, round 2 of 3',
    );
  });

  it('folds a failure output into a fence longer than any backtick run in it', () => {
    const shown = verifyOutput({ ...report, passed: false, outputTail: 'a ``` b\n' });
    expect(shown).toBe(
      '<details><summary>Output of npm test (its end)</summary>\n\n````\na ``` b\n````\n\n</details>',
    );
  });
});
