import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { editFileTool } from '../../../src/agent/tools/edit-file.js';
import { edit, editEach, fx, inWs, toolError, useFileToolWorkspace } from '../../support/file-tools.js';
import { numberedLines, shownLines } from '../../support/numbered-lines.js';

useFileToolWorkspace();

describe('edit_file', () => {
  it('replaces the one match and keeps every other byte', async () => {
    const original = '\ufeffheader\r\nconst x = 1;\r\nconst y = $2;\r\nno newline at end';
    await writeFile(inWs('f.ts'), original);
    const result = await edit('f.ts', 'const x = 1;', 'const x = $&;');
    expect(result).toBe(
      'edited f.ts: replaced 1 line(s) at line 2 with 1 line(s)\n' +
        '     1\t\ufeffheader\n     2\tconst x = $&;\n     3\tconst y = $2;\n     4\tno newline at end',
    );
    expect(await readFile(inWs('f.ts'))).toEqual(
      Buffer.from('\ufeffheader\r\nconst x = $&;\r\nconst y = $2;\r\nno newline at end'),
    );
  });

  it('reports zero matches, with a hint when only whitespace differs', async () => {
    await writeFile(inWs('f.txt'), 'alpha\n    beta\ngamma\n');
    expect(await toolError(edit('f.txt', 'delta', 'x'))).toMatch(
      /^old_text not found in f\.txt; read the file again/,
    );
    expect(await toolError(edit('f.txt', '  beta  \n', 'x'))).toMatch(
      /^old_text not found in f\.txt; it would match without its leading\/trailing whitespace/,
    );
    expect(await readFile(inWs('f.txt'), 'utf8')).toBe('alpha\n    beta\ngamma\n');
  });

  it('hints at CRLF line endings', async () => {
    await writeFile(inWs('win.txt'), 'one\r\ntwo\r\n');
    expect(await toolError(edit('win.txt', 'one\ntwo', 'x'))).toMatch(/CRLF line endings/);
  });

  it('refuses several matches and names their lines', async () => {
    const content = 'todo\nkeep\ntodo\nkeep\ntodo\n';
    await writeFile(inWs('f.txt'), content);
    expect(await toolError(edit('f.txt', 'todo', 'done'))).toBe(
      'old_text matches 3 times in f.txt (lines 1, 3, 5); include more surrounding text so it matches once, or pass replace_all: true to replace every occurrence',
    );
    expect(await readFile(inWs('f.txt'), 'utf8')).toBe(content);
  });

  it('with replace_all, renames every occurrence and names their lines', async () => {
    await writeFile(inWs('f.py'), 'total = 0\nfor x in xs:\n    total += x\nprint(total)\n');
    const edits = { path: 'f.py', old_text: 'total', new_text: 'sum_of_xs', replace_all: true };
    expect(await editFileTool.run(edits, fx.context)).toBe(
      'edited f.py: replaced 3 occurrences (lines 1, 3, 4)\n' +
        '     1\tsum_of_xs = 0\n     2\tfor x in xs:\n     3\t    sum_of_xs += x\n     4\tprint(sum_of_xs)',
    );
    expect(await readFile(inWs('f.py'), 'utf8')).toBe(
      'sum_of_xs = 0\nfor x in xs:\n    sum_of_xs += x\nprint(sum_of_xs)\n',
    );
  });

  it('applies several edits in order, or none when one fails', async () => {
    await writeFile(inWs('f.txt'), 'one\ntwo\nthree\n');
    const ok = await editEach('f.txt', [
      { old_text: 'one', new_text: '1' },
      { old_text: '1\ntwo', new_text: '1\n2' },
    ]);
    expect(ok).toBe(
      'edited f.txt (2 edits):\n1. replaced 1 line(s) at line 1 with 1 line(s)\n2. replaced 2 line(s) at line 1 with 2 line(s)\n' +
        '     1\t1\n     2\t2\n     3\tthree',
    );
    expect(await readFile(inWs('f.txt'), 'utf8')).toBe('1\n2\nthree\n');
    const failed = editEach('f.txt', [
      { old_text: 'three', new_text: '3' },
      { old_text: 'four', new_text: '4' },
    ]);
    expect(await toolError(failed)).toMatch(/^edit 2 of 2 \(nothing was written\): old_text not found/);
    expect(await readFile(inWs('f.txt'), 'utf8')).toBe('1\n2\nthree\n');
    expect(
      await toolError(
        editFileTool.run({ path: 'f.txt', old_text: 'a', new_text: 'b', edits: [] }, fx.context),
      ),
    ).toBe('give either old_text/new_text or edits, not both');
    expect(await toolError(editFileTool.run({ path: 'f.txt', old_text: 'a' }, fx.context))).toBe(
      'old_text and new_text are required (or an edits list)',
    );
  });

  it('names the nearest lines when old_text matches nothing', async () => {
    await writeFile(
      inWs('app.ts'),
      'import x from "x";\n\nexport function greet(name: string) {\n  return `Hi ${name}`;\n}\n',
    );
    const message = await toolError(edit('app.ts', 'export function greet(name) {\n', 'x'));
    expect(message).toBe(
      'old_text not found in app.ts; the nearest lines are:\nline 3: export function greet(name: string) {\n' +
        'read the file again and copy the text exactly, whitespace included',
    );
  });

  it('says when old_text carries read_file line numbers', async () => {
    await writeFile(inWs('f.txt'), 'alpha\nbeta\n');
    expect(await toolError(edit('f.txt', '     2\tbeta', 'x'))).toMatch(/read_file's line numbers/);
  });

  it('counts overlapping matches as ambiguous', async () => {
    await writeFile(inWs('f.txt'), 'aaa');
    expect(await toolError(edit('f.txt', 'aa', 'b'))).toMatch(/^old_text matches 2 times/);
  });

  it('looks for no more matches than it lists: a megabyte of one letter and 100 KB of it answer at once', async () => {
    await writeFile(inWs('a.txt'), 'a'.repeat(1_000_000));
    expect(await toolError(edit('a.txt', 'a'.repeat(100_000), 'b'))).toMatch(
      /^old_text matches at least 11 times in a\.txt \(lines 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, \.\.\.\)/,
    );
    // replace_all replaces them without overlaps, as before.
    const all = await editFileTool.run(
      { path: 'a.txt', old_text: 'a'.repeat(100_000), new_text: 'b', replace_all: true },
      fx.context,
    );
    expect(all).toMatch(/^edited a\.txt: replaced 10 occurrences/);
    expect(await readFile(inWs('a.txt'), 'utf8')).toBe('b'.repeat(10));
  });

  it('replaces at most 10,000 places at once, and follows only the first changes through several edits', async () => {
    await writeFile(inWs('wide.txt'), 'ab\n'.repeat(10_001));
    expect(
      await toolError(
        editFileTool.run({ path: 'wide.txt', old_text: 'a', new_text: 'c', replace_all: true }, fx.context),
      ),
    ).toBe(
      'old_text matches over 10,000 times in wide.txt, more than replace_all replaces; make a change that wide with bash (sed), or match fewer places',
    );
    expect(await readFile(inWs('wide.txt'), 'utf8')).toBe('ab\n'.repeat(10_001));
    // Two edits of 10,000 places each: every stretch of the first followed through the second made it take minutes.
    await writeFile(inWs('wide.txt'), 'ab\n'.repeat(10_000));
    const both = await editEach('wide.txt', [
      { old_text: 'a', new_text: 'c', replace_all: true },
      { old_text: 'b', new_text: 'd', replace_all: true },
    ]);
    expect(both).toContain('1. replaced 10000 occurrences (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ...)');
    expect(both).toContain('     1\tcd\n     2\tcd\n');
    expect(both).toContain(
      '[shown up to line 40 of 10000 in wide.txt; read_file with offset=41 shows the rest]',
    );
    expect(await readFile(inWs('wide.txt'), 'utf8')).toBe('cd\n'.repeat(10_000));
  });

  it('judges near misses by their first 200 characters, so a 100 KB old_text costs what a short one does', async () => {
    const line = 'const value = compute(alpha, beta, gamma) + 42;\n';
    await writeFile(inWs('big.js'), line.repeat(20_000));
    const huge = `${'const valeu = compute(alpha, beta, gamma) + 42; '.repeat(2_000)}\n`;
    expect(await toolError(edit('big.js', huge, 'y'))).toMatch(/^old_text not found in big\.js; /);
    expect(await toolError(edit('big.js', 'const valeu = compute(alpha, beta, gamma) + 42;', 'y'))).toContain(
      'the nearest lines are:\nline 1: const value = compute(alpha, beta, gamma) + 42;',
    );
  });

  it('handles a multi-line replacement and deletion', async () => {
    await writeFile(inWs('f.txt'), 'a\nb\nc\nd\n');
    expect(await edit('f.txt', 'b\nc\n', 'B\n')).toBe(
      'edited f.txt: replaced 2 line(s) at line 2 with 1 line(s)\n     1\ta\n     2\tB\n     3\td',
    );
    expect(await edit('f.txt', 'd\n', '')).toBe(
      'edited f.txt: replaced 1 line(s) at line 3 with 0 line(s)\n     1\ta\n     2\tB',
    );
    expect(await readFile(inWs('f.txt'), 'utf8')).toBe('a\nB\n');
  });

  it('refuses an empty or unchanged old_text, a missing file, .git and binary files', async () => {
    await writeFile(inWs('f.txt'), 'x');
    await writeFile(inWs('.git', 'config'), 'x');
    await writeFile(inWs('bin'), Buffer.from([0x78, 0x00]));
    expect(await toolError(edit('f.txt', '', 'y'))).toMatch(/^old_text is empty/);
    expect(await toolError(edit('f.txt', 'x', 'x'))).toMatch(/identical/);
    expect(await toolError(edit('missing.txt', 'x', 'y'))).toBe('no such file: missing.txt');
    expect(await toolError(edit('.git/config', 'x', 'y'))).toMatch(/^refusing to write inside \.git/);
    expect(await toolError(edit('bin', 'x', 'y'))).toMatch(/^binary file/);
  });
});

describe('what an edit shows', () => {
  it('shows each far-apart edit in its own window, parted by an ellipsis', async () => {
    await writeFile(inWs('n.txt'), numberedLines(100));
    const result = await editEach('n.txt', [
      { old_text: 'line 10\n', new_text: 'ten\n' },
      { old_text: 'line 60\n', new_text: 'sixty\n' },
    ]);
    expect(result.split('\n').slice(3)).toEqual([
      ...shownLines(7, 9).split('\n'),
      '    10\tten',
      ...shownLines(11, 13).split('\n'),
      '     …',
      ...shownLines(57, 59).split('\n'),
      '    60\tsixty',
      ...shownLines(61, 63).split('\n'),
    ]);
  });

  it('reports a syntax error the edit brought in, with its line, and keeps the edit', async () => {
    await writeFile(inWs('package.json'), '{\n  "name": "x",\n  "version": "1.0.0"\n}\n');
    const result = await edit('package.json', '"version": "1.0.0"', '"version": "1.0.0",');
    expect(result.split('\n').at(-1)).toBe(
      'package.json no longer parses as JSON: line 4, column 1: property name expected. ' +
        'The file is written as asked; fix it with another edit if that was not the intent.',
    );
    expect(await readFile(inWs('package.json'), 'utf8')).toContain('"1.0.0",\n}');
  });

  it('says nothing of an error that was there before the edit', async () => {
    await writeFile(inWs('broken.json'), '{\n  "a": 1,\n}\n');
    expect(await edit('broken.json', '"a": 1', '"a": 2')).not.toMatch(/parses/);
  });
});
