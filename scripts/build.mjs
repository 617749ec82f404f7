// Bundles the action (dist/index.js) and the CLI (dist/cli.js) with ncc.
import { execFileSync } from 'node:child_process';
import {
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  mkdirSync,
  writeFileSync,
  readFileSync,
  chmodSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const entries = [
  { src: 'src/index.ts', out: 'index.js' },
  { src: 'src/cli.ts', out: 'cli.js', shebang: true },
];

rmSync('dist', { recursive: true, force: true });
mkdirSync('dist');
for (const entry of entries) {
  const tmp = mkdtempSync(join(tmpdir(), 'ncc-'));
  execFileSync('npx', ['ncc', 'build', entry.src, '-o', tmp, '-m', '-q', '--license', 'licenses.txt'], {
    stdio: 'inherit',
  });
  for (const name of readdirSync(tmp)) {
    const target =
      name === 'index.js'
        ? entry.out
        : name === 'licenses.txt'
          ? entry.out.replace('.js', '.licenses.txt')
          : name;
    renameSync(join(tmp, name), join('dist', target));
  }
  rmSync(tmp, { recursive: true, force: true });
  if (entry.shebang) {
    const file = join('dist', entry.out);
    const code = readFileSync(file, 'utf8');
    if (!code.startsWith('#!')) writeFileSync(file, `#!/usr/bin/env node\n${code}`);
    chmodSync(file, 0o755);
  }
}
writeFileSync('dist/package.json', `${JSON.stringify({ type: 'module' }, null, 2)}\n`);
