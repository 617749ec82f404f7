// A local MCP server's launch: its command and file arguments in the snapshot, its directory the workspace.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localLaunch } from '../../src/mcp/local.js';

let root: string;
let ws: string;
let snap: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'mcp-local-'));
  ws = path.join(root, 'ws');
  snap = path.join(root, 'snap');
  for (const dir of [ws, snap]) await mkdir(path.join(dir, 'tools'), { recursive: true });
  await writeFile(path.join(snap, 'tools', 'notes.mjs'), 'base');
  await writeFile(path.join(ws, 'tools', 'notes.mjs'), 'model');
  await writeFile(path.join(ws, 'tools', 'planted.mjs'), 'model only');
});
afterAll(async () => await rm(root, { recursive: true, force: true }));

describe('localLaunch', () => {
  const view = () => ({ host: snap, seen: '/tmp/todo-agent-snapshot' });

  it('resolves a script and a relative command in the snapshot; directories and words stay', () => {
    const launch = localLaunch(
      { command: 'node', args: ['tools/notes.mjs', '--root', '.', '${WORKSPACE}', 'stdio'] },
      ws,
      view(),
    );
    expect(launch.argv).toEqual([
      'node',
      '/tmp/todo-agent-snapshot/tools/notes.mjs',
      '--root',
      '.',
      ws,
      'stdio',
    ]);
    expect(launch.cwd).toBe(ws);
    expect(localLaunch({ command: './tools/run', args: [] }, ws, view()).argv[0]).toBe(
      '/tmp/todo-agent-snapshot/tools/run',
    );
  });

  it('never runs a file only the work tree has: it is named in the snapshot, where it is not', () => {
    expect(
      localLaunch({ command: 'node', args: [path.join(ws, 'tools/planted.mjs')] }, ws, view()).argv,
    ).toEqual(['node', '/tmp/todo-agent-snapshot/tools/planted.mjs']);
  });

  it('gives npx the snapshot as its project, Python no module of its directory, git no repository command', () => {
    const launch = localLaunch({ command: 'npx', args: ['-y', 'some-server'] }, ws, view());
    expect(launch.argv).toEqual(['npx', '--prefix=/tmp/todo-agent-snapshot', '-y', 'some-server']);
    expect(launch.env).toMatchObject({ PYTHONSAFEPATH: '1', PYTHONPATH: '/tmp/todo-agent-snapshot' });
    const keys = Object.entries(launch.env)
      .filter(([name]) => name.startsWith('GIT_CONFIG_KEY_'))
      .map(([name, key]) => `${key}=${launch.env[name.replace('KEY', 'VALUE')]}`);
    expect(keys).toEqual(
      expect.arrayContaining(['core.hooksPath=/dev/null', 'core.fsmonitor=false', 'core.pager=cat']),
    );
    expect(Number(launch.env.GIT_CONFIG_COUNT)).toBe(keys.length);
  });
});
