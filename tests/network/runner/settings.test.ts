// The runner's settings read on the trusted side: the copies the tools see, the client keys hidden, the CA
// files shown, the registries marked as the runner's own; nothing read from the workspace.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRunnerSettings, settingsFiles } from '../../../src/network/runner/settings.js';

const CERT = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';
const root = await mkdtemp(path.join(tmpdir(), 'todo-agent-runner-settings-'));
afterAll(() => rm(root, { recursive: true, force: true }));

describe('settingsFiles', () => {
  it('names where npm, pip and Maven read the runner’s settings', () => {
    const oldKinds = (files: ReturnType<typeof settingsFiles>) =>
      files.filter(({ kind }) => ['npm', 'pip', 'maven'].includes(kind));
    expect(
      oldKinds(settingsFiles({ XDG_CONFIG_DIRS: '/a:/b', PIP_CONFIG_FILE: '/p/pip.conf' }, '/home/r')),
    ).toEqual([
      { kind: 'npm', file: '/home/r/.npmrc' },
      { kind: 'pip', file: '/etc/pip.conf' },
      { kind: 'pip', file: '/a/pip/pip.conf' },
      { kind: 'pip', file: '/b/pip/pip.conf' },
      { kind: 'pip', file: '/home/r/.config/pip/pip.conf' },
      { kind: 'pip', file: '/home/r/.pip/pip.conf' },
      { kind: 'pip', file: '/p/pip.conf' },
      { kind: 'maven', file: '/home/r/.m2/settings.xml' },
    ]);
    // Named twice, read once.
    expect(
      settingsFiles({ PIP_CONFIG_FILE: '/home/r/.pip/pip.conf' }, '/home/r').filter(
        ({ file }) => file === '/home/r/.pip/pip.conf',
      ),
    ).toHaveLength(1);
    expect(
      settingsFiles({ NPM_CONFIG_USERCONFIG: '/t/.npmrc', PIP_CONFIG_FILE: '/dev/null' }, undefined),
    ).toEqual([
      { kind: 'npm', file: '/t/.npmrc' },
      { kind: 'pip', file: '/etc/pip.conf' },
      { kind: 'pip', file: '/etc/xdg/pip/pip.conf' },
      { kind: 'gem', file: '/etc/gemrc' },
    ]);
  });

  it('names where yarn, Gradle, cargo, Go and RubyGems read them, their variables minded', () => {
    const files = (env: NodeJS.ProcessEnv) =>
      settingsFiles(env, '/home/r').filter(({ kind }) => !['npm', 'pip', 'maven'].includes(kind));
    expect(files({})).toEqual([
      { kind: 'yarn', file: '/home/r/.yarnrc.yml' },
      { kind: 'yarn-classic', file: '/home/r/.yarnrc' },
      { kind: 'gradle', file: '/home/r/.gradle/gradle.properties' },
      { kind: 'cargo', file: '/home/r/.cargo/config.toml' },
      { kind: 'cargo', file: '/home/r/.cargo/config' },
      { kind: 'go', file: '/home/r/.config/go/env' },
      { kind: 'gem', file: '/etc/gemrc' },
      { kind: 'gem', file: '/home/r/.gemrc' },
      { kind: 'gem', file: '/home/r/.config/gem/gemrc' },
    ]);
    expect(
      files({
        GRADLE_USER_HOME: '/g',
        CARGO_HOME: '/c',
        GOENV: '/e/go.env',
        GEMRC: '/x/gemrc:relative/gemrc',
        XDG_CONFIG_HOME: '/cfg',
        YARN_RC_FILENAME: '.corp.yml',
      }).map(({ file }) => file),
    ).toEqual([
      '/home/r/.yarnrc.yml',
      '/home/r/.corp.yml',
      '/home/r/.yarnrc',
      '/g/gradle.properties',
      '/c/config.toml',
      '/c/config',
      '/e/go.env',
      '/etc/gemrc',
      '/home/r/.gemrc',
      '/cfg/gem/gemrc',
      '/x/gemrc',
    ]);
    // GOENV=off: Go reads no file.
    expect(files({ GOENV: 'off' }).some(({ kind }) => kind === 'go')).toBe(false);
  });
});

