// Package registries a test starts on 127.0.0.1, for real clients in the sandbox: an npm registry serving
// real tarballs (and the lockfile `npm ci` installs them from), and a PEP 503 simple index serving real
// wheels. The clients reach them under a test host name through the network gate, whose test-only resolver
// map (resolver-preload.mjs) leads that name here; every request line is kept, so a test can tell what
// reached the server.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface LocalServer {
  /** Where the server listens: 127.0.0.1 and this port. */
  port: number;
  /** `METHOD path (Host)` of every request that reached it. */
  requests: string[];
  close(): Promise<void>;
}

async function serve(
  handler: (path: string) => Buffer | string | undefined,
  type: (path: string) => string = () => 'application/octet-stream',
  /** Served over TLS with this key and certificate. */
  tls?: { key: string; cert: string },
): Promise<LocalServer & { server: Server }> {
  const requests: string[] = [];
  const listener: Parameters<typeof createServer>[1] = (req, res) => {
    requests.push(`${req.method} ${req.url} (${req.headers.host ?? ''})`);
    const body = handler(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    if (body === undefined) {
      res.writeHead(404).end('not here\n');
      return;
    }
    res
      .writeHead(200, { 'Content-Length': Buffer.byteLength(body), 'Content-Type': type(req.url ?? '') })
      .end(body);
  };
  const server: Server = tls ? createTlsServer(tls, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    server,
    port,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface NpmPackage {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
}

export interface NpmRegistry extends LocalServer {
  /** A package.json and package-lock.json (lockfile v3) that install every package, resolved at `url`. */
  project: { packageJson: string; lockfile: string };
}

/**
 * An npm registry of `packages` (each a real tarball made with tar, with its sha512 integrity), whose
 * packuments and lockfile name `url` (the test host name npm is configured with) as where they live; over
 * TLS with `tls`'s key and certificate.
 */
export async function startNpmRegistry(
  packages: readonly NpmPackage[],
  url: string,
  tls?: { key: string; cert: string },
): Promise<NpmRegistry> {
  const base = url.replace(/\/$/, '');
  const work = await mkdtemp(join(tmpdir(), 'todo-agent-npm-registry-'));
  const tarballs = new Map<string, Buffer>();
  const packuments = new Map<string, Record<string, unknown>>();
  const locked: Record<string, unknown> = {};
  try {
    for (const pkg of packages) {
      const dir = join(work, `${pkg.name}-${pkg.version}`, 'package');
      await mkdir(dir, { recursive: true });
      const manifest = {
        name: pkg.name,
        version: pkg.version,
        main: 'index.js',
        dependencies: pkg.dependencies ?? {},
      };
      await writeFile(join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
      await writeFile(
        join(dir, 'index.js'),
        `module.exports = ${JSON.stringify(`${pkg.name}@${pkg.version}`)};\n`,
      );
      const file = join(work, `${pkg.name}-${pkg.version}.tgz`);
      await run('tar', ['-czf', file, '--owner=0', '--group=0', '-C', join(dir, '..'), 'package']);
      const tarball = await readFile(file);
      const path = `/${pkg.name}/-/${pkg.name}-${pkg.version}.tgz`;
      const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
      const shasum = createHash('sha1').update(tarball).digest('hex');
      tarballs.set(path, tarball);
      const packument = packuments.get(pkg.name) ?? { name: pkg.name, versions: {}, 'dist-tags': {} };
      (packument.versions as Record<string, unknown>)[pkg.version] = {
        ...manifest,
        dist: { tarball: `${base}${path}`, integrity, shasum },
      };
      (packument['dist-tags'] as Record<string, string>).latest = pkg.version;
      packuments.set(pkg.name, packument);
      locked[`node_modules/${pkg.name}`] = {
        version: pkg.version,
        resolved: `${base}${path}`,
        integrity,
        ...(pkg.dependencies ? { dependencies: pkg.dependencies } : {}),
      };
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const top = Object.fromEntries(packages.map((pkg) => [pkg.name, pkg.version]));
  const root = { name: 'gate-probe', version: '1.0.0', dependencies: top };
  const lockfile = { ...root, lockfileVersion: 3, requires: true, packages: { '': root, ...locked } };
  const served = await serve(
    (path) => {
      if (tarballs.has(path)) return tarballs.get(path);
      const packument = packuments.get(path.slice(1));
      return packument && JSON.stringify(packument);
    },
    (path) => (path.endsWith('.tgz') ? 'application/octet-stream' : 'application/json'),
    tls,
  );
  return {
    ...served,
    project: { packageJson: JSON.stringify(root, null, 2), lockfile: JSON.stringify(lockfile, null, 2) },
  };
}

/** Writes a pure-Python wheel by hand (argv: the wheel's path, its name, its version, its VALUE). */
export const MAKE_WHEEL = String.raw`
import sys, zipfile
path, name, version, value = sys.argv[1:5]
dist = f"{name}-{version}.dist-info"
files = {
    f"{name}/__init__.py": f"VALUE = {value}\n",
    f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: {version}\n",
    f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = "".join(f"{n},,\n" for n in files) + f"{dist}/RECORD,,\n"
with zipfile.ZipFile(path, "w") as wheel:
    for n, text in files.items():
        wheel.writestr(n, text)
    wheel.writestr(f"{dist}/RECORD", record)
`;

/** A pure-Python wheel of package `name` (an identifier) whose VALUE is `value`, made with the system's Python. */
export async function makeWheel(dir: string, name: string, version: string, value: number): Promise<string> {
  const file = join(dir, `${name}-${version}-py3-none-any.whl`);
  const script = join(dir, `make-${name}.py`);
  await writeFile(script, MAKE_WHEEL);
  await run('/usr/bin/python3', [script, file, name, version, String(value)]);
  await rm(script);
  return file;
}

/** A PEP 503 simple index of wheels: `/simple/<project>/` lists each with its sha256, `/files/` serves it. */
export async function startSimpleIndex(wheels: readonly string[]): Promise<LocalServer> {
  const files = new Map<string, Buffer>();
  const projects = new Map<string, string[]>();
  for (const wheel of wheels) {
    const name = wheel.split('/').at(-1)!;
    const bytes = await readFile(wheel);
    files.set(`/files/${name}`, bytes);
    const project = name.split('-')[0]!.replace(/_/g, '-').toLowerCase();
    const sha = createHash('sha256').update(bytes).digest('hex');
    projects.set(project, [
      ...(projects.get(project) ?? []),
      `<a href="/files/${name}#sha256=${sha}">${name}</a>`,
    ]);
  }
  const served = await serve(
    (path) => {
      if (files.has(path)) return files.get(path);
      const project = /^\/simple\/([^/]+)\/?$/.exec(path)?.[1];
      const links = project && projects.get(project);
      return links ? `<!DOCTYPE html><html><body>\n${links.join('<br>\n')}\n</body></html>\n` : undefined;
    },
    (path) => (path.startsWith('/simple/') ? 'text/html' : 'application/octet-stream'),
  );
  const { server: _server, ...rest } = served;
  return rest;
}
