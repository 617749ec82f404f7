// The runner's own settings in a run of dist/index.js under the default allowlist, as a self-hosted runner of
// an organization has them: its ~/.npmrc names a scoped registry served over HTTPS with a CA of its own (the
// CA file in RUNNER_TEMP, which the sandbox hides) and holds a token; its pip.conf names a mirror on the
// runner's loopback, with credentials in the URL. Both install with no allowed_hosts line, and bash never sees
// a token, a password or the client key the settings name.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toolUse } from '../support/anthropic/server.js';
import { ROOT } from '../support/action-harness.js';
import { HELLO_FILES, oneItemScript } from '../support/anthropic/scenarios.js';
import { selfSigned } from '../support/network/git-https.js';
import {
  makeWheel,
  startNpmRegistry,
  startSimpleIndex,
  type LocalServer,
} from '../support/network/registries.js';
import { createWorld, type World } from './setup.js';

const NPM_HOST = 'npm.corp.todo-agent.test';
const PRELOAD = join(ROOT, 'tests/support/network/resolver-preload.mjs');
const NPM_TOKEN = 'npm_runnerSecretToken000000000001';
const PIP_PASSWORD = 'pip_runnerSecretPassword0001';

let world: World | undefined;
const servers: LocalServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await world?.close();
  for (const server of servers.splice(0)) await server.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  world = undefined;
});

const INSTALL_ITEM = { text: 'Install from the mirrors', activeForm: 'Installing' };