describe('readRunnerSettings', () => {
  it('shows filtered copies and certificate files, hides client keys, and marks the registries as the runner’s', async () => {
    const home = path.join(root, 'home');
    const temp = path.join(root, 'temp');
    const workspace = path.join(root, 'work');
    await mkdir(path.join(home, '.config', 'pip'), { recursive: true });
    await mkdir(path.join(home, '.m2'), { recursive: true });
    await mkdir(temp, { recursive: true });
    await mkdir(workspace, { recursive: true });
    await writeFile(
      path.join(home, '.npmrc'),
      [
        '@corp:registry=https://npm.corp.test:8443/',
        '//npm.corp.test:8443/:_authToken=npm_runnerToken0001',
        `cafile=${path.join(temp, 'ca.pem')}`,
        `keyfile=${path.join(home, 'client.key')}`,
        '',
      ].join('\n'),
    );
    await writeFile(path.join(temp, 'ca.pem'), CERT);
    await writeFile(path.join(temp, 'not-a-ca.pem'), `${CERT}-----BEGIN PRIVATE KEY-----\n`);
    await writeFile(
      path.join(home, '.config', 'pip', 'pip.conf'),
      `[global]\nindex-url = http://pipuser:pip_secret0001@10.1.2.3:3141/simple\nclient_cert = ${path.join(home, 'pip.pem')}\n`,
    );
    await writeFile(path.join(workspace, 'ca.pem'), CERT);
    await writeFile(
      path.join(home, '.m2', 'settings.xml'),
      '<servers><server><password>pw</password></server></servers><mirrors><mirror><url>https://maven.corp.test/m2</url></mirror></mirrors>',
    );
    const settings = await readRunnerSettings(
      {
        NODE_EXTRA_CA_CERTS: path.join(temp, 'not-a-ca.pem'),
        SSL_CERT_FILE: path.join(workspace, 'ca.pem'),
        PIP_EXTRA_INDEX_URL: 'https://extra.corp.test/simple',
      },
      home,
      workspace,
    );
    // The host's own /etc/pip.conf may add its lines: only this test's files are compared.
    const ours = <T extends { path: string }>(list: T[]) => list.filter((file) => file.path.startsWith(root));
    expect(ours(settings.shown)).toEqual([
      {
        path: path.join(home, '.npmrc'),
        text: `@corp:registry=https://npm.corp.test:8443/\ncafile=${path.join(temp, 'ca.pem')}\n`,
      },
      {
        path: path.join(home, '.config', 'pip', 'pip.conf'),
        text: '[global]\nindex-url = http://10.1.2.3:3141/simple\n',
      },
      {
        path: path.join(home, '.m2', 'settings.xml'),
        text: '<mirrors><mirror><url>https://maven.corp.test/m2</url></mirror></mirrors>',
      },
      { path: path.join(temp, 'ca.pem'), text: CERT, ifHidden: true },
    ]);
    expect(JSON.stringify(settings)).not.toMatch(/npm_runnerToken0001|pip_secret0001|pipuser|<password>/);
    expect(settings.hidden.filter((file) => file.startsWith(root))).toEqual([
      path.join(home, 'client.key'),
      path.join(home, 'pip.pem'),
    ]);
    expect(settings.rules.filter(({ host }) => host.endsWith('.test') || host === '10.1.2.3')).toEqual([
      { host: 'npm.corp.test', port: 8443, source: "the runner's npm settings", runner: true },
      { host: '10.1.2.3', port: 3141, source: "the runner's pip settings", runner: true },
      { host: 'maven.corp.test', source: 'Maven settings', runner: true },
      { host: 'extra.corp.test', source: 'pip index', runner: true },
    ]);
  });

  it('reads nothing in the workspace and nothing missing', async () => {
    const workspace = path.join(root, 'ws2');
    await mkdir(workspace, { recursive: true });
    await writeFile(path.join(workspace, '.npmrc'), 'registry=https://from-the-work-tree.test/\n');
    const settings = await readRunnerSettings(
      { NPM_CONFIG_USERCONFIG: path.join(workspace, '.npmrc'), XDG_CONFIG_DIRS: path.join(root, 'none') },
      path.join(root, 'missing-home'),
      workspace,
    );
    expect(settings.rules.filter(({ host }) => host.includes('work-tree'))).toEqual([]);
    expect(settings.shown.filter(({ path: shown }) => shown.startsWith(root))).toEqual([]);
  });

  it('reads no runner file that is a link into the workspace, nor one too large to be settings', async () => {
    const workspace = path.join(root, 'ws3');
    const home = path.join(root, 'home3');
    await mkdir(workspace, { recursive: true });
    await mkdir(home, { recursive: true });
    await writeFile(path.join(workspace, '.npmrc'), 'registry=https://linked-work-tree.test/\n');
    await symlink(path.join(workspace, '.npmrc'), path.join(home, '.npmrc'));
    const big = path.join(root, 'big.pem');
    await writeFile(big, CERT + 'x'.repeat(5 * 2 ** 20));
    const settings = await readRunnerSettings(
      { XDG_CONFIG_DIRS: path.join(root, 'none'), SSL_CERT_FILE: big },
      home,
      workspace,
    );
    expect(settings.rules.filter(({ host }) => host.includes('linked-work-tree'))).toEqual([]);
    // The host's own /etc/pip.conf and its CA bundle may be shown; nothing of this test's files is.
    expect(settings.shown.filter(({ path: shown }) => shown.startsWith(root))).toEqual([]);
  });
});

