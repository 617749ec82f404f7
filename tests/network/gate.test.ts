// The network gate on this machine, for real: a gated sandbox (root, sudo or rootless, as the tests run),
// the gate's proxy, and real clients inside it (npm ci, pip install, git clone over HTTPS, curl) against
// servers the test starts on 127.0.0.1 under test host names, which the gate's resolver map leads there. npm
// and pip are configured with those names; the gate must find them by asking the toolchains. No traffic goes
// to any address but loopback.
import { execFile } from 'node:child_process';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { createSocket } from 'node:dgram';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { runCommand } from '../../src/sandbox/commands/run-command.js';
import { openSandbox, openSibling } from '../../src/sandbox/setup.js';
import { NetworkGate } from '../../src/network/gate.js';
import { parseAllowedHosts, type HostRule } from '../../src/network/hosts.js';
import type { Resolver } from '../../src/network/proxy/resolver.js';
import { AROUND_THE_GATE_NOTE } from '../../src/sandbox/limits.js';
import { makeWheel, startNpmRegistry, startSimpleIndex } from '../support/network/registries.js';
import { startGitHttps } from '../support/network/git-https.js';

const run = promisify(execFile);
const NPM_HOST = 'packages.todo-agent.test';
const PYPI_HOST = 'pypi.todo-agent.test';
const GIT_HOST = 'git.todo-agent.test';

const root = await mkdtemp(path.join(tmpdir(), 'todo-agent-gate-'));
await chmod(root, 0o755);
const ws = path.join(root, 'workspace');
const home = path.join(root, 'home');
const repos = path.join(root, 'repos');
await Promise.all([mkdir(ws), mkdir(home), mkdir(repos)]);

// The servers, each on 127.0.0.1.
const npm = await startNpmRegistry(
  [
    { name: 'gate-left', version: '1.0.0' },
    { name: 'gate-right', version: '1.2.0', dependencies: { 'gate-left': '^1.0.0' } },
  ],
  `http://${NPM_HOST}/`,
);
const wheels = path.join(root, 'wheels');
await mkdir(wheels);
const pypi = await startSimpleIndex([await makeWheel(wheels, 'gate_probe', '0.1', 42)]);
await run('git', ['init', '-q', '--bare', '--initial-branch=main', path.join(repos, 'probe.git')]);
const seed = path.join(root, 'seed');
await run('git', ['init', '-q', '--initial-branch=main', seed]);
await writeFile(path.join(seed, 'README'), 'cloned through the gate\n');
const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
};
await run('git', ['-C', seed, 'add', '.'], { env: gitEnv });
await run('git', ['-C', seed, 'commit', '-q', '-m', 'seed'], { env: gitEnv });
await run('git', ['-C', seed, 'push', '-q', path.join(repos, 'probe.git'), 'main'], { env: gitEnv });
const git = await startGitHttps(repos, GIT_HOST);
await writeFile(path.join(ws, 'ca.pem'), git.certificate);

/** A service on the runner's loopback (a job's database, say), allowed by name as localhost:PORT. */
const service: Server = createHttpServer((_req, res) => res.end('the runner’s own service\n'));
await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
const servicePort = (service.address() as { port: number }).port;

/** Listeners a tool that ignores the proxy aims at: they must hear nothing. */
const tcpHeard: string[] = [];
const tcp = createTcpServer((socket) => {
  tcpHeard.push('connection');
  socket.destroy();
});
await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
const tcpPort = (tcp.address() as { port: number }).port;
const udpHeard: string[] = [];
const udp = createSocket('udp4', () => udpHeard.push('datagram'));
await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
const udpPort = udp.address().port;

/**
 * The test's resolver map: the registries' and the git server's names lead to their servers, marked as
 * standing in for public ones. The rebinding names lead to 127.0.0.1 unmarked: the gate must refuse them.
 */
const MAP: Record<string, { port: number; trusted?: boolean }> = {
  [NPM_HOST]: { port: npm.port, trusted: true },
  [PYPI_HOST]: { port: pypi.port, trusted: true },
  [GIT_HOST]: { port: git.port, trusted: true },
  'evil.wild.todo-agent.test': { port: npm.port },
  'scoped.todo-agent.test': { port: npm.port },
};
const resolver: Resolver = async (host) => {
  const entry = MAP[host];
  if (host === 'localhost') return { addresses: [{ address: '127.0.0.1', family: 4 }] };
  if (!entry) throw Object.assign(new Error(`no test address for ${host}`), { code: 'ENOTFOUND' });
  return {
    addresses: [{ address: '127.0.0.1', family: 4 }],
    port: entry.port,
    ...(entry.trusted ? { trusted: true } : {}),
  };
};

