// The action's process killed after the model armed the workspace's git directories (the OOM killer, a
// SIGKILL at `timeout-minutes`): nothing in the process puts them right, so the post step (action.yml's
// `post:`, dist/post.js) must, before actions/checkout's post step and any later step run git there. With
// the sandbox on, the model's last bash call is still running when the action dies, and would plant a
// repository after the post step: it must die with the action. Run as root, as `runner` with sudo, and
// rootless (CI's user without sudo runs this file again).
import type { ChildProcess } from 'node:child_process';
import { lstat, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { reply, toolUse } from '../support/anthropic/server.js';
import { laterSteps, marksFolder } from '../support/later-steps.js';
import { ACTION_USERS, TOKEN, type World, useWorldsPerTest } from './setup.js';

const GIT_SERVER = resolve(import.meta.dirname, '../support/mcp/git-server.mjs');

let world: World | undefined;
const worlds = useWorldsPerTest();

const PLAN = toolUse('todo', {
  items: [{ id: '1', text: 'Greet politely', activeForm: 'Greeting', status: 'in_progress' }],
});

/** The model arms the top `.git` and a nested repository (and, without the sandbox, moves `.git` away). */
const ARM = (sandbox: 'on' | 'off') =>
  [
    'R=$(cd .. && pwd)',
    'git config core.fsmonitor "touch $R/marks/top-fsmonitor; false"',
    'git config alias.st "!touch $R/marks/top-alias"',
    'mkdir -p .git/hooks/zz.d/x && chmod 000 .git/hooks/zz.d',
    'mkdir -p vendor/lib && cd vendor/lib && git init -q && echo x > x && git add x',
    'git config core.fsmonitor "touch $R/marks/nested-fsmonitor; false" && cd "$OLDPWD"',
    ...(sandbox === 'off' ? ['mv .git .gitstore && ln -s .gitstore .git'] : []),
    'echo ARMED',
  ].join('\n');

/**
 * The last call: with the sandbox, a process that plants a repository a few seconds later; then it tells the
 * test's server, which kills the action, and waits.
 */
const LAST = (port: number, sandbox: 'on' | 'off') =>
  [
    'R=$(cd .. && pwd)',
    ...(sandbox === 'on'
      ? [
          '(sleep 4; mkdir -p late && cd late && git init -q && ' +
            'git config core.fsmonitor "touch $R/marks/late-fsmonitor; false"; touch "$R/marks/late") &',
        ]
      : []),
    `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET /kill HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`,
    'sleep 60',
  ].join('\n');

/** An MCP server that writes `mark` in its HOME (which its sandbox's private directory takes), then serves. */
const serverMarking = (mark: string) =>
  JSON.stringify({
    mcpServers: {
      git: {
        command: 'sh',
        args: ['-c', `touch "$HOME/${mark}" && exec "$0" "$1"`, process.execPath, GIT_SERVER],
        tools: ['status'],
      },
    },
  });

/** The marks left in the HOME layers of sandboxes' private directories (an MCP server's lies in the tools'). */
async function marksLeft(mark: string): Promise<string[]> {
  const left: string[] = [];
  const look = async (dir: string, depth: number): Promise<void> => {
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      if (!name.startsWith('todo-agent-sandbox-')) continue;
      const own = join(dir, name);
      for (const upper of ['home-upper', 'home-layer/upper'])
        if (await lstat(join(own, upper, mark)).catch(() => undefined)) left.push(join(own, upper, mark));
      if (depth > 0) await look(own, depth - 1);
    }
  };
  await look(tmpdir(), 1);
  return left;
}

/** A server that SIGKILLs the action when the model's bash call asks it to. */
async function startKiller(child: () => ChildProcess | undefined): Promise<number> {
  const { port } = await worlds.listen((_request, response) => {
    child()?.kill('SIGKILL');
    response.end('killed\n');
  });
  return port;
}

describe.each(ACTION_USERS)('the action killed after the model armed .git, as $who', ({ as }) => {
  it.each(['on', 'off'] as const)(
    'with the sandbox %s: the post step puts the git directories right, and nothing of the tools lives on',
    async (sandbox) => {
      let action: ChildProcess | undefined;
      const port = await startKiller(() => action);
      world = await worlds.create([
        reply(PLAN),
        reply(toolUse('bash', { command: ARM(sandbox) })),
        reply(toolUse('bash', { command: LAST(port, sandbox) })),
      ]);
      const { root, workspace } = world.sandbox;
      const mark = `todo-agent-kill-mark-${process.pid}-${Date.now()}`;
      const marks = marksFolder(root);
      const configBefore = await readFile(join(workspace, '.git/config'), 'utf8');

      const run = await world.trigger('/agent greet politely', {
        ...(as ? { as } : {}),
        // The tools reach the test's killer on the runner's loopback through the gate, as a job's service;
        // an MCP server, in a sandbox of its own, leaves a mark in its private HOME.
        inputs: {
          sandbox,
          ...(sandbox === 'on'
            ? {
                allowed_hosts: `localhost:${port}`,
                mcp_servers: serverMarking(mark),
                // Without the tool search the run waits for its server: its mark is there before any call.
                model: 'claude-opus-4-1',
              }
            : {}),
        },
        onSpawn: (child) => (action = child),
      });

      expect(run.signal).toBe('SIGKILL');
      expect(JSON.stringify(world.model.requests[2]?.body.messages.at(-1))).toContain('ARMED');
      const state = JSON.parse(run.state.todo_agent ?? '{}') as {
        ownGitDir?: string;
        sandbox?: { dir: string };
      };
      expect(state.ownGitDir).toBeDefined();
      expect(run.state.todo_agent_cleaned).toBeUndefined();
      // Long enough for the model's late plant, had its process outlived the action (only the sandbox's
      // last call plants one).
      if (sandbox === 'on') await sleep(6_000);
      // The server's private directory outlived the killed action, until the post step.
      if (sandbox === 'on') expect(await marksLeft(mark)).not.toEqual([]);

      const post = await world.post(run, as ? { as } : {});

      expect(post.code).toBe(0);
      expect(post.stderr).toBe('');
      expect(post.stdout).toContain(
        "todo-agent's main step ended before it put the workspace's git directories right",
      );
      expect(post.stdout).toMatch(
        /Cut nested git configuration down to inert settings: .*vendor\/lib\/\.git\/config/,
      );
      expect((await lstat(join(workspace, '.git'))).isDirectory()).toBe(true);
      expect(await readFile(join(workspace, '.git/config'), 'utf8')).toBe(configBefore);
      if (sandbox === 'off') expect(post.stdout).toContain('a clean one was made in its place');
      // What the killed run left is gone: our own git directory and the sandbox's private one.
      await expect(lstat(state.ownGitDir!)).rejects.toThrow(/ENOENT/);
      if (state.sandbox) await expect(lstat(state.sandbox.dir)).rejects.toThrow(/ENOENT/);
      expect(await marksLeft(mark)).toEqual([]);

      laterSteps([workspace, join(workspace, 'vendor/lib')], { as, token: TOKEN });
      expect(await readdir(marks)).toEqual([]);
      await expect(lstat(join(workspace, 'late'))).rejects.toThrow(/ENOENT/);
    },
    240_000,
  );
});