describe('readRunnerSettings, the other toolchains', () => {
  it('shows yarn’s, Gradle’s, cargo’s, Go’s and RubyGems’ settings without their secrets, and hides what is code or keys', async () => {
    const home = path.join(root, 'home-kin');
    const workspace = path.join(root, 'ws-kin');
    const ca = path.join(root, 'kin-ca');
    for (const dir of ['.cargo', '.gradle/init.d', '.config/go', ''].map((d) => path.join(home, d)))
      await mkdir(dir, { recursive: true });
    await mkdir(workspace, { recursive: true });
    await mkdir(ca, { recursive: true });
    await writeFile(path.join(ca, 'ca.pem'), CERT);
    await writeFile(path.join(home, 'corp-ca.pem'), CERT);
    await writeFile(
      path.join(home, '.yarnrc.yml'),
      'npmRegistryServer: "https://npm.corp.example"\nnpmAuthToken: s3cr3t-yarn\nhttpsCaFilePath: ${CORP_CA}/ca.pem\nhttpsKeyFilePath: /home/r/yarn.key\n',
    );
    await writeFile(
      path.join(home, '.npmrc'),
      'cafile=${HOME}/corp-ca.pem\n//npm.corp.example/:_authToken=s3cr3t-npm\n',
    );
    await writeFile(
      path.join(home, '.gradle', 'gradle.properties'),
      'corpRepoUrl=https://maven.corp.example:8081/all\ncorpRepoPassword=s3cr3t-gradle\n',
    );
    await writeFile(path.join(home, '.gradle', 'init.d', 'corp.init.gradle'), 'password = "s3cr3t-init"\n');
    await writeFile(
      path.join(home, '.cargo', 'config.toml'),
      '[registries.corp]\nindex = "sparse+http://10.0.0.7:8080/index/"\ntoken = "s3cr3t-cargo"\n[http]\ncainfo = "corp-ca.pem"\n',
    );
    await writeFile(
      path.join(home, '.cargo', 'credentials.toml'),
      '[registries.corp]\ntoken = "s3cr3t-cred"\n',
    );
    await writeFile(path.join(home, '.config', 'go', 'env'), 'GOPROXY=http://ci:s3cr3t-go@127.0.0.1:3000\n');
    // A gemrc that is a directory, and a second one too large to be settings: neither is read, both are
    // hidden (the tools would see them unfiltered), each said once.
    await mkdir(path.join(home, '.gemrc'));
    await writeFile(
      path.join(root, 'huge-gemrc'),
      `:sources:\n- https://huge.corp.example/\n${'#'.repeat(5 * 2 ** 20)}\n`,
    );
    const env = {
      HOME: home,
      CORP_CA: ca,
      XDG_CONFIG_DIRS: path.join(root, 'none'),
      GEMRC: path.join(root, 'huge-gemrc'),
    };
    const warnings: string[] = [];
    const settings = await readRunnerSettings(env, home, workspace, (line) => warnings.push(line));
    const ours = settings.shown.filter((file) => file.path.startsWith(root));
    const shown = Object.fromEntries(ours.map((file) => [path.relative(root, file.path), file.text]));
    expect(shown).toEqual({
      // npm's ${HOME} and yarn's ${CORP_CA} resolved, as the toolchains would, in the copies the tools see.
      'home-kin/.npmrc': `cafile=${path.join(home, 'corp-ca.pem')}\n`,
      'home-kin/.yarnrc.yml': `npmRegistryServer: "https://npm.corp.example"\nhttpsCaFilePath: ${ca}/ca.pem\n`,
      'home-kin/.gradle/gradle.properties': 'corpRepoUrl=https://maven.corp.example:8081/all\n',
      'home-kin/.cargo/config.toml':
        '[registries.corp]\nindex = "sparse+http://10.0.0.7:8080/index/"\n[http]\ncainfo = "corp-ca.pem"\n',
      'home-kin/.config/go/env': 'GOPROXY=http://127.0.0.1:3000\n',
      // The CA files: npm's, yarn's and cargo's (relative to the folder above ~/.cargo), each once.
      'home-kin/corp-ca.pem': CERT,
      'kin-ca/ca.pem': CERT,
    });
    expect(JSON.stringify(settings)).not.toMatch(/s3cr3t/);
    expect(settings.hidden.filter((file) => file.startsWith(root))).toEqual([
      path.join(home, '.gradle', 'init.d'),
      path.join(home, '.cargo', 'credentials.toml'),
      path.join(home, '.gemrc'),
      path.join(root, 'huge-gemrc'),
    ]);
    expect(warnings.filter((line) => line.includes(root))).toEqual([
      `The runner's settings file ${path.join(home, '.gemrc')} is hidden from the tools: it is not a regular file.`,
      `The runner's settings file ${path.join(root, 'huge-gemrc')} is hidden from the tools: it is larger than 4 MiB.`,
    ]);
    expect(settings.hidden).toContain('/home/r/yarn.key');
    const described = settings.rules
      .filter((rule) => rule.runner && /corp\.example|10\.0\.0\.7|127\.0\.0\.1/.test(rule.host))
      .map((rule) => `${rule.host}${rule.port ? `:${rule.port}` : ''} (${rule.source})`);
    expect(described).toEqual([
      "npm.corp.example (the runner's yarn settings)",
      "maven.corp.example:8081 (the runner's Gradle properties)",
      "10.0.0.7:8080 (the runner's cargo settings)",
      "127.0.0.1:3000 (the runner's Go settings)",
    ]);
  });

  it('reads no cargo config that is a link into the workspace', async () => {
    const home = path.join(root, 'home-link');
    const workspace = path.join(root, 'ws-link');
    await mkdir(path.join(home, '.cargo'), { recursive: true });
    await mkdir(workspace, { recursive: true });
    await writeFile(
      path.join(workspace, 'config.toml'),
      '[registries.x]\nindex = "https://linked.corp.example/"\n',
    );
    await symlink(path.join(workspace, 'config.toml'), path.join(home, '.cargo', 'config.toml'));
    const settings = await readRunnerSettings({ XDG_CONFIG_DIRS: path.join(root, 'none') }, home, workspace);
    expect(settings.rules.filter(({ host }) => host.startsWith('linked'))).toEqual([]);
    expect(settings.shown.filter(({ path: shown }) => shown.startsWith(root))).toEqual([]);
  });
});

