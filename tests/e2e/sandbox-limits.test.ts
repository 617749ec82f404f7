// Issue 18, points 3–7: the second round of attacks on dist/index.js from the bash tool. Nothing a call
// makes (shared memory, keys, processes, files in /tmp) outlives it or takes the runner down; the tools are
// never root; `tool_network: none` has no slow lookup; and a setup-python interpreter in the tool cache
// installs a package. They hold however the sandbox is built: CI runs them as a runner with sudo and again
// rootless. What needs root itself (a root-owned workspace, mounts the test makes, a socket in /run) is in
// sandbox-root.test.ts.
import { execFile, spawnSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { NETWORK_OFF_NOTE } from '../../src/sandbox/limits.js';
import { bashProbes, openingText } from './setup.js';

const execFileAsync = promisify(execFile);
const asRoot = process.getuid?.() === 0;
const MARK = `todo-agent-i18-${process.pid}`;

const probes = bashProbes();
const { cleanups } = probes;

/** Runs the commands, one bash call each; resolves with each call's result as the model saw it. */
async function calls(
  commands: string[],
  options: { inputs?: Record<string, string>; env?: Record<string, string> } = {},
): Promise<string[]> {
  return (await probes.calls(commands, options)).results;
}

/** The uid the tools run as here: the workspace's owner, or the unprivileged one for a root-owned workspace. */
const TOOLS_UID = asRoot ? 64_000 : (process.getuid?.() ?? 0);

describe('what a call leaves behind', () => {
  it('no shared memory outlives the call: System V segments and /dev/shm files are the call’s own', async () => {
    const [, second] = await calls([
      `ipcmk -M 67108864 && head -c 1048576 /dev/zero > /dev/shm/${MARK} && echo made`,
      `echo "segments: $(ipcs -m | grep -c 67108864)"; ls /dev/shm`,
    ]);
    const host = spawnSync('ipcs', ['-m'], { encoding: 'utf8' }).stdout;
    expect([second, host.includes('67108864')]).toEqual(['exit code: 0\nsegments: 0\n', false]);
  });

  it('no key a tool adds outlives the call: not in the user, user-session or session keyring', async () => {
    // add_key(2) on x86-64 (248), to the session (-3), user (-4) and user-session (-5) keyrings.
    const add = `perl -e 'my ($type, $data) = ("user", "secret"); for my $ring (-3, -4, -5) { my $name = "${MARK}$ring"; syscall(248, $type, $name, $data, 6, $ring) >= 0 or print "add: $!\\n" }'; grep -c ${MARK} /proc/keys`;
    const [first, second] = await calls([
      add, // The kernel frees a dead namespace's keyrings moments after the call: give it up to 5 s.
      `for i in $(seq 50); do grep -q ${MARK} /proc/keys || break; sleep 0.1; done; grep -c ${MARK} /proc/keys; true`,
    ]);
    const asTools = asRoot
      ? ['setpriv', `--reuid=${TOOLS_UID}`, `--regid=${TOOLS_UID}`, '--clear-groups', 'cat', '/proc/keys']
      : ['cat', '/proc/keys'];
    const host = spawnSync(asTools[0]!, asTools.slice(1), { encoding: 'utf8' }).stdout;
    expect([first, second, host.includes(MARK)]).toEqual(['exit code: 0\n3\n', 'exit code: 0\n0\n', false]);
  });

  it('a fork bomb ends at the process limit with a clear message, and the next call runs', async () => {
    const [bomb = '', next] = await calls([
      // Waits (builtins only: no fork of its own) until the bomb has about filled the limit, however loaded
      // the machine, then gives its forks a moment to fail.
      'exec {tick}<> <(:); set -- /proc/[0-9]*; base=$#; bomb() { bomb | bomb & }; bomb; ' +
        'for ((i = 0; i < 600; i++)); do set -- /proc/[0-9]*; (($# >= base + 1000)) && break; read -rt 0.1 -u $tick; done; ' +
        'sleep 2; echo after',
      'echo usable',
    ]);
    expect([bomb.includes('limit of 1024 processes per call'), next]).toEqual([
      true,
      'exit code: 0\nusable\n',
    ]);
  }, 120_000);

  it('a write past the size of the private /tmp fails the write, not the run', async () => {
    const [write] = await calls([
      `head -c 1100M /dev/zero > /tmp/${MARK}; echo "exit=$?"; rm -f /tmp/${MARK}`,
    ]);
    expect(write).toMatch(/No space left on device[\s\S]*exit=1/);
  });
});

describe('who the tools are', () => {
  it('never root: /etc/shadow stays closed (tests/e2e/sandbox-root.test.ts: a root-owned workspace)', async () => {
    const [read] = await calls([`id -u; cat /etc/shadow 2>&1; true`]);
    expect(read).toBe(`exit code: 0\n${TOOLS_UID}\ncat: /etc/shadow: Permission denied\n`);
  });
});

describe('tool_network: none', () => {
  it('an install fails within 5 s and says why; the model was told the network is off', async () => {
    const [install = ''] = await calls(
      [
        'timeout 5 npm install --no-audit --no-fund left-pad@1.3.0 2>&1; status=$?; echo "exit=$status"; exit $status',
      ],
      {
        inputs: { tool_network: 'none' },
      },
    );
    const opening = openingText(probes.world!.model.requests[0]!);
    expect([install.includes('exit=124'), install.includes('the network is off'), opening]).toEqual([
      false,
      true,
      expect.stringContaining('Network: off. The workflow sets `tool_network: none`'),
    ]);
  }, 60_000);

  it('npm, pip, cargo and Go each fail with their own offline message and the note, piped away too (exit 0)', async () => {
    // Each client is told through its own setting that the network is off (NETWORK_OFF_ENV), so it fails at
    // once with its own words; `| tail … || true` makes the call's exit status 0 (the tool's bash has pipefail), and the note must come all the same.
    const crate =
      `mkdir -p crate/src && printf '[package]\\nname = "probe"\\nversion = "0.1.0"\\nedition = "2021"\\n\\n` +
      `[dependencies]\\nmade-up-crate = "1"\\n' > crate/Cargo.toml && echo 'fn main() {}' > crate/src/main.rs`;
    const module =
      "mkdir -p mod && printf 'module probe.todo-agent.test/m\\n\\ngo 1.19\\n\\nrequire made-up.todo-agent.test/mod v1.0.0\\n' > mod/go.mod";
    const piped = (program: string, command: string) =>
      `command -v ${program} > /dev/null || { echo "${program} is absent"; exit 0; }; (${command}) 2>&1 | tail -n 4 || true`;
    const clients = [
      {
        name: 'npm',
        says: 'ENOTCACHED',
        command: piped('npm', 'npm install --no-audit --no-fund made-up-package@1.0.0'),
      },
      {
        name: 'pip',
        says: '(from versions: none)',
        command: piped(
          'python3',
          '/usr/bin/python3 -m pip install --no-cache-dir --target "$(mktemp -d)" made-up-package',
        ),
      },
      { name: 'cargo', says: '--offline', command: piped('cargo', `${crate} && cd crate && cargo fetch`) },
      { name: 'go', says: 'GOPROXY=off', command: piped('go', `${module} && cd mod && go mod download`) },
    ];
    const results = await calls(
      clients.map(({ command }) => command),
      { inputs: { tool_network: 'none' } },
    );
    const seen = clients.map(({ name, says }, i) => {
      const result = results[i] ?? '';
      if (result.includes(`${name === 'pip' ? 'python3' : name} is absent`)) return { name, absent: true };
      return {
        name,
        exit0: result.startsWith('exit code: 0\n'),
        ownMessage: result.includes(says),
        note: result.includes(NETWORK_OFF_NOTE),
      };
    });
    // npm and pip are on every runner; cargo and Go where the machine has them.
    expect(seen.slice(0, 2).every((client) => !('absent' in client))).toBe(true);
    for (const client of seen)
      if (!('absent' in client))
        expect(client).toEqual({ name: client.name, exit0: true, ownMessage: true, note: true });
  }, 120_000);
});

describe('the tool cache', () => {
  it('a setup-python interpreter there installs a local package; nothing of it outlives the run', async () => {
    const cache = join(process.env.TMPDIR ?? '/tmp', `${MARK}-toolcache`);
    const python = join(cache, 'Python', '3.11.2', 'x64');
    cleanups.push(() => rm(cache, { recursive: true, force: true }));
    await mkdir(join(cache, 'wheels'), { recursive: true });
    // The system's interpreter (a shim under /root, as pyenv's, is closed to the tools).
    await execFileAsync('/usr/bin/python3', ['-m', 'venv', python]);
    const wheel = join(cache, 'wheels', 'todo_agent_probe-0.1-py3-none-any.whl');
    await writeFile(join(cache, 'make-wheel.py'), MAKE_WHEEL);
    await execFileAsync('/usr/bin/python3', [join(cache, 'make-wheel.py'), wheel]);
    const bin = '"$RUNNER_TOOL_CACHE/Python/3.11.2/x64/bin/python"';
    const [install = ''] = await calls(
      [
        `${bin} -m pip install --no-index --no-cache-dir ${wheel} 2>&1 | tail -1 && ${bin} -c "import todo_agent_probe as p; print('probe', p.VALUE)"`,
      ],
      { env: { RUNNER_TOOL_CACHE: cache } },
    );
    const { stdout: left } = await execFileAsync(join(python, 'bin', 'python'), ['-m', 'pip', 'list']);
    expect([install.trim().split('\n').at(-1), left.includes('todo-agent-probe')]).toEqual([
      'probe 42',
      false,
    ]);
  }, 120_000);
});

describe('the tool cache in a folder the sandbox hides', () => {
  it('stays in sight, everything beside it stays hidden, and the log says so', async () => {
    // RUNNER_TOOL_CACHE under RUNNER_TEMP (hidden): the cache was dropped from the hidden paths, and with it
    // RUNNER_TEMP, checkout's token and setup actions' credentials there included.
    // Out of /tmp, which the tools see as a tmpfs of their own: in the checkout, as a runner's _work holds it.
    const temp = join(process.cwd(), `.${MARK}-runner-temp`);
    const cache = join(temp, 'cache', '_tool');
    cleanups.push(() => rm(temp, { recursive: true, force: true }));
    await mkdir(join(cache, 'probe'), { recursive: true });
    await writeFile(join(cache, 'probe', 'version'), 'probe 1.0\n');
    await writeFile(join(temp, 'credentials'), 'SECRET-BESIDE-THE-CACHE\n');
    await writeFile(join(temp, 'cache', 'token'), 'SECRET-ON-THE-WAY\n');
    const { results, run } = await probes.calls(
      [`cat ${cache}/probe/version ${temp}/credentials ${temp}/cache/token 2>&1; true`],
      { env: { RUNNER_TEMP: temp, RUNNER_TOOL_CACHE: cache } },
    );
    expect(results).toEqual(['exit code: 0\nprobe 1.0\n']);
    expect(run.stdout).toContain(
      `::warning::${temp}, a path the sandbox hides, holds the tool cache ${cache}: everything in it is ` +
        'hidden but the way down to the tool cache, which the tools keep.\n',
    );
  }, 60_000);
});

/** Writes a pure-Python wheel by hand, so that pip installs it without a build backend or the network. */
const MAKE_WHEEL = String.raw`
import sys, zipfile
files = {
    "todo_agent_probe/__init__.py": "VALUE = 42\n",
    "todo_agent_probe-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: todo-agent-probe\nVersion: 0.1\n",
    "todo_agent_probe-0.1.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = "".join(f"{name},,\n" for name in files) + "todo_agent_probe-0.1.dist-info/RECORD,,\n"
with zipfile.ZipFile(sys.argv[1], "w") as wheel:
    for name, text in files.items():
        wheel.writestr(name, text)
    wheel.writestr("todo_agent_probe-0.1.dist-info/RECORD", record)
`;
