// The toolchains' answers read into rules, and the toolchains asked for real in a sandbox of their own beside
// a gated one's, where a hostile one on the PATH runs as the tools do (no route out, not as us), and nothing a
// command of the tools wrote (in HOME, the tool cache, /tmp, the work tree) reaches what they read.
import { createServer } from 'node:net';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  askToolchains,
  PROBES,
  probeSections,
  rulesFromEnv,
  rulesFromProbes,
  unansweredToolchains,
} from '../../src/network/discover.js';
import { openSandbox } from '../../src/sandbox/setup.js';
import { runCommand } from '../../src/sandbox/commands/run-command.js';

const probes = (sections: Record<string, string>) =>
  Object.entries(sections)
    .map(([name, text]) => `\n@@todo-agent-probe ${name}\n${text}`)
    .join('');

const hosts = (rules: ReadonlyArray<{ host: string; port?: number; source: string }>) =>
  rules.map(({ host, port, source }) => `${host}${port ? `:${port}` : ''} ${source}`);

describe('rulesFromProbes', () => {
  it('reads npm’s registry and each scope’s from its JSON configuration', () => {
    const npm = JSON.stringify({
      registry: 'https://npm.mirror.example/',
      '@acme:registry': 'https://npm.acme.example:8443/',
      '//npm.acme.example/:_authToken': 'secret',
      cache: '/home/runner/.npm',
    });
    expect(hosts(rulesFromProbes(probes({ npm })))).toEqual([
      'npm.mirror.example npm registry',
      'npm.acme.example:8443 npm registry of @acme',
    ]);
  });

  it('reads pip’s index, extra indexes and find-links, and its own default only when no index is set', () => {
    const pypi = 'https://default-index.example/simple\nhttps://default-files.example/\n';
    const configured =
      "global.extra-index-url='https://extra.example/simple file:///opt/local'\n:env:.find-links='http://links.example/'\n";
    expect(hosts(rulesFromProbes(probes({ pip: configured, pypi })))).toEqual([
      "default-index.example pip's default index",
      "default-files.example pip's default index",
      'extra.example pip extra index',
      'links.example pip find-links',
    ]);
    const own = ":env:.index-url='https://nexus.example/repository/pypi/simple'\n";
    expect(hosts(rulesFromProbes(probes({ pip: own, pypi })))).toEqual(['nexus.example pip index']);
    expect(hosts(rulesFromProbes(probes({ pip: "global.no-index='true'", pypi })))).toEqual([]);
  });

  it('reads GOPROXY’s proxies (not direct or off) and the checksum database GOSUMDB names', () => {
    expect(
      hosts(
        rulesFromProbes(
          probes({ go: 'https://goproxy.example,https://second.example|direct\nsum.example+key' }),
        ),
      ),
    ).toEqual(['goproxy.example GOPROXY', 'second.example GOPROXY', 'sum.example GOSUMDB']);
    expect(hosts(rulesFromProbes(probes({ go: 'off\nmysum+key https://sumdb.example/x' })))).toEqual([
      'sumdb.example GOSUMDB',
    ]);
  });

  it('reads RubyGems’ sources, cargo’s registries, apt’s sources of both formats and Maven’s live mirrors (not those it marks blocked)', () => {
    const output = probes({
      gem: '*** CURRENT SOURCES ***\n\nhttps://gems.example/\n',
      cargo:
        '[registries.acme]\nindex = "sparse+https://cargo.acme.example/index/"\n[source.mirror]\nregistry = "https://crates-mirror.example/"\n',
      apt: 'deb [signed-by=/k.gpg] http://apt.example/debian bookworm main\n# deb http://commented.example/ x\nTypes: deb\nURIs: https://deb822.example/ubuntu\nSuites: noble\n',
      maven:
        '<settings><!-- <mirror><url>http://example-in-a-comment.example/</url></mirror> --><mirrors><mirror><id>stock-blocker</id><url>http://0.0.0.0/</url><blocked>true</blocked></mirror><mirror><url>https://maven.mirror.example/repo</url><blocked>false</blocked></mirror><mirror><url>http://blocked-last.example/</url>\n  <blocked> true </blocked></mirror></mirrors></settings>',
    });
    expect(hosts(rulesFromProbes(output))).toEqual([
      'gems.example RubyGems source',
      'cargo.acme.example cargo registry',
      'crates-mirror.example cargo registry',
      'apt.example apt source',
      'deb822.example apt source',
      'maven.mirror.example Maven settings',
    ]);
  });

  it('reads a settings.xml of ~200 kB of unclosed `<mirror>`s and `<!--`s right (the worst case of a scan per `<mirror>`)', () => {
    // A pattern tried at each `<mirror>` that scans on to the next `</mirror>` is quadratic here (1 MB took
    // 514 s on a runner); the mirrors and comments are now cut out in one pass: each indexOf starts where the
    // last span ended, and each span is tested once, so every character is looked at a bounded number of times.
    const maven = [
      `<settings><mirrors>${'<mirror>'.repeat(25_000)}<url>https://all-one-mirror.example/</url></mirror>`,
      '<mirror><url>http://blocked.example/</url><blocked>true</blocked></mirror>',
      `<mirror><url>https://live-last.example/</url></mirror></mirrors>${'<!--'.repeat(5_000)}`,
      '<url>https://after-unclosed-comment.example/</url></settings>',
    ].join('');
    expect(maven.length).toBeGreaterThan(200_000);
    expect(hosts(rulesFromProbes(probes({ maven })))).toEqual([
      'all-one-mirror.example Maven settings',
      'live-last.example Maven settings',
      'after-unclosed-comment.example Maven settings',
    ]);
  });

  it('splits the probes’ output by their header lines, and reads garbage as nothing', () => {
    expect([...probeSections(probes({ a: 'one', b: 'two\nlines' }))]).toEqual([
      ['a', 'one'],
      ['b', 'two\nlines'],
    ]);
    expect(rulesFromProbes(probes({ npm: '{not json', pip: 'x', go: '', apt: 'deb' }))).toEqual([]);
  });
});