describe('readRunnerSettings, what a review found', () => {
  it('never opens a path under /proc, /sys or /dev, nor waits on a FIFO; hides what it cannot read', async () => {
    const home = path.join(root, 'home-special');
    await mkdir(path.join(home, '.config', 'pip'), { recursive: true });
    await mkdir(path.join(home, '.pip'), { recursive: true });
    // A FIFO where pip's settings are: opened for reading, it would wait for a writer for ever.
    execFileSync('mkfifo', [path.join(home, '.config', 'pip', 'pip.conf')]);
    // A link to the environment: stat calls it a regular file of 0 bytes, and it reads as one line.
    await symlink('/proc/self/environ', path.join(home, '.pip', 'pip.conf'));
    const warnings: string[] = [];
    const settings = await readRunnerSettings(
      // `/dev/null` says "no settings file": skipped without a word.
      { XDG_CONFIG_DIRS: path.join(root, 'none'), PIP_CONFIG_FILE: '/proc/self/environ', GEMRC: '/dev/null' },
      home,
      path.join(root, 'ws-special'),
      (line) => warnings.push(line),
    );
    expect(
      settings.shown.filter(({ path: shown }) => shown.startsWith(root) || shown.startsWith('/proc')),
    ).toEqual([]);
    // The host's own files may be hidden or said too: only this test's paths are compared.
    const ours = (file: string) => file.includes(root) || file.includes('/proc/') || file.includes('/dev/');
    expect(settings.hidden.filter(ours)).toEqual([path.join(home, '.config', 'pip', 'pip.conf')]);
    expect(warnings.filter(ours)).toEqual([
      `The runner's settings file ${path.join(home, '.config', 'pip', 'pip.conf')} is hidden from the tools: it is not a regular file.`,
      `The runner's settings file ${path.join(home, '.pip', 'pip.conf')} is not read: it lies under /proc, /sys or /dev.`,
      "The runner's settings file /proc/self/environ is not read: it lies under /proc, /sys or /dev.",
    ]);
  });

  it('writes a CA path resolved from a variable into the line that names the CA file, and no other', async () => {
    const home = path.join(root, 'home-ca-line');
    const ca = path.join(root, 'ca-line');
    const files = {
      [path.join(ca, 'ca.pem')]: CERT,
      [path.join(home, '.npmrc')]:
        'init-module=${CORP_CA}/ca.pem\ncafile=${CORP_CA}/ca.pem\nregistry=https://npm.corp.test/${CORP_CA}/ca.pem\n',
      [path.join(home, '.yarnrc.yml')]:
        'caFilePath: "${CORP_CA}/ca.pem"\nhttpsCaFilePath: ${CORP_CA}/ca.pem # ${CORP_CA}/ca.pem\ninitScope: ${CORP_CA}/ca.pem\n',
    };
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, text);
    }
    const settings = await readRunnerSettings(
      { XDG_CONFIG_DIRS: path.join(root, 'none'), CORP_CA: ca },
      home,
      path.join(root, 'ws-ca-line'),
    );
    const shown = Object.fromEntries(
      settings.shown
        .filter((file) => file.path.startsWith(root))
        .map((file) => [path.relative(root, file.path), file.text]),
    );
    expect(shown).toEqual({
      'home-ca-line/.npmrc': `init-module=\${CORP_CA}/ca.pem\ncafile=${ca}/ca.pem\nregistry=https://npm.corp.test/\${CORP_CA}/ca.pem\n`,
      'home-ca-line/.yarnrc.yml': `caFilePath: "${ca}/ca.pem"\nhttpsCaFilePath: ${ca}/ca.pem # \${CORP_CA}/ca.pem\ninitScope: \${CORP_CA}/ca.pem\n`,
      'ca-line/ca.pem': CERT,
    });
  });
});