// The project's own npm settings name the registry (and a scope's, which rebinds); pip's index is a variable.
const npmrc = `registry=http://${NPM_HOST}/\n@rebind:registry=http://scoped.todo-agent.test/\n`;
await writeFile(path.join(ws, '.npmrc'), npmrc);
await writeFile(path.join(ws, 'package.json'), npm.project.packageJson);
await writeFile(path.join(ws, 'package-lock.json'), npm.project.lockfile);
/** The tools' environment, as a runner's would be (not this test process's, which npx and CI fill). */
const env = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  LANG: 'C.UTF-8',
  HOME: home,
  PIP_INDEX_URL: `http://${PYPI_HOST}/simple/`,
  PIP_TRUSTED_HOST: PYPI_HOST,
  PIP_DISABLE_PIP_VERSION_CHECK: '1',
};
const allowed = parseAllowedHosts(`${GIT_HOST}, *.wild.todo-agent.test, localhost:${servicePort}`) as {
  rules: HostRule[];
};

const sandbox = await openSandbox({ workspace: ws, network: 'gated', home, forwardedPorts: [servicePort] });
const gate = await NetworkGate.open({
  sandbox,
  // As the trusted snapshot has the project's settings (here the same as the work tree's).
  toolchains: Promise.resolve({ env, projectFiles: { '.npmrc': npmrc } }),
  allowedHosts: allowed.rules,
  github: { serverUrl: 'https://github.com', apiUrl: 'https://api.github.com' },
  guarded: [{ host: 'model.todo-agent.test', what: "the model's API endpoint" }],
  env,
  resolver,
});

afterAll(async () => {
  sandbox.close();
  await Promise.all([npm.close(), pypi.close(), git.close()]);
  await Promise.all([service, tcp].map((server) => new Promise((resolve) => server.close(resolve))));
  udp.close();
  await rm(root, { recursive: true, force: true });
});

const inSandbox = (command: string, timeoutMs = 60_000) =>
  runCommand(command, { cwd: ws, env, timeoutMs, sandbox });

describe('the allowlist the gate makes', () => {
  it('holds the registries npm and pip are set to use, GitHub’s hosts and allowed_hosts, and guards the APIs', async () => {
    const list = await gate.allowlist;
    const named = list.rules.map((rule) => `${rule.host}${rule.port ? `:${rule.port}` : ''} ${rule.source}`);
    expect(named).toEqual(
      expect.arrayContaining([
        `${NPM_HOST} npm registry`,
        'scoped.todo-agent.test npm registry of @rebind',
        `${PYPI_HOST} pip index`,
        `${GIT_HOST} allowed_hosts`,
        `localhost:${servicePort} allowed_hosts`,
        'github.com GitHub',
        'codeload.github.com GitHub',
      ]),
    );
    expect(list.rules.some((rule) => rule.host === 'api.github.com')).toBe(false);
    expect(list.guarded.map((entry) => entry.host)).toEqual(['api.github.com', 'model.todo-agent.test']);
  });
});

