import { describe, expect, it } from 'vitest';
import { CLI_SETTINGS, limitNote, NETWORK_OFF_ENV } from '../../src/sandbox/limits.js';
import { AROUND_THE_GATE_NOTE, LOGIN_NOTE, NETWORK_OFF_NOTE } from '../../src/sandbox/limits.js';

describe('limitNote', () => {
  it('ends a command with a line per host the gate refused while it ran, the first reason of each, five at most', () => {
    const refused = [
      { host: 'a.example', port: 443, reason: 'a.example is not in the allowlist', allow: 'a.example' },
      { host: 'a.example', port: 443, reason: 'again' },
      { host: 'b.example', port: 22, reason: 'port 22 of b.example is not allowed', allow: 'b.example:22' },
      { host: 'c.example', port: 80, reason: "the run's cap is reached" },
      ...['d', 'e', 'f', 'g'].map((name) => ({ host: `${name}.example`, port: 443, reason: 'no' })),
    ];
    expect(limitNote('curl: (56) CONNECT tunnel failed', 'gated', true, refused).split('\n')).toEqual([
      "[todo-agent: the network gate refused a.example:443: a.example is not in the allowlist; to allow it, add a.example to the workflow's allowed_hosts input]",
      "[todo-agent: the network gate refused b.example:22: port 22 of b.example is not allowed; to allow it, add b.example:22 to the workflow's allowed_hosts input]",
      "[todo-agent: the network gate refused c.example:80: the run's cap is reached]",
      '[todo-agent: the network gate refused d.example:443: no]',
      '[todo-agent: the network gate refused e.example:443: no]',
      '[todo-agent: and 2 more refused hosts]',
    ]);
  });

  it('explains a failed lookup or connection: the network is off, or the command went around the gate', () => {
    const failed = 'curl: (6) Could not resolve host: example.com';
    expect(limitNote(failed, 'none', true)).toBe(NETWORK_OFF_NOTE);
    expect(limitNote(failed, 'gated', true)).toBe(AROUND_THE_GATE_NOTE);
    expect(limitNote(failed, 'host', true)).toBe('');
    expect(limitNote(failed, 'gated', false)).toBe('');
  });

  it('tells a command a registry turned away for want of a login that the tools never hold one, and what works', () => {
    for (const output of [
      'npm error code E401\nnpm error Unable to authenticate, your authentication token seems to be invalid.',
      'ERROR: HTTP error 401 while getting https://pypi.corp.test/simple/x/',
      'curl: (22) The requested URL returned error: 401',
      "> Could not GET 'https://maven.corp.example/all/x.pom'. Received status code 401 from server: Unauthorized",
      'ERROR:  Could not find a valid gem (>= 0), here is why:\n  Unable to download data from https://gems.corp.example/ - bad response Unauthorized 401',
      // yarn 2+ and cargo, as they say it when the registry refuses them for want of a token.
      '➤ YN0041: │ @corp/lib@npm:1.0.0: Invalid authentication (as an anonymous user)',
      'error: failed to get successful HTTP response from `https://crates.corp.example/index/config.json` (10.0.0.7), got 401',
      'error: failed to get `lib` as a dependency of package `app v0.1.0`\n\nCaused by:\n  no token found for `corp`, please run `cargo login --registry corp`',
    ])
      expect(limitNote(output, 'gated', true)).toBe(LOGIN_NOTE);
    expect(limitNote('npm error code E401', 'gated', false)).toBe('');
    expect(LOGIN_NOTE).toContain('an earlier workflow step');
  });

  it("tells a command refused by a port of its own loopback how to reach the runner's service there", () => {
    for (const output of [
      'Error: connect ECONNREFUSED 127.0.0.1:5432',
      'psql: error: connection to server at "localhost" (::1), port 5432 failed: Connection refused',
      'curl: (7) Failed to connect to localhost port 5432: Connection refused',
      'redis.exceptions.ConnectionError: Error 111 connecting to [::1]:5432. Connection refused.',
    ])
      expect(limitNote(output, 'gated', true), output).toBe(
        "[todo-agent: nothing listens on port 5432 of the sandbox's own loopback: a service the job runs on the runner's localhost:5432 is reached once the workflow's allowed_hosts input names `localhost:5432` (else the service is not running)]",
      );
    expect(limitNote('Error: connect ECONNREFUSED 10.0.0.7:5432', 'gated', true)).toBe(AROUND_THE_GATE_NOTE);
    // A command that also failed on another host is told both.
    expect(
      limitNote(
        'ECONNREFUSED 127.0.0.1:6379\ncurl: (6) Could not resolve host: x.example',
        'gated',
        true,
      ).split('\n'),
    ).toEqual([expect.stringContaining('`localhost:6379`'), AROUND_THE_GATE_NOTE]);
  });

  it('names the CLI’s flags where the CLI runs the command', () => {
    const refused = [
      { host: 'a.example', port: 443, reason: 'a.example is not in the allowlist', allow: 'a.example' },
    ];
    expect(limitNote('', 'gated', true, refused, CLI_SETTINGS)).toBe(
      '[todo-agent: the network gate refused a.example:443: a.example is not in the allowlist; to allow it, add a.example to --allowed-hosts]',
    );
    expect(limitNote('ECONNREFUSED 127.0.0.1:5432', 'gated', true, [], CLI_SETTINGS)).toContain(
      'is reached once --allowed-hosts names `localhost:5432`',
    );
    expect(limitNote('Could not resolve host: x.example', 'none', true, [], CLI_SETTINGS)).toBe(
      '[todo-agent: the network is off: the CLI was started with `--tool-network none`, so commands in the sandbox reach no host and name lookups fail]',
    );
  });

  it('with the network off, also explains pip’s only line and npm’s, Go’s and cargo’s offline refusals', () => {
    for (const output of [
      'ERROR: Could not find a version that satisfies the requirement left-pad (from versions: none)',
      'npm error code ENOTCACHED',
      'go: made-up.example/mod@v1.0.0: module lookup disabled by GOPROXY=off',
      "error: no matching package named `made-up-crate` found\nlocation searched: registry index\nAs a reminder, you're using offline mode (--offline) which can sometimes cause surprising resolution failures",
      'error: failed to download `made-up-crate v1.0.0`\nCaused by: attempting to make an HTTP request, but --offline was specified',
    ]) {
      expect(limitNote(output, 'none', true), output).toBe(NETWORK_OFF_NOTE);
      expect(limitNote(output, 'gated', true), output).toBe('');
    }
  });

  it('with the network off, explains it where the command exited 0 (its failure piped away)', () => {
    expect(limitNote('npm error code ENOTCACHED', 'none', false)).toBe(NETWORK_OFF_NOTE);
    expect(limitNote('curl: (6) Could not resolve host: x.example', 'none', false)).toBe(NETWORK_OFF_NOTE);
    expect(limitNote('added 3 packages', 'none', false)).toBe('');
  });

  it('tells npm to work offline and pip to retry once (so that it prints its connection error)', () => {
    expect(NETWORK_OFF_ENV).toMatchObject({
      npm_config_offline: 'true',
      PIP_RETRIES: '1',
      MAVEN_ARGS: '--offline',
    });
  });
});