describe('unansweredToolchains', () => {
  it('names the toolchains that had not answered, pip for its default too; all of them without an answer', () => {
    expect(unansweredToolchains(probes({ npm: '{}', late: 'pypi\ngo' }))).toEqual(['pip', 'go']);
    expect(unansweredToolchains(probes({ npm: '{}', late: '' }))).toEqual([]);
    expect(unansweredToolchains(undefined)).toEqual(['npm', 'pip', 'go', 'gem', 'cargo', 'apt', 'maven']);
    expect(unansweredToolchains(probes({ npm: '{}' }))).toHaveLength(7);
  });
});

describe('rulesFromEnv', () => {
  it('reads the variables that name an index or a registry', () => {
    expect(
      hosts(
        rulesFromEnv({
          PIP_EXTRA_INDEX_URL: 'https://a.example/simple https://b.example/simple',
          UV_DEFAULT_INDEX: 'https://uv.example/simple',
          CARGO_REGISTRIES_ACME_INDEX: 'sparse+https://cargo.example/',
          YARN_NPM_REGISTRY_SERVER: 'https://yarn.example',
          HTTPS_PROXY: 'http://not-a-registry.example:3128',
        }),
      ),
    ).toEqual([
      'a.example pip index',
      'b.example pip index',
      'uv.example uv index',
      'cargo.example cargo registry',
      'yarn.example yarn registry',
    ]);
  });
});

describe('askToolchains, when the run closes its tools first', () => {
  it('asks nothing, answers at once with every toolchain unanswered, and leaves no sandbox of its own behind', async () => {
    const ws = await mkdtemp(path.join(tmpdir(), 'todo-agent-discover-stop-'));
    const tools = await openSandbox({ workspace: ws, network: 'none' });
    try {
      const before = await readdir(tools.privateDir);
      const stop = new AbortController();
      // A question never answered (the run broke off before it was made) must not hold the probes' sandbox.
      const asking = askToolchains(tools, new Promise(() => undefined), stop.signal);
      stop.abort();
      const asked = await asking;
      expect(asked.rules).toEqual([]);
      expect(asked.unanswered).toEqual(expect.arrayContaining(['npm', 'pip', 'go']));
      expect(await readdir(tools.privateDir)).toEqual(before);
    } finally {
      tools.close();
      await rm(ws, { recursive: true, force: true });
    }
  });
});

