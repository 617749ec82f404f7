// Git's own smart-HTTP backend (`git http-backend`, as CGI) behind a test server: the request goes to its
// stdin, its CGI headers become the response's. Shared by the HTTPS git server of the network tests and the
// GitHub emulator's fork repositories.
import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface GitBackendRequest {
  /** The folder whose bare repositories are served (GIT_PROJECT_ROOT). */
  root: string;
  url: URL;
  /** More CGI variables (REMOTE_USER, which enables pushes) and environment for the hooks. */
  env?: NodeJS.ProcessEnv;
  /** Run once git is done and before the answer ends (what the server does after a push, seen by then). */
  beforeEnd?: () => Promise<void>;
}

/** Answers `req` with git http-backend; resolves once the answer is sent. */
export function serveGitBackend(
  req: IncomingMessage,
  res: ServerResponse,
  { root, url, env = {}, beforeEnd }: GitBackendRequest,
): Promise<void> {
  return new Promise((resolve) => {
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
        ...env,
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
    backend.on('close', () => {
      void (beforeEnd?.() ?? Promise.resolve()).finally(() => {
        res.end();
        resolve();
      });
    });
    backend.on('error', () => {
      res.destroy();
      resolve();
    });
  });
}
