import { describe, expect, it } from 'vitest';
import { holdBack, MAX_NEW_FILE_BYTES } from '../../src/delivery/held-back.js';

const files = (...paths: string[]) => paths.map((path) => ({ path, size: 10 }));

describe('holdBack', () => {
  it('holds a virtualenv (a folder with pyvenv.cfg) whole, named once, whatever its name', () => {
    const { kept, heldBack, heldPaths } = holdBack(
      files('env/pyvenv.cfg', 'env/bin/python', 'env/lib/site.py', 'app.py'),
    );
    expect(kept).toEqual(['app.py']);
    expect(heldBack).toEqual([{ path: 'env', why: 'a Python virtualenv (it holds pyvenv.cfg)', files: 3 }]);
    expect(heldPaths).toEqual(['env/pyvenv.cfg', 'env/bin/python', 'env/lib/site.py']);
  });

  it('holds generated folders and files wherever they sit, and large new files', () => {
    const { kept, heldBack } = holdBack([
      ...files(
        'web/node_modules/a/index.js',
        'pkg/__pycache__/m.pyc',
        'a/.pytest_cache/v',
        '.mypy_cache/x',
        '.ruff_cache/y',
        '.tox/py/z',
        'docs/.DS_Store',
        'stray.pyc',
        'src/main.py',
        'node_modules.md',
      ),
      { path: 'data.bin', size: MAX_NEW_FILE_BYTES + 1 },
      { path: 'ok.bin', size: MAX_NEW_FILE_BYTES },
    ]);
    expect(kept).toEqual(['src/main.py', 'node_modules.md', 'ok.bin']);
    expect(heldBack.map(({ path }) => path)).toEqual([
      'web/node_modules',
      'pkg/__pycache__',
      'a/.pytest_cache',
      '.mypy_cache',
      '.ruff_cache',
      '.tox',
      'docs/.DS_Store',
      'stray.pyc',
      'data.bin',
    ]);
    expect(heldBack.at(-1)!.why).toContain('10.0 MB');
  });
});
