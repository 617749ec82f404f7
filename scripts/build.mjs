// Bundles the action (dist/index.js), the CLI (dist/cli.js) and the picture decoder (dist/image-decoder.js)
// with ncc. Code loaded only on demand (the
// Bedrock and Vertex SDKs) goes into chunk files that ncc names `<id>.index.js` for every entry; each entry's
// chunks are renamed after it (`<id>.cli.js`), since the same id holds different code in each bundle. ncc
// minifies only the entry file, so the chunks are minified here (names kept: SDK errors are told by name).
// The action's entry (dist/index.js) is not ncc's: esbuild bundles src/index.ts with what the first sign of
// life needs (src/action/start.ts: the settings, the event, the 👀), and it loads ncc's bundle of the rest
// (dist/main.js) with import(), so the 👀 leaves before that bundle is even read (issue 20). The post step
// (dist/post.js, src/post.ts) is esbuild's too: small, it loads nothing of the agent.
import { spawn } from 'node:child_process';
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
import { build, transformSync } from 'esbuild';

const entries = [
  { src: 'src/action/main.ts', out: 'main.js' },
  { src: 'src/cli.ts', out: 'cli.js', shebang: true },
  // The picture decoder's own process (src/images/decoder.ts starts it), with libwebp's WebAssembly beside it.
  { src: 'src/images/decoding/decoder-main.ts', out: 'image-decoder.js' },
];

rmSync('dist', { recursive: true, force: true });
mkdirSync('dist');
// ncc's three builds run at once (each keeps one core busy for most of a minute), then go into dist/ in order.
const built = await Promise.all(
  entries.map(async (entry) => {
    const tmp = mkdtempSync(join(tmpdir(), 'ncc-'));
    const ncc = spawn(
      'npx',
      ['ncc', 'build', entry.src, '-o', tmp, '-m', '-q', '--license', 'licenses.txt'],
      {
        stdio: 'inherit',
      },
    );
    const code = await new Promise((done) => ncc.on('close', done));
    if (code !== 0) throw new Error(`ncc build ${entry.src} failed (exit code ${code})`);
    return tmp;
  }),
);
for (const [i, entry] of entries.entries()) {
  const tmp = built[i];
  const chunkSuffix = `.${entry.out}`;
  for (const name of readdirSync(tmp)) {
    const target =
      name === 'index.js'
        ? entry.out
        : name === 'licenses.txt'
          ? entry.out.replace('.js', '.licenses.txt')
          : name.replace(/\.index\.js$/, chunkSuffix);
    if (target.endsWith(chunkSuffix) && target !== entry.out) {
      const code = readFileSync(join(tmp, name), 'utf8');
      writeFileSync(join('dist', target), transformSync(code, { minify: true, keepNames: true }).code);
    } else {
      renameSync(join(tmp, name), join('dist', target));
    }
  }
  if (entry.out !== 'index.js') {
    const file = join('dist', entry.out);
    const code = readFileSync(file, 'utf8');
    const loader = '+".index.js"';
    const found = code.split(loader).length - 1;
    const chunks = readdirSync('dist').some((name) => name.endsWith(chunkSuffix));
    if (found !== (chunks ? 1 : 0))
      throw new Error(`${file}: expected one chunk loader to rename, found ${found}`);
    writeFileSync(file, code.replace(loader, `+${JSON.stringify(chunkSuffix)}`));
  }
  rmSync(tmp, { recursive: true, force: true });
  if (entry.shebang) {
    const file = join('dist', entry.out);
    const code = readFileSync(file, 'utf8');
    if (!code.startsWith('#!')) writeFileSync(file, `#!/usr/bin/env node\n${code}`);
    chmodSync(file, 0o755);
  }
}
// The first chunk: src/index.ts and start.ts's imports, with `./action/main.js` left to ncc's bundle.
/** What both of esbuild's entries share: one minified ES module for the runner's node, names kept. */
const esbuildEntry = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  keepNames: true,
  legalComments: 'none',
  logLevel: 'warning',
};
await build({
  ...esbuildEntry,
  entryPoints: ['src/index.ts'],
  outfile: 'dist/index.js',
  plugins: [
    {
      name: 'main-bundle',
      setup(esbuild) {
        esbuild.onResolve({ filter: /^\.\/action\/main\.js$/ }, () => ({
          path: './main.js',
          external: true,
        }));
      },
    },
  ],
});
// The post step, after the main step whatever became of it: the workspace's git directories put right. What
// it loads only to say something (@actions/core) is a chunk of its own (`post-<hash>.js`), and @actions/core's
// CommonJS dependencies find `require` through the banner.
await build({
  entryPoints: { post: 'src/post.ts' },
  outdir: 'dist',
  splitting: true,
  chunkNames: 'post-[hash]',
  banner: {
    js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
  ...esbuildEntry,
});
writeFileSync('dist/package.json', `${JSON.stringify({ type: 'module' }, null, 2)}\n`);
