// The CLI as a user installs it: `npm pack` makes the tarball the release publishes, a clean directory installs
// it with no network, and the installed `todo-agent` prints its help and runs the seeds' task against the
// scripted model. It runs on the Node that runs the tests (20 on the team's machines and CI's root pass), which
// is what keeps `engines` at >= 20 true.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELLO_FILES, HELLO_RESULT, HELLO_TASK, helloScript } from './support/anthropic/scenarios.js';
import { reply, startModelServer, text, toolUse } from './support/anthropic/server.js';
import { ROOT } from './support/action-harness.js';

const run = promisify(execFile);
const KEY = 'sk-ant-package-test-00000000000000';

interface Packed {
  filename: string;
  files: { path: string }[];
}

let dir: string;
let packed: Packed;
let bin: string;

function cli(args: string[], cwd: string, env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(bin, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'todo-agent-package-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT });
  packed = (JSON.parse(stdout) as Packed[])[0]!;
  // A clean directory, as a user's: nothing of this checkout, no network.
  const user = join(dir, 'user');
  await run('mkdir', [user]);
  await writeFile(join(user, 'package.json'), '{ "name": "user", "private": true }\n');
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(dir, packed.filename)], {
    cwd: user,
  });
  bin = join(user, 'node_modules/.bin/todo-agent');
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the npm package', () => {
  it('holds the CLI and nothing else of the checkout, with no dependency to install', async () => {
    const paths = packed.files.map((file) => file.path).sort();
    expect(paths).toContain('dist/cli.js');
    // The pictures' decoder runs as a process of its own, from its own bundle beside the CLI's.
    expect(paths).toContain('dist/image-decoder.js');
    expect(paths).toContain('package.json');
    expect(paths).toContain('README.md');
    expect(
      paths.filter(
        (path) =>
          !/^(dist\/(cli\.js|\d+\.cli\.js|cli\.licenses\.txt|image-decoder\.(js|licenses\.txt)|webp_dec\.wasm)|package\.json|README\.md|LICENSE)$/.test(
            path,
          ),
      ),
    ).toEqual([]);
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest.private).toBeUndefined();
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.bin).toEqual({ 'todo-agent': 'dist/cli.js' });
  });

  it('installs a `todo-agent` that prints its help', async () => {
    const { code, stdout } = await cli(['--help'], dir);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: todo-agent "<task>"');
    expect(stdout).toContain('todo-agent show FILE');
  });

  it('runs the seeds’ task against the scripted model from the installed package', async () => {
    const work = join(dir, 'project');
    await run('mkdir', [work]);
    await writeFile(join(work, 'hello.py'), HELLO_FILES['hello.py']!);
    const server = await startModelServer(helloScript(), { apiKey: KEY });
    try {
      const { code, stdout } = await cli([HELLO_TASK], work, {
        ANTHROPIC_API_KEY: KEY,
        ANTHROPIC_BASE_URL: server.url,
      });
      expect(server.violations).toEqual([]);
      expect(code).toBe(0);
      expect(stdout).toContain('completed: every todo item is completed');
      expect(await readFile(join(work, 'hello.py'), 'utf8')).toBe(HELLO_RESULT);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('scales a large picture read with read_file, in the decoder the package carries', async () => {
    const work = join(dir, 'pictures');
    await run('mkdir', [work]);
    const shot = new PNG({ width: 2400, height: 1200 });
    shot.data.fill(200);
    await writeFile(join(work, 'shot.png'), PNG.sync.write(shot));
    const item = (status: string) => ({ text: 'Look at shot.png', activeForm: 'Looking', status });
    const server = await startModelServer(
      [
        reply(toolUse('todo', { items: [item('in_progress')] })),
        reply(toolUse('read_file', { path: 'shot.png' })),
        reply(toolUse('todo', { items: [item('completed')] })),
        reply(text('Looked.')),
      ],
      { apiKey: KEY },
    );
    try {
      const { code } = await cli(['look at shot.png', '--no-sandbox'], work, {
        ANTHROPIC_API_KEY: KEY,
        ANTHROPIC_BASE_URL: server.url,
      });
      expect(server.violations).toEqual([]);
      expect(code).toBe(0);
      expect(JSON.stringify(server.requests[2]!.body)).toContain(
        'shot.png: PNG image, 2400×1200 px, scaled to 1568×784 px (shown below)',
      );
    } finally {
      await server.close();
    }
  }, 60_000);
});
