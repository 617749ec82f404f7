// The github tool's job_log against the emulator over real HTTP: the log comes by GitHub's redirect to a
// signed URL on a storage host, fetched without the token; a storage host that stalls or trickles is given
// up, and its own redirects are followed by hand (never to a URL with a password, nor endlessly).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GitHubApi } from '../../../src/github/api/github-api.js';
import { jobLogAnswer, readTail } from '../../../src/github/reading/job-log.js';
import { expectHonest } from '../../support/github/honest.js';
import { TEST_REPO, TEST_TOKEN, useEmulatorPerTest } from '../../support/github/per-test.js';

const startEmulator = useEmulatorPerTest();
const LOG =
  '2026-01-02T03:04:05.0000000Z Run npm test\n2026-01-02T03:04:06.0000000Z ##[error]1 test failed\n';
const FAST = { stallMs: 300, timeoutMs: 5_000 };
/** For a log that is answered: room for a cold emulator's first answers. */
const ROOMY = { stallMs: 3_000, timeoutMs: 10_000 };

let storage: Server | undefined;
afterEach(async () => {
  storage?.closeAllConnections();
  await new Promise((done) => (storage ? storage.close(done) : done(undefined)));
  storage = undefined;
});

/** A storage host of our own on 127.0.0.1, answering with `answer`; every request's path and auth kept. */
async function storageHost(answer: (req: IncomingMessage, res: ServerResponse, base: string) => void) {
  const seen: Array<{ path: string; authorization: string | undefined }> = [];
  storage = createServer((req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
    answer(req, res, base);
  });
  await new Promise<void>((done) => storage!.listen(0, '127.0.0.1', done));
  const base = `http://127.0.0.1:${(storage.address() as AddressInfo).port}`;
  return { base, seen };
}

/** The emulator with one failed job, its log as given, and the reader's request function. */
async function jobWithLog() {
  const github = await startEmulator();
  const run = github.addCheckRun({
    name: 'test',
    ref: 'a'.repeat(40),
    conclusion: 'failure',
    steps: [{ name: 'Run npm test', conclusion: 'failure' }],
    log: LOG,
  });
  const api = new GitHubApi({ ...TEST_REPO, token: TEST_TOKEN, baseUrl: github.url });
  return { github, read: api.readOnly(), jobId: run.id };
}

/** The next log redirect GitHub gives points at `location` (another host, as GitHub's storage is). */
function logRedirectTo(github: Awaited<ReturnType<typeof jobWithLog>>['github'], location: string) {
  github.failNext(
    { method: 'GET', path: /\/actions\/jobs\/\d+\/logs$/ },
    { status: 302, headers: { location } },
  );
}

const failureOf = (answer: Promise<string>) =>
  answer.then(
    () => 'answered',
    (error: Error) => error.message,
  );

describe('jobLogAnswer', () => {
  it('reads the log from the signed URL GitHub redirects to, without the token', async () => {
    const { github, read, jobId } = await jobWithLog();
    const answer = await jobLogAnswer(read, TEST_REPO, jobId, undefined, ROOMY);
    expect(answer).toContain(`job ${jobId} "test" in workflow "CI": completed, failure`);
    expect(answer).toContain('errors:\n##[error]1 test failed');
    expect(answer).toContain('log (2 lines):\nRun npm test\n##[error]1 test failed');
    expectHonest(github); // the emulator records a credential sent to a signed URL as a violation
  });

  it('gives up a storage host that sends nothing, rather than hold the run', async () => {
    const { github, read, jobId } = await jobWithLog();
    github.holdNext({ path: /^\/job-logs\// });
    expect(await failureOf(jobLogAnswer(read, TEST_REPO, jobId, undefined, FAST))).toBe(
      `the log of job ${jobId} sent nothing for 300 ms, so it was given up`,
    );
  });

  it('gives up a log that stops half way, and one that trickles on past the time a log may take', async () => {
    const { github, read, jobId } = await jobWithLog();
    const { base } = await storageHost((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('2026-01-02T03:04:05Z first line\n');
      // /stall sends nothing more; /trickle sends a byte every 50 ms, for ever.
      if (req.url === '/trickle') {
        const drip = setInterval(() => res.write('.'), 50);
        res.on('close', () => clearInterval(drip));
      }
    });
    logRedirectTo(github, `${base}/stall`);
    expect(await failureOf(jobLogAnswer(read, TEST_REPO, jobId, undefined, FAST))).toBe(
      `the log of job ${jobId} sent nothing for 300 ms, so it was given up`,
    );
    logRedirectTo(github, `${base}/trickle`);
    const trickling = jobLogAnswer(read, TEST_REPO, jobId, undefined, { stallMs: 300, timeoutMs: 800 });
    expect(await failureOf(trickling)).toBe(
      `the log of job ${jobId} was still coming after 800 ms, so it was given up`,
    );
  });

  it('follows the storage host’s own redirects by hand, without a credential, and only so far', async () => {
    const { github, read, jobId } = await jobWithLog();
    const { base, seen } = await storageHost((req, res, at) => {
      const hops = /^\/hop\/(\d+)$/.exec(req.url ?? '');
      if (hops) {
        const left = Number(hops[1]);
        res.writeHead(302, { location: left > 0 ? `${at}/hop/${left - 1}` : '/log' }).end();
      } else if (req.url === '/to-password') {
        res.writeHead(307, { location: at.replace('http://', 'http://user:pass@') + '/log' }).end();
      } else res.writeHead(200, { 'content-type': 'text/plain' }).end(LOG);
    });
    logRedirectTo(github, `${base}/hop/1`);
    expect(await jobLogAnswer(read, TEST_REPO, jobId, undefined, ROOMY)).toContain('##[error]1 test failed');
    expect(seen.map((request) => request.path)).toEqual(['/hop/1', '/hop/0', '/log']);
    expect(seen.every((request) => request.authorization === undefined)).toBe(true);

    logRedirectTo(github, `${base}/hop/5`);
    expect(await failureOf(jobLogAnswer(read, TEST_REPO, jobId, undefined, FAST))).toBe(
      `the log of job ${jobId} could not be downloaded (too many redirects)`,
    );
    logRedirectTo(github, `${base}/to-password`);
    expect(await failureOf(jobLogAnswer(read, TEST_REPO, jobId, undefined, FAST))).toBe(
      `the log of job ${jobId} could not be downloaded (a URL that carries a user name or password)`,
    );
    logRedirectTo(github, 'ftp://127.0.0.1/log');
    expect(await failureOf(jobLogAnswer(read, TEST_REPO, jobId, undefined, FAST))).toBe(
      `the log of job ${jobId} could not be downloaded (not http(s): ftp:)`,
    );
  });
});

describe('readTail', () => {
  it('keeps the last bytes and counts them all, told of each chunk', async () => {
    let chunks = 0;
    const body = new Blob(['abc', 'defg', 'hi']).stream();
    const { tail, total } = await readTail(body, 4, () => chunks++);
    expect([new TextDecoder().decode(tail), total]).toEqual(['fghi', 9]);
    expect(chunks).toBeGreaterThan(0);
  });
});