describe("the runner's own settings", () => {
  it('reach the tools without their secrets: a scoped HTTPS registry with its own CA and a loopback pip mirror install with no allowed_hosts line', async () => {
    const certs = await mkdtemp(join(tmpdir(), 'todo-agent-corp-ca-'));
    dirs.push(certs);
    const tls = await selfSigned(certs, NPM_HOST);
    const registry = await startNpmRegistry(
      [
        { name: '@corp/left', version: '1.0.0' },
        { name: '@corp/right', version: '1.2.0', dependencies: { '@corp/left': '^1.0.0' } },
      ],
      `https://${NPM_HOST}/`,
      tls,
    );
    servers.push(registry);
    const wheels = await mkdtemp(join(tmpdir(), 'todo-agent-corp-wheels-'));
    dirs.push(wheels);
    const pypi = await startSimpleIndex([await makeWheel(wheels, 'corp_probe', '0.1', 39)]);
    servers.push(pypi);

    world = await createWorld(
      oneItemScript(
        INSTALL_ITEM,
        [
          toolUse('bash', {
            command: `npm ci --no-audit --no-fund --loglevel=error 2>&1 && node -e "console.log(require('@corp/right'))"`,
            timeout: 300,
          }),
          toolUse('bash', {
            command:
              '/usr/bin/python3 -m pip install -q --disable-pip-version-check --target /tmp/site corp-probe 2>&1 && PYTHONPATH=/tmp/site /usr/bin/python3 -c "import corp_probe; print(\'VALUE\', corp_probe.VALUE)"',
            timeout: 300,
          }),
          toolUse('bash', {
            command:
              'cat "$HOME/.npmrc" "$HOME/.config/pip/pip.conf"; echo ---; ls -A "$RUNNER_TEMP"; echo ---; cat "$HOME/client.key" 2>&1; env; grep -rs runnerSecret "$HOME" "$RUNNER_TEMP" /tmp; true',
          }),
        ],
        'Installed from both mirrors.',
      ),
      {
        files: {
          ...HELLO_FILES,
          'package.json': registry.project.packageJson,
          'package-lock.json': registry.project.lockfile,
          '.gitignore': 'node_modules/\n',
        },
      },
    );
    // The runner's files: its HOME's ~/.npmrc and pip.conf, a CA file and a client key beside them.
    const home = world.sandbox.home;
    // RUNNER_TEMP where a hosted runner has it, beside the workspace under HOME: the sandbox hides it.
    const runnerTemp = join(home, 'work', '_temp');
    await mkdir(join(home, '.config', 'pip'), { recursive: true });
    await mkdir(runnerTemp, { recursive: true });
    await writeFile(join(runnerTemp, 'corp-ca.pem'), tls.cert);
    await writeFile(join(runnerTemp, 'setup-credentials'), `${NPM_TOKEN}\n`);
    await writeFile(join(home, 'client.key'), `-----BEGIN PRIVATE KEY-----\n${NPM_TOKEN}\n`);
    await writeFile(
      join(home, '.npmrc'),
      [
        `@corp:registry=https://${NPM_HOST}/`,
        `//${NPM_HOST}/:_authToken=${NPM_TOKEN}`,
        `cafile=${join(runnerTemp, 'corp-ca.pem')}`,
        `keyfile=${join(home, 'client.key')}`,
        'strict-ssl=true',
        '',
      ].join('\n'),
    );
    await writeFile(
      join(home, '.config', 'pip', 'pip.conf'),
      `[global]\nindex-url = http://corp:${PIP_PASSWORD}@localhost:${pypi.port}/simple\n`,
    );
    // The registry's made-up name leads to 127.0.0.1 without the test's mark: as a rebinding answer would,
    // so only its being the runner's own registry lets it through.
    const map = { [NPM_HOST]: { address: '127.0.0.1', port: registry.port } };
    const run = await world.trigger('/agent install from the mirrors', {
      env: { TODO_AGENT_TEST_RESOLVE: JSON.stringify(map), RUNNER_TEMP: runnerTemp },
      nodeArgs: ['--import', PRELOAD],
    });
    expect([run.outputs.status, world.model.violations, run.stderr]).toEqual(['completed', [], '']);
    const result = (n: number) => {
      const content = world!.model.requests[2 + n]!.body.messages.at(-1)!.content as Array<{
        content?: unknown;
      }>;
      return String(content[0]!.content);
    };

    // The list in force names both as the runner's own; no allowed_hosts line was needed.
    expect(run.stdout).toContain(`${NPM_HOST}  (the runner's npm settings)`);
    expect(run.stdout).toContain(`localhost:${pypi.port}  (the runner's pip settings)`);

    // npm installed through the scoped registry, over TLS checked against the runner's CA file.
    expect(result(0)).toMatch(/^exit code: 0\n[^]*\n@corp\/right@1\.2\.0\n$/);
    expect(registry.requests).toContain(`GET /@corp/left/-/@corp/left-1.0.0.tgz (${NPM_HOST})`);
    // pip installed from the mirror on the runner's loopback, without the URL's credentials.
    expect(result(1)).toMatch(/^exit code: 0\n[^]*VALUE 39\n$/);
    expect(pypi.requests.some((line) => line.startsWith('GET /simple/corp-probe/'))).toBe(true);

    // What bash sees: the settings without a secret; the client key hidden.
    const seen = result(2);
    expect(seen).toContain(
      `@corp:registry=https://${NPM_HOST}/\ncafile=${join(runnerTemp, 'corp-ca.pem')}\nstrict-ssl=true\n`,
    );
    expect(seen).toContain(
      `[global]\nindex-url = http://localhost:${pypi.port}/simple\n---\ncorp-ca.pem\n---`,
    );
    expect(seen).not.toContain(NPM_TOKEN);
    expect(seen).not.toContain(PIP_PASSWORD);
    expect(seen).not.toContain('BEGIN PRIVATE KEY');
  }, 300_000);

  it("shows bash yarn's, Gradle's, cargo's, Go's and RubyGems' settings without a secret, and hides Gradle's init scripts and the client keys", async () => {
    world = await createWorld(
      oneItemScript(
        INSTALL_ITEM,
        [
          toolUse('bash', {
            command: [
              'cd "$HOME"',
              'for f in .yarnrc.yml .yarnrc .gradle/gradle.properties .cargo/config.toml .config/go/env .gemrc; do echo "== $f"; cat "$f"; done',
              'echo "== init"; ls -A .gradle/init.d 2>&1; cat .gradle/init.gradle 2>&1',
              'echo "== keys"; cat yarn-client.key .cargo/credentials.toml 2>&1',
              'echo "== ca"; cat "$CORP_CA_DIR/ca.pem"',
              'echo "== grep"; grep -rs KIN_SECRET "$HOME"; true',
            ].join('; '),
          }),
        ],
        'Looked.',
      ),
    );
    const home = world.sandbox.home;
    const caDir = join(home, 'work', '_temp', 'corp-ca');
    await mkdir(caDir, { recursive: true });
    await writeFile(
      join(caDir, 'ca.pem'),
      '-----BEGIN CERTIFICATE-----\nMIIBkin\n-----END CERTIFICATE-----\n',
    );
    for (const dir of ['.gradle/init.d', '.cargo', '.config/go'])
      await mkdir(join(home, dir), { recursive: true });
    const secret = (n: number) => `KIN_SECRET_${n}`;
    const files: Record<string, string> = {
      '.yarnrc.yml': [
        'npmRegistryServer: "https://npm.corp.example/"',
        `npmAuthToken: ${secret(1)}`,
        'npmScopes:',
        '  corp:',
        `    npmRegistryServer: "https://ci:${secret(2)}@scoped.corp.example/"`,
        `    npmAuthIdent: "ci:${secret(3)}"`,
        'httpsCaFilePath: "${CORP_CA_DIR}/ca.pem"',
        `httpsKeyFilePath: ${join(home, 'yarn-client.key')}`,
        '',
      ].join('\n'),
      '.yarnrc': `registry "https://npm.corp.example/"\n"//npm.corp.example/:_authToken" "${secret(4)}"\n`,
      '.gradle/gradle.properties': `corpRepoUrl=https://maven.corp.example/all\ncorpRepoPassword=${secret(5)}\n`,
      '.gradle/init.d/corp.init.gradle': `password = "${secret(6)}"\n`,
      '.cargo/config.toml': `[registries.corp]\nindex = "sparse+https://crates.corp.example/index/"\ntoken = "${secret(7)}"\n`,
      '.cargo/credentials.toml': `[registries.corp]\ntoken = "${secret(8)}"\n`,
      '.config/go/env': `GOPROXY=https://ci:${secret(9)}@goproxy.corp.example\nGOPRIVATE=*.corp.example\n`,
      '.gemrc': `:sources:\n- https://gems.corp.example/\n:rubygems_api_key: ${secret(10)}\n`,
      'yarn-client.key': `-----BEGIN PRIVATE KEY-----\n${secret(11)}\n`,
    };
    for (const [file, content] of Object.entries(files)) await writeFile(join(home, file), content);
    const run = await world.trigger('/agent look at the settings', {
      env: { CORP_CA_DIR: caDir, RUNNER_TEMP: join(home, 'work', '_temp') },
    });
    expect([run.outputs.status, world.model.violations]).toEqual(['completed', []]);
    const content = world.model.requests[2]!.body.messages.at(-1)!.content as Array<{ content?: unknown }>;
    const seen = String(content[0]!.content);

    expect(seen).toContain(
      [
        '== .yarnrc.yml',
        'npmRegistryServer: "https://npm.corp.example/"',
        'npmScopes:',
        '  corp:',
        '    npmRegistryServer: "https://scoped.corp.example/"',
        // yarn's ${CORP_CA_DIR} resolved from the runner's environment; the CA file (in RUNNER_TEMP) shown.
        `httpsCaFilePath: "${caDir}/ca.pem"`,
        '== .yarnrc',
        'registry "https://npm.corp.example/"',
        '== .gradle/gradle.properties',
        'corpRepoUrl=https://maven.corp.example/all',
        '== .cargo/config.toml',
        '[registries.corp]',
        'index = "sparse+https://crates.corp.example/index/"',
        '== .config/go/env',
        'GOPROXY=https://goproxy.corp.example',
        'GOPRIVATE=*.corp.example',
        '== .gemrc',
        ':sources:',
        '- https://gems.corp.example/',
        '== init',
      ].join('\n'),
    );
    expect(seen).toContain('== ca\n-----BEGIN CERTIFICATE-----\nMIIBkin\n');
    expect(seen).not.toMatch(/KIN_SECRET/);
    expect(seen).not.toContain('BEGIN PRIVATE KEY');
    // Gradle's init scripts are code: hidden whole, their names too.
    expect(seen).not.toContain('corp.init.gradle');
    // The runner's registries are in the list in force, as its own.
    expect(run.stdout).toContain("crates.corp.example  (the runner's cargo settings)");
    expect(run.stdout).toContain("goproxy.corp.example  (the runner's Go settings)");
  }, 300_000);
});