describe('real clients through the gate', () => {
  it('npm ci installs a real lockfile from the registry npm is configured with', async () => {
    const result = await inSandbox(
      `npm ci --no-audit --no-fund --loglevel=error 2>&1 && node -e "console.log(require('gate-right'), require('gate-left'))"`,
      120_000,
    );
    expect({ exit: result.exitCode, last: result.output.trim().split('\n').at(-1) }).toEqual({
      exit: 0,
      last: 'gate-right@1.2.0 gate-left@1.0.0',
    });
    expect(npm.requests).toEqual(
      expect.arrayContaining([
        `GET /gate-left/-/gate-left-1.0.0.tgz (${NPM_HOST})`,
        `GET /gate-right/-/gate-right-1.2.0.tgz (${NPM_HOST})`,
      ]),
    );
  }, 180_000);

  it('pip installs a real package from the index its variable names', async () => {
    const result = await inSandbox(
      '/usr/bin/python3 -m pip install -q --target ./site gate-probe 2>&1 && PYTHONPATH=site /usr/bin/python3 -c "import gate_probe; print(gate_probe.VALUE)"',
      120_000,
    );
    expect({ exit: result.exitCode, last: result.output.trim().split('\n').at(-1) }).toEqual({
      exit: 0,
      last: '42',
    });
    expect(pypi.requests.some((line) => line.startsWith('GET /files/gate_probe-0.1-py3-none-any.whl'))).toBe(
      true,
    );
  }, 180_000);

  it('git clones over HTTPS through a CONNECT tunnel, and curl fetches, trusting the server’s own certificate', async () => {
    const result = await inSandbox(
      `git -c http.sslCAInfo="$PWD/ca.pem" clone -q https://${GIT_HOST}/probe.git cloned 2>&1 && cat cloned/README && curl -sS --cacert ca.pem https://${GIT_HOST}/hello`,
    );
    expect({ exit: result.exitCode, output: result.output }).toEqual({
      exit: 0,
      output: `cloned through the gate\nhello from ${GIT_HOST}\n`,
    });
  });

  it('reaches a loopback service of the runner that allowed_hosts names (localhost:PORT), at the same port', async () => {
    const result = await inSandbox(`curl -sS http://localhost:${servicePort}/`);
    expect(result.output).toBe('the runner’s own service\n');
  });

  it('keeps the sandbox’s own loopback its own: a server a tool starts answers, the runner’s does not', async () => {
    const result = await inSandbox(
      `node -e "require('http').createServer((q, s) => s.end('own\\n')).listen(${tcpPort}, '127.0.0.1')" & sleep 1; curl -sS http://127.0.0.1:${tcpPort}/; kill %1`,
    );
    expect({ output: result.output, heard: tcpHeard }).toEqual({ output: 'own\n', heard: [] });
  });
});

