import { describe, expect, it } from 'vitest';
import { MAX_NEW_FILE_BYTES, groupLeftOut, holdBack, leadsOut } from '../../src/delivery/held-back.js';

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

  it('holds a new symbolic link that leads out of the repository, and keeps one that stays inside', () => {
    const link = (path: string, target: string) => ({ path, size: target.length, link: target });
    const { kept, heldBack } = holdBack([
      link('leak', '/home/runner/.npmrc'),
      link('docs/up', '../../etc/passwd'),
      link('home', '~/.ssh/id_rsa'),
      link('docs/readme', '../README.md'),
      link('bin/tool', './real-tool'),
      link('a/b/c', '../../x/../y'),
      link('venv/bin/python', '/usr/bin/python3'),
      { path: 'venv/pyvenv.cfg', size: 10 },
    ]);
    expect(kept).toEqual(['docs/readme', 'bin/tool', 'a/b/c']);
    expect(heldBack.map(({ path, why }) => `${path}: ${why}`)).toEqual([
      'leak: a symbolic link leading out of the repository',
      'docs/up: a symbolic link leading out of the repository',
      'home: a symbolic link leading out of the repository',
      'venv: a Python virtualenv (it holds pyvenv.cfg)',
    ]);
  });
});

describe('holdBack, tracked links', () => {
  it('keeps a tracked path turned into a link that leads out as the start has it, and lets one inside go', () => {
    const { heldBack, heldPaths, restored } = holdBack(
      [],
      [
        { path: 'docs/latest', link: '/etc/shadow' },
        { path: 'docs/current', link: 'v2' },
      ],
    );
    expect(restored).toEqual(['docs/latest']);
    expect(heldPaths).toEqual([]); // nothing is taken out of the index: it is put back as it was
    expect(heldBack).toEqual([
      {
        path: 'docs/latest',
        why: 'a symbolic link changed to lead out of the repository (kept as it was)',
        files: 1,
      },
    ]);
  });
});

describe('leadsOut', () => {
  it('tells a target that leaves the root from one that stays, however it climbs', () => {
    expect(leadsOut('a', '/etc/passwd')).toBe(true);
    expect(leadsOut('a', '..')).toBe(true);
    expect(leadsOut('a/b', '../../c')).toBe(true);
    expect(leadsOut('a/b', '../c/../../d')).toBe(true);
    expect(leadsOut('a/b', '../c')).toBe(false);
    expect(leadsOut('a/b', 'c/../../d')).toBe(false);
    expect(leadsOut('a', '.')).toBe(false);
    expect(leadsOut('a', '..file')).toBe(false);
  });
});

describe('groupLeftOut', () => {
  it('counts each held folder once, whatever its size, and lists the files no rule explains one by one', () => {
    const venv = Array.from({ length: 768 }, (_, i) => `.venv/lib/f${i}.py`);
    const grouped = groupLeftOut(
      ['.env.local', ...venv, 'src/__pycache__/a.pyc', 'src/__pycache__/b.pyc'],
      [{ path: '.venv', why: 'a Python virtualenv (it holds pyvenv.cfg)', files: 768 }],
    );
    expect(grouped).toEqual([
      { path: '.venv', files: 768, why: 'a Python virtualenv (it holds pyvenv.cfg)' },
      { path: 'src/__pycache__', files: 2, why: 'Python bytecode cache' },
      { path: '.env.local', files: 1 },
    ]);
    // A virtualenv at the root holds everything.
    expect(groupLeftOut(['a', 'b/c'], [{ path: '.', why: 'a Python virtualenv', files: 2 }])).toEqual([
      { path: '.', files: 2, why: 'a Python virtualenv' },
    ]);
  });
});
