import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { download, imageSources, mayFetch } from '../../../src/github/thread/attachments.js';

describe('imageSources', () => {
  it('reads every img src of rendered HTML once, in order, with entities decoded', () => {
    const html =
      '<p><a href="https://x/1?a=1&amp;b=2"><img src="https://x/1?a=1&amp;b=2" alt="one"></a></p>' +
      "<p><img alt='two' src='https://x/2'> <img src=\"https://x/1?a=1&amp;b=2\"></p><p>img src=nothing</p>";
    expect(imageSources(html)).toEqual(['https://x/1?a=1&b=2', 'https://x/2']);
  });

  it('finds the real tag after 64 KB of unclosed ones (each failed scan ends at the next `<`)', () => {
    const noise = '<img '.repeat(13_000);
    expect(imageSources(`${noise}<img src="https://x/3">`)).toEqual(['https://x/3']);
  });
});

describe('mayFetch', () => {
  const server = 'https://github.com';
  it("allows the server's own host and GitHub's image hosts, over https", () => {
    expect(mayFetch('https://github.com/user-attachments/assets/abc', server)).toBe(true);
    expect(mayFetch('https://private-user-images.githubusercontent.com/1/a.png?jwt=x', server)).toBe(true);
    expect(mayFetch('https://user-images.githubusercontent.com/1/a.png', server)).toBe(true);
  });

  it('refuses every other host, camo included, and URLs that carry credentials or other ports', () => {
    expect(mayFetch('https://camo.githubusercontent.com/abc/def', server)).toBe(false);
    expect(mayFetch('https://example.com/a.png', server)).toBe(false);
    expect(mayFetch('http://private-user-images.githubusercontent.com/a.png', server)).toBe(false);
    expect(mayFetch('https://private-user-images.githubusercontent.com:8443/a.png', server)).toBe(false);
    expect(mayFetch('https://user:pw@github.com/a.png', server)).toBe(false);
    expect(mayFetch('https://github.com.evil.example/a.png', server)).toBe(false);
    expect(mayFetch('not a url', server)).toBe(false);
  });

  it('takes a GHES server (or the emulator) as its own host, port and protocol included', () => {
    expect(mayFetch('http://127.0.0.1:8080/private-user-images/x', 'http://127.0.0.1:8080')).toBe(true);
    expect(mayFetch('http://127.0.0.1:9090/x', 'http://127.0.0.1:8080')).toBe(false);
  });
});

describe('download', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  /** A server whose answers a test scripts by path; it records each request's headers. */
  async function serve(routes: Record<string, (res: ServerResponse) => void>) {
    const seen: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
    let closedEarly = false;
    server = createServer((req, res) => {
      seen.push({ path: req.url ?? '', headers: req.headers });
      res.on('close', () => {
        if (!res.writableFinished) closedEarly = true;
      });
      (routes[req.url ?? ''] ?? ((r) => r.writeHead(404).end()))(res);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { url, seen, closedEarly: () => closedEarly };
  }

  it('fetches the bytes with no credential, following a redirect on an allowed host', async () => {
    const site = await serve({
      '/a': (res) => res.writeHead(302, { location: '/b' }).end(),
      '/b': (res) => res.writeHead(200, { 'content-type': 'image/png' }).end('PNGDATA'),
    });
    const got = await download(`${site.url}/a`, site.url);
    expect(got).toEqual({ bytes: Buffer.from('PNGDATA') });
    expect(site.seen.map((s) => s.path)).toEqual(['/a', '/b']);
    expect(
      site.seen.every((s) => s.headers.authorization === undefined && s.headers.cookie === undefined),
    ).toBe(true);
  });

  it('never follows a redirect off the allowed hosts', async () => {
    const site = await serve({
      '/a': (res) => res.writeHead(302, { location: 'https://example.com/x.png' }).end(),
    });
    expect(await download(`${site.url}/a`, site.url)).toEqual({ failed: 'redirected off GitHub' });
  });

  it('stops a download that passes its cap, without reading the rest', async () => {
    const chunk = Buffer.alloc(64 * 1024, 1);
    const site = await serve({
      '/big': (res) => {
        res.writeHead(200, { 'content-type': 'image/png' });
        let sent = 0;
        const more = () => {
          while (sent < 200 && res.write(chunk)) sent++;
          if (sent < 200) res.once('drain', more);
          else res.end();
        };
        more();
      },
    });
    expect(await download(`${site.url}/big`, site.url, { maxBytes: 1024 * 1024 })).toEqual({
      failed: 'larger than 1 MB',
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(site.closedEarly()).toBe(true);
  });

  it('gives up a download that stalls, as a failure', async () => {
    const site = await serve({
      '/slow': (res) => res.writeHead(200, { 'content-type': 'image/png' }).write('PNG'),
    });
    expect(await download(`${site.url}/slow`, site.url, { timeoutMs: 300 })).toEqual({
      failed: 'no answer within 0.3 s',
    });
  });

  it('reports an error status as a failure, not a throw', async () => {
    const site = await serve({});
    expect(await download(`${site.url}/gone`, site.url)).toEqual({ failed: 'HTTP 404' });
  });
});
