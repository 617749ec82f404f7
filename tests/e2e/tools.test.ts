// The tools as a real model meets them in a run of dist/index.js: paged, numbered reads of a long file, a
// replace_all rename, bash's per-call timeout under the bash_timeout ceiling, and pipefail.
import { describe, expect, it } from 'vitest';
import { reply, text, toolUse } from '../support/anthropic/server.js';
import { newestResults } from '../support/requests.js';
import { HELLO_FILES, oneItemScript } from '../support/anthropic/scenarios.js';
import { numberedLines, shownLines } from '../support/numbered-lines.js';
import { originGit, useWorldsPerTest, type World } from './setup.js';

let world: World | undefined;
const worlds = useWorldsPerTest();

const TASK_ITEM = { text: 'Do the task', activeForm: 'Doing the task' };
const ONE_ITEM = (status: string) => toolUse('todo', { items: [{ ...TASK_ITEM, status }] });

/** A file as the pushed branch holds it, in the world's origin. */
const pushedFile = (branch: string | undefined, file: string) =>
  originGit(world!, 'show', `${branch}:${file}`);

describe('tools in a run', () => {
  it('reads a 2,500-line file in two pages, every line once, with its own line number', async () => {
    world = await worlds.create(
      oneItemScript(
        TASK_ITEM,
        [
          toolUse('read_file', { path: 'big.txt' }),
          toolUse('read_file', { path: 'big.txt', offset: 2001 }),
          toolUse('read_file', { path: 'big.txt', offset: 1230, limit: 5 }),
        ],
        'Read it all.',
      ),
      { files: { ...HELLO_FILES, 'big.txt': numberedLines(2500) } },
    );
    const run = await world.trigger('/agent read big.txt');
    expect(run.outputs.status).toBe('completed');
    const [first, second, third] = [2, 3, 4].map((i) => newestResults(world!.model.requests[i]!)[0]!.text);
    expect(first).toBe(
      `${shownLines(1, 2000)}\n[lines 1-2000 of 2,500 in big.txt; read on with offset=2001]`,
    );
    expect(second).toBe(`${shownLines(2001, 2500)}\n[lines 2001-2500 of 2,500 in big.txt]`);
    expect(third).toBe(
      `${shownLines(1230, 1234)}\n[lines 1230-1234 of 2,500 in big.txt; read on with offset=1235]`,
    );
    expect(world.model.violations).toEqual([]);
  });

  it('renames every occurrence with one replace_all edit, and the pushed file has them all', async () => {
    world = await worlds.create([
      reply(ONE_ITEM('in_progress')),
      reply(
        toolUse('edit_file', { path: 'hello.py', old_text: 'greet', new_text: 'welcome', replace_all: true }),
      ),
      // Completed with its check named as not run here: the convention the prompt gives.
      reply(
        toolUse('todo', {
          items: [{ text: 'Do the task (not verified: mypy is not installed)', status: 'completed' }],
        }),
      ),
      reply(text('Renamed greet to welcome.')),
    ]);
    const run = await world.trigger('/agent rename greet to welcome');
    expect(run.outputs.status).toBe('completed');
    expect(world.github.state.pulls[0]!.body).toContain(
      '### Checks that did not run\n\n- Do the task: mypy is not installed',
    );
    expect(newestResults(world.model.requests[2]!)).toEqual([
      {
        text:
          'edited hello.py: replaced 2 occurrences (lines 1, 4)\n' +
          '     1\tdef welcome(name):\n     2\t    return "Hello, " + name + "!"\n     3\t\n' +
          '     4\tprint(welcome("world"))',
        isError: false,
      },
    ]);
    const pushed = await pushedFile(run.outputs.branch, 'hello.py');
    expect(pushed).toBe('def welcome(name):\n    return "Hello, " + name + "!"\n\nprint(welcome("world"))');
  });

  it('answers an edit with the changed lines numbered as read_file numbers them, and a write likewise', async () => {
    world = await worlds.create(
      oneItemScript(
        TASK_ITEM,
        [
          toolUse('edit_file', { path: 'big.txt', old_text: 'line 50\n', new_text: 'fifty\nand more\n' }),
          toolUse('read_file', { path: 'big.txt', offset: 47, limit: 8 }),
          toolUse('write_file', { path: 'notes/new.md', content: '# Notes\n\nOne line.\n' }),
        ],
        'Edited big.txt and wrote the notes.',
      ),
      { files: { ...HELLO_FILES, 'big.txt': numberedLines(100) } },
    );
    const run = await world.trigger('/agent edit big.txt');
    expect(run.outputs.status).toBe('completed');
    const [edited, read, written] = [2, 3, 4].map((i) => newestResults(world!.model.requests[i]!)[0]!);
    const window = [shownLines(47, 49), '    50\tfifty', '    51\tand more'].join('\n');
    expect(edited).toEqual({
      text:
        `edited big.txt: replaced 1 line(s) at line 50 with 2 line(s)\n${window}\n` +
        '    52\tline 51\n    53\tline 52\n    54\tline 53',
      isError: false,
    });
    // The same numbers read_file gives for those lines afterwards.
    expect(read!.text.startsWith(window)).toBe(true);
    expect(written).toEqual({
      text: 'created notes/new.md (19 bytes)\n     1\t# Notes\n     2\t\n     3\tOne line.',
      isError: false,
    });
  });

  it('reports the line of the JSON error an edit of package.json brings in (and a Python one), the edit kept', async () => {
    const manifest = '{\n  "name": "hello",\n  "version": "1.0.0"\n}\n';
    world = await worlds.create(
      [
        reply(ONE_ITEM('in_progress')),
        reply(toolUse('edit_file', { path: 'package.json', old_text: '"1.0.0"', new_text: '"1.0.1",' })),
        // Python is checked by python3 itself, in the sandbox like the model's own commands.
        reply(toolUse('write_file', { path: 'tool.py', content: 'def main(:\n    pass\n' })),
        reply(ONE_ITEM('completed')),
        reply(text('Bumped the version.')),
      ],
      { files: { ...HELLO_FILES, 'package.json': manifest } },
    );
    const run = await world.trigger('/agent bump the version');
    expect(run.outputs.status).toBe('completed');
    const result = newestResults(world.model.requests[2]!)[0]!;
    expect(result.isError).toBe(false);
    expect(result.text).toContain('     3\t  "version": "1.0.1",\n     4\t}');
    expect(result.text).toContain(
      'package.json no longer parses as JSON: line 4, column 1: property name expected. The file is written as asked',
    );
    expect(newestResults(world.model.requests[3]!)[0]!.text).toContain(
      'tool.py does not parse as Python: line 1, column 10: invalid syntax.',
    );
    const pushed = await pushedFile(run.outputs.branch, 'package.json');
    expect(pushed).toBe('{\n  "name": "hello",\n  "version": "1.0.1",\n}');
  });

  it('honours a per-call bash timeout, refuses one over bash_timeout, and reports a failing pipeline', async () => {
    world = await worlds.create(
      oneItemScript(
        TASK_ITEM,
        [
          toolUse('bash', { command: 'echo started; sleep 30', timeout: 1 }),
          toolUse('bash', { command: 'touch ran.txt', timeout: 6 }),
          toolUse('bash', { command: '(echo "1 test failed"; exit 3) 2>&1 | tail -n 5' }),
        ],
        'Checked the commands.',
      ),
    );
    const run = await world.trigger('/agent try the shell', { inputs: { bash_timeout: '5' } });
    expect(run.outputs.status).toBe('completed');
    const { requests } = world.model;
    const bash = (requests[0]!.body.tools as Array<{ name: string; description: string }>).find(
      (tool) => tool.name === 'bash',
    )!;
    expect(bash.description).toContain('after 5 s, or after timeout seconds if you pass one (at most 5 s)');
    // In the sandbox the namespace's shell may add its own "Terminated" line after the output.
    const [timedOut, ...others] = newestResults(requests[2]!);
    expect(others).toEqual([]);
    expect(timedOut!.isError).toBe(false);
    expect(timedOut!.text).toMatch(
      /^timed out after 1 s; process group killed\. Run it again with a larger timeout \(up to 5\), or in smaller steps\nstarted\n(Terminated\n)?$/,
    );
    const refused = newestResults(requests[3]!)[0]!;
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('timeout: at most 5 seconds');
    expect(newestResults(requests[4]!)).toEqual([{ text: 'exit code: 3\n1 test failed\n', isError: false }]);
    // The refused call never ran: nothing to commit, so no branch.
    expect(run.outputs.branch).toBe('');
  });
});
