// A git server over HTTPS on 127.0.0.1, for `git clone https://…` in the sandbox: git's own smart-HTTP
// backend (git http-backend, as CGI) behind a TLS server whose certificate names a test host, made with
// openssl for the test. The client trusts that certificate alone (http.sslCAInfo, curl --cacert).
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:https';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { serveGitBackend } from '../git-backend.js';

const run = promisify(execFile);

export interface GitHttpsServer {
  port: number;
  /** The certificate to trust, as PEM. */
  certificate: string;
  /** `METHOD path` of every request that reached it. */
  requests: string[];
  close(): Promise<void>;
}

/** A certificate and key for `host` (a name, or an IPv4 address), valid a day. */
export async function selfSigned(dir: string, host: string): Promise<{ key: string; cert: string }> {
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  const san = /^\d+\.\d+\.\d+\.\d+$/.test(host) ? `IP:${host}` : `DNS:${host}`;
  await run('openssl', [
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1'],
    ...['-keyout', key, '-out', cert, '-subj', `/CN=${host}`, '-addext', `subjectAltName=${san}`],
  ]);
  return { key: await readFile(key, 'utf8'), cert: await readFile(cert, 'utf8') };
}

/**
 * Serves the bare repositories under `root` (each `<name>.git`) over HTTPS as `host`; `/hello` answers a
 * plain text line (for curl).
 */
export async function startGitHttps(root: string, host: string): Promise<GitHttpsServer> {
  const dir = await mkdtemp(join(tmpdir(), 'todo-agent-git-https-'));
  const { key, cert } = await selfSigned(dir, host).finally(() => rm(dir, { recursive: true, force: true }));
  const requests: string[] = [];
  const server: Server = createServer({ key, cert }, (req, res) => {
    const url = new URL(req.url ?? '/', `https://${host}`);
    requests.push(`${req.method} ${url.pathname}`);
    if (url.pathname === '/hello') return void res.end(`hello from ${host}\n`);
    void serveGitBackend(req, res, { root, url });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    certificate: cert,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
