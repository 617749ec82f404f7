// What a server that failed at start is said to have written: the lines of its stderr that say why.
import { describe, expect, it } from 'vitest';
import { meaningfulLines } from '../../src/mcp/connection.js';

describe('meaningfulLines', () => {
  it("keeps a Node error's own line, not its frames, fields, closing brace or version line", () => {
    const node = [
      'node:internal/modules/cjs/loader:1386',
      '  throw err;',
      '  ^',
      '',
      "Error: Cannot find module '/tmp/server/index.js'",
      '    at Function._resolveFilename (node:internal/modules/cjs/loader:1383:15)',
      '    at node:internal/main/run_main_module:36:49 {',
      "  code: 'MODULE_NOT_FOUND',",
      '  requireStack: []',
      '}',
      '',
      'Node.js v24.22.3',
      '',
    ].join('\n');
    expect(meaningfulLines(node)).toEqual(["Error: Cannot find module '/tmp/server/index.js'"]);
  });

  it("keeps the end of a Python traceback and a server's own lines, three at most", () => {
    const python = [
      'Traceback (most recent call last):',
      '  File "/srv/server.py", line 3, in <module>',
      '    import psycopg',
      "ModuleNotFoundError: No module named 'psycopg'",
    ].join('\n');
    expect(meaningfulLines(python)).toEqual([
      'File "/srv/server.py", line 3, in <module>',
      'import psycopg',
      "ModuleNotFoundError: No module named 'psycopg'",
    ]);
    expect(meaningfulLines('starting\nconfig read\nlistening\nfatal: no token\n', 2)).toEqual([
      'listening',
      'fatal: no token',
    ]);
  });
});