describe('what the gate refuses, and how it says so', () => {
  it('a host outside the list: 403 with the reason, the CONNECT refused, and a line naming the input', async () => {
    const started = Date.now();
    const result = await inSandbox(
      'curl -sS http://outside.todo-agent.test/data?secret=1; curl -sS https://outside.todo-agent.test/ 2>&1',
    );
    expect(result.output).toContain(
      'todo-agent refused outside.todo-agent.test:80: outside.todo-agent.test is not in the allowlist. ' +
        "To allow it, add outside.todo-agent.test to the workflow's allowed_hosts input.",
    );
    expect(result.output).toMatch(/CONNECT tunnel failed, response 403/);
    expect(result.output.trim().split('\n').slice(-2)).toEqual([
      "[todo-agent: the network gate refused outside.todo-agent.test:80: outside.todo-agent.test is not in the allowlist; to allow it, add outside.todo-agent.test to the workflow's allowed_hosts input]",
      "[todo-agent: the network gate refused outside.todo-agent.test:443: outside.todo-agent.test is not in the allowlist; to allow it, add outside.todo-agent.test to the workflow's allowed_hosts input]",
    ]);
    // Each refusal is kept, without the path it asked for.
    const kept = gate.refusedSince(started);
    expect(kept.map(({ host, port }) => `${host}:${port}`)).toEqual([
      'outside.todo-agent.test:80',
      'outside.todo-agent.test:443',
    ]);
    expect(JSON.stringify(kept)).not.toContain('secret');
  });

  it('a tunnel to an allowed host that names another in its TLS hello (domain fronting): an alert, a line naming it', async () => {
    const before = git.requests.length;
    const result = await inSandbox(
      `curl -sS --cacert ca.pem --connect-to front.todo-agent.test:443:${GIT_HOST}:443 https://front.todo-agent.test/hello 2>&1; ` +
        `curl -sS --cacert ca.pem https://${GIT_HOST}/hello`,
    );
    expect(result.output).toMatch(/unrecognized name/i);
    expect(result.output).toContain(`hello from ${GIT_HOST}\n`);
    expect(result.output.trim().split('\n').at(-1)).toBe(
      `[todo-agent: the network gate refused front.todo-agent.test:443: front.todo-agent.test is not ${GIT_HOST}, the host this tunnel was allowed for]`,
    );
    // The server saw the second request alone.
    expect(git.requests.slice(before)).toEqual(['GET /hello']);
  });

  it('an allowed name that leads to loopback unmarked (DNS rebinding): refused, by a wildcard and by a registry setting alike', async () => {
    const before = npm.requests.length;
    const result = await inSandbox(
      'curl -sS http://evil.wild.todo-agent.test/; echo; curl -sS http://scoped.todo-agent.test/',
    );
    expect(result.output).toContain(
      'todo-agent refused evil.wild.todo-agent.test:80: evil.wild.todo-agent.test resolves to a loopback address (127.0.0.1); only a host named in allowed_hosts may lead there.',
    );
    expect(result.output).toContain(
      'todo-agent refused scoped.todo-agent.test:80: scoped.todo-agent.test resolves to a loopback address',
    );
    expect(npm.requests.length).toBe(before);
  });

  it('GitHub’s API and the model’s endpoint: refused unless allowed_hosts names them; an IP address: refused', async () => {
    const result = await inSandbox(
      'curl -sS http://api.github.com/; echo; curl -sS http://model.todo-agent.test/; echo; curl -sS http://169.254.169.254/latest/meta-data/',
    );
    expect(result.output).toContain(
      "api.github.com is GitHub's API: the tools reach it only when allowed_hosts names it",
    );
    expect(result.output).toContain("model.todo-agent.test is the model's API endpoint");
    expect(result.output).toContain(
      '[todo-agent: the network gate refused 169.254.169.254:80: 169.254.169.254 is an IP address that the allowlist does not name',
    );
  });

  it('decides at once what the toolchains’ answers cannot change, and waits for them on any other name', async () => {
    const early = await openSandbox({ workspace: ws, network: 'gated', home });
    onTestFinished(() => early.close());
    const waiting = await NetworkGate.open({
      sandbox: early,
      toolchains: new Promise(() => undefined), // they never answer here
      allowedHosts: allowed.rules,
      github: { serverUrl: 'https://github.com', apiUrl: 'https://api.github.com' },
      guarded: [{ host: 'model.todo-agent.test', what: "the model's API endpoint" }],
      env,
      resolver,
    });
    const outcome = (url: string) =>
      waiting.fetch(url).then(
        async (response) => await response.text(),
        (error: Error) => error.message,
      );
    const unlisted = outcome('http://unlisted.todo-agent.test/');
    expect(
      await Promise.all([
        outcome('http://169.254.169.254/latest/meta-data/'),
        outcome('http://model.todo-agent.test/'),
        outcome('http://api.github.com/'),
        outcome(`http://localhost:${servicePort}/`),
      ]),
    ).toEqual([
      "the network gate refused 169.254.169.254:80: 169.254.169.254 is an IP address that the allowlist does not name (it allows host names); to allow it, add 169.254.169.254 to the workflow's allowed_hosts input",
      "the network gate refused model.todo-agent.test:80: model.todo-agent.test is the model's API endpoint: the tools reach it only when allowed_hosts names it; to allow it, add model.todo-agent.test to the workflow's allowed_hosts input",
      "the network gate refused api.github.com:80: api.github.com is GitHub's API: the tools reach it only when allowed_hosts names it; to allow it, add api.github.com to the workflow's allowed_hosts input",
      'the runner’s own service\n',
    ]);
    expect(await Promise.race([unlisted, Promise.resolve('still waiting for the toolchains')])).toBe(
      'still waiting for the toolchains',
    );
  });

  it('runs a command before the toolchains answer: a refusal the known list decides comes at once, any other name waits', async () => {
    const early = await openSandbox({ workspace: ws, network: 'gated', home });
    onTestFinished(() => early.close());
    await NetworkGate.open({
      sandbox: early,
      toolchains: new Promise(() => undefined), // they never answer here
      allowedHosts: allowed.rules,
      github: { serverUrl: 'https://github.com', apiUrl: 'https://api.github.com' },
      env,
      resolver,
    });
    const result = await runCommand(
      "curl -s -o /dev/null -w 'metadata %{http_code}\\n' http://169.254.169.254/latest/meta-data/; " +
        'curl -s -o /dev/null --max-time 2 http://unlisted.todo-agent.test/; echo "unlisted exit $?"',
      { cwd: ws, env, timeoutMs: 30_000, sandbox: early },
    );
    expect(result.timedOut).toBe(false);
    expect(result.output).toContain('metadata 403\n');
    // curl's own timeout (28): the name is still waiting for the toolchains' answers, which never come.
    expect(result.output).toContain('unlisted exit 28\n');
    expect(result.output).toContain(
      '[todo-agent: the network gate refused 169.254.169.254:80: 169.254.169.254 is an IP address that the allowlist does not name',
    );
  });

  it('reaches no abstract Unix socket of the runner’s (they belong to the runner’s network namespace)', async () => {
    const name = `todo-agent-gate-${process.pid}`;
    const heard: string[] = [];
    const abstract = createTcpServer((socket) => {
      heard.push('connection');
      socket.destroy();
    });
    await new Promise<void>((resolve) => abstract.listen(`\0${name}`, resolve));
    try {
      const result = await inSandbox(
        `/usr/bin/python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('\\0${name}')" 2>&1 | tail -1`,
      );
      expect({ output: result.output, heard }).toEqual({
        output: 'ConnectionRefusedError: [Errno 111] Connection refused\n',
        heard: [],
      });
    } finally {
      await new Promise((resolve) => abstract.close(resolve));
    }
  });

  it('a tool that ignores the proxy (raw TCP, git://, a UDP query, its own lookup) fails at once with the reason', async () => {
    const result = await inSandbox(
      [
        `(exec 3<>/dev/tcp/127.0.0.1/${tcpPort}) 2>&1`,
        `git clone -q git://127.0.0.1:${tcpPort}/probe.git 2>&1`,
        // As a resolver sends a query: on a connected socket, so that an unreachable port is reported.
        `/usr/bin/python3 -c "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(5); s.connect(('127.0.0.1', ${udpPort})); s.send(b'q'); s.recv(512)" 2>&1 | tail -1`,
        `/usr/bin/python3 -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'q', ('192.0.2.53', 53))" 2>&1 | tail -1`,
        `curl -sS --noproxy '*' http://${NPM_HOST}/ 2>&1`,
        'exit 1',
      ].join('; '),
    );
    expect(result.output).toMatch(/\/dev\/tcp\/127\.0\.0\.1\/\d+: Connection refused/);
    expect(result.output).toMatch(/unable to connect to 127\.0\.0\.1[^]*Connection refused/);
    expect(result.output).toContain('ConnectionRefusedError');
    expect(result.output).toMatch(/OSError: \[Errno 101\] Network is unreachable/);
    expect(result.output).toContain(`Could not resolve host: ${NPM_HOST}`);
    // Its own loopback's port refused it: how to reach the runner's; the host it looked up: how hosts are reached.
    expect(result.output.trim().split('\n').slice(-2)).toEqual([
      `[todo-agent: nothing listens on port ${tcpPort} of the sandbox's own loopback: a service the job runs on the runner's localhost:${tcpPort} is reached once the workflow's allowed_hosts input names \`localhost:${tcpPort}\` (else the service is not running)]`,
      AROUND_THE_GATE_NOTE,
    ]);
    expect({ tcp: tcpHeard, udp: udpHeard }).toEqual({ tcp: [], udp: [] });
  });
});

