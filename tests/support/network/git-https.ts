// A git server over HTTPS on 127.0.0.1, for `git clone https://…` in the sandbox: git's own smart-HTTP
// backend (git http-backend, as CGI) behind a TLS server whose certificate names a test host, made with
// openssl for the test. The client trusts that certificate alone (http.sslCAInfo, curl --cacert).
import { execFile, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:https';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface GitHttpsServer {
  port: number;
  /** The certificate to trust, as PEM. */
  certificate: string;
  /** `METHOD path` of every request that reached it. */
  requests: string[];
  close(): Promise<void>;
}

/** A certificate and key for `host`, valid a day. */
export async function selfSigned(dir: string, host: string): Promise<{ key: string; cert: string }> {
  const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
  await run('openssl', [
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1'],
    ...['-keyout', key, '-out', cert, '-subj', `/CN=${host}`, '-addext', `subjectAltName=DNS:${host}`],
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
    const backend = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(backend.stdin);
    let head = Buffer.alloc(0);
    let started = false;
    backend.stdout.on('data', (chunk: Buffer) => {
      if (started) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) return;
      started = true;
      const headers = head.subarray(0, end).toString().split('\r\n');
      const status = Number(/^Status: (\d+)/m.exec(headers.join('\n'))?.[1] ?? 200);
      res.writeHead(
        status,
        Object.fromEntries(
          headers
            .filter((line) => !line.startsWith('Status:'))
            .map((line) => line.split(/:\s*/, 2) as [string, string]),
        ),
      );
      res.write(head.subarray(end + 4));
    });
    backend.stdout.on('end', () => res.end());
    backend.on('error', () => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    certificate: cert,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