describe('askToolchains in the sandbox', () => {
  const heard: string[] = [];
  const listener = createServer((socket) => {
    heard.push('connection');
    socket.destroy();
  });
  const cleanups: Array<() => Promise<unknown> | void> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('asks the real npm in a sandbox of its own, and runs a hostile toolchain there as the tools: no route out, never us', async () => {
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => listener.close(resolve)));
    const port = (listener.address() as { port: number }).port;
    const root = await mkdtemp(path.join(tmpdir(), 'todo-agent-discover-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    await chmod(root, 0o755);
    const ws = path.join(root, 'ws');
    // The runner's tool cache (what a setup step installed): the sandbox's /tmp is its own, so not root itself.
    const tools = path.join(root, 'tools');
    const bin = path.join(tools, 'bin');
    await mkdir(ws);
    await mkdir(bin, { recursive: true });
    // The work tree's own settings are not asked: the snapshot's are (given here).
    await writeFile(path.join(ws, '.npmrc'), '@evil:registry=https://npm.evil.example/\n');
    await mkdir(path.join(ws, '.cargo'));
    await writeFile(
      path.join(ws, '.cargo', 'config.toml'),
      '[registries.x]\nindex = "https://cargo.evil.example/"\n',
    );
    // A `pip` package on PYTHONPATH: Python is asked isolated, so it never runs.
    await mkdir(path.join(ws, 'py', 'pip'), { recursive: true });
    await writeFile(
      path.join(ws, 'py', 'pip', '__init__.py'),
      'print("https://pip.evil.example/")\nraise SystemExit(0)\n',
    );
    await writeFile(
      path.join(ws, 'py', 'pip', '__main__.py'),
      'print("global.index-url=\'https://pip.evil.example/\'")\n',
    );
    // A `gem` the runner put first on the PATH: it tells who it runs as (through the host name it names)
    // and tries to reach a server of the test's on the runner's loopback.
    await writeFile(
      path.join(bin, 'gem'),
      `#!/bin/sh\n(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null\necho "https://uid-$(id -u).hostile.example/"\n`,
    );
    await chmod(path.join(bin, 'gem'), 0o755);
    // A `go` that never answers: the list is made without it, and says so.
    await writeFile(path.join(bin, 'go'), '#!/bin/sh\nexec sleep 60\n');
    await chmod(path.join(bin, 'go'), 0o755);
    const sandbox = await openSandbox({ workspace: ws, network: 'gated', toolCache: tools });
    cleanups.push(() => sandbox.close());
    const env = {
      PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
      HOME: root,
      LANG: 'C.UTF-8',
      PYTHONPATH: path.join(ws, 'py'),
    };
    const asked = await askToolchains(sandbox, {
      env,
      projectFiles: {
        '.npmrc': '@acme:registry=https://npm.acme.example/\n',
        '.cargo/config.toml': '[registries.acme]\nindex = "sparse+https://cargo.acme.example/index/"\n',
        '../escape': 'registry=https://escape.evil.example/\n',
      },
    });
    const found = hosts(asked.rules);
    expect(found).toEqual(
      expect.arrayContaining([
        'npm.acme.example npm registry of @acme',
        'cargo.acme.example cargo registry',
        `uid-${sandbox.config.uid}.hostile.example RubyGems source`,
      ]),
    );
    expect(found.filter((host) => host.includes('evil'))).toEqual([]);
    expect(sandbox.config.uid).not.toBe(0);
    expect(heard).toEqual([]);
    expect(asked.unanswered).toContain('go');
    expect(asked.unanswered).not.toContain('npm');
  }, 60_000);

  it('reads nothing a command of the tools wrote: not in HOME, the tool cache, /tmp or the work tree', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'todo-agent-discover-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    await chmod(root, 0o755);
    const [ws, home, tools] = ['ws', 'home', 'tools'].map((name) => path.join(root, name)) as [
      string,
      string,
      string,
    ];
    await Promise.all([ws, home, tools].map((dir) => mkdir(dir)));
    const sandbox = await openSandbox({ workspace: ws, network: 'gated', home, toolCache: tools });
    cleanups.push(() => sandbox.close());
    const env = {
      PATH: `/tmp/bin:${tools}/bin:${ws}/bin:/usr/local/bin:/usr/bin:/bin`,
      HOME: home,
      LANG: 'C.UTF-8',
    };
    // A command plants a registry of its choosing in each place a toolchain of the probes looks.
    const script = (line: string) => `#!/bin/sh\necho '${line}'\n`;
    const planted = await runCommand(
      `mkdir -p /tmp/bin ${tools}/bin ${ws}/bin ~/.cargo && printenv NPM > /tmp/bin/npm && ` +
        `printenv GEM > ${tools}/bin/gem && printenv GO > ${ws}/bin/go && ` +
        `chmod 755 /tmp/bin/npm ${tools}/bin/gem ${ws}/bin/go && printenv CARGO > ~/.cargo/config.toml`,
      {
        cwd: ws,
        env: {
          ...env,
          NPM: script('{"registry":"https://tmp.evil.example/"}'),
          GEM: script('https://cache.evil.example/'),
          GO: script('https://tree.evil.example/'),
          CARGO: '[registries.x]\nindex = "https://home.evil.example/"\n',
        },
        timeoutMs: 30_000,
        sandbox,
      },
    );
    expect(planted.exitCode).toBe(0);
    // Asked in the tools' own sandbox, the probes would have read all four.
    const inTools = await runCommand(PROBES, {
      cwd: '/',
      env,
      timeoutMs: 30_000,
      sandbox,
      networkEnv: false,
    });
    const evil = (rules: ReadonlyArray<{ host: string }>) =>
      rules.map(({ host }) => host).filter((host) => host.includes('evil'));
    expect(evil(rulesFromProbes(inTools.output)).sort()).toEqual([
      'cache.evil.example',
      'home.evil.example',
      'tmp.evil.example',
      'tree.evil.example',
    ]);
    const asked = await askToolchains(sandbox, {
      env,
      projectFiles: { '.cargo/config.toml': '[registries.acme]\nindex = "https://cargo.acme.example/"\n' },
    });
    expect(evil(asked.rules)).toEqual([]);
    expect(hosts(asked.rules)).toContain('cargo.acme.example cargo registry');
  }, 60_000);

  it('runs no `pip` package of the work tree or of the project files: Python is asked isolated, away from both', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'todo-agent-discover-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    await chmod(root, 0o755);
    const ws = path.join(root, 'ws');
    // The package writes where the test looks (the workspace, writable in the sandbox) and names a host.
    const pip = `import pathlib\npathlib.Path(${JSON.stringify(ws)}, 'pip-ran').touch()\nprint("global.index-url='https://pip.evil.example/'")\n`;
    const planted = { 'pip/__init__.py': pip, 'pip/__main__.py': pip };
    for (const [file, text] of Object.entries(planted)) {
      await mkdir(path.dirname(path.join(ws, file)), { recursive: true });
      await writeFile(path.join(ws, file), text);
    }
    await chmod(ws, 0o777);
    const sandbox = await openSandbox({ workspace: ws, network: 'gated' });
    cleanups.push(() => sandbox.close());
    const env = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: root, LANG: 'C.UTF-8' };
    // As the snapshot would hand it over had it held one: written into the probe's own directory.
    const found = hosts((await askToolchains(sandbox, { env, projectFiles: planted })).rules);
    expect(found.filter((host) => host.includes('evil'))).toEqual([]);
    await expect(readFile(path.join(ws, 'pip-ran'))).rejects.toThrow(/ENOENT/);
  }, 60_000);
});