describe("a read-only sandbox answered by the gate (the task tool's explore helpers)", () => {
  it("keeps to the same list, tells the gate's watchers, cannot change the workspace, and closes alone", async () => {
    const sibling = await openSibling(sandbox, undefined, 'read-only');
    const heard: string[] = [];
    const unwatch = gate.watch(({ host, port }) => heard.push(`${host}:${port}`));
    const started = Date.now();
    try {
      const result = await runCommand(
        `touch probe.txt; echo "touch: $?"; curl -sS -o /dev/null -w 'registry: %{http_code}\\n' http://${NPM_HOST}/gate-left; curl -sS http://sibling-out.todo-agent.test/ 2>&1`,
        { cwd: ws, env, timeoutMs: 60_000, sandbox: sibling },
      );
      expect(result.output).toContain('Read-only file system');
      expect(result.output).toContain('touch: 1');
      expect(result.output).toContain('registry: 200');
      expect(result.output.trim().split('\n').at(-1)).toBe(
        "[todo-agent: the network gate refused sibling-out.todo-agent.test:80: sibling-out.todo-agent.test is not in the allowlist; to allow it, add sibling-out.todo-agent.test to the workflow's allowed_hosts input]",
      );
      // The run hears of it (its tally, the checklist's footer), as of its own calls' refusals.
      expect(heard).toEqual(['sibling-out.todo-agent.test:80']);
      expect(gate.refusedSince(started).map(({ host }) => host)).toEqual(['sibling-out.todo-agent.test']);
    } finally {
      unwatch();
      sibling.close();
    }
    // The run's sandbox and its gate go on after the sibling closed.
    const after = await inSandbox(
      `curl -sS -o /dev/null -w 'registry: %{http_code}' http://${NPM_HOST}/gate-left`,
    );
    expect(after.output).toContain('registry: 200');
  });
});
