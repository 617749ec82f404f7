import { describe, expect, it } from 'vitest';
import { githubHosts } from '../../src/network/github-hosts.js';

describe('githubHosts', () => {
  it('on github.com: its web, archive, raw, release and LFS hosts, and its API guarded', () => {
    const { rules, guarded } = githubHosts('https://github.com', 'https://api.github.com');
    const hosts = rules.map((rule) => rule.host);
    expect(hosts).toEqual(
      expect.arrayContaining([
        'github.com',
        'codeload.github.com',
        'raw.githubusercontent.com',
        'objects.githubusercontent.com',
        'release-assets.githubusercontent.com',
      ]),
    );
    expect(hosts.some((host) => host.includes('api') || host.startsWith('*.'))).toBe(false);
    expect(rules.every((rule) => rule.source === 'GitHub' && rule.port === undefined)).toBe(true);
    expect(guarded).toEqual([{ host: 'api.github.com', what: "GitHub's API" }]);
  });

  it('adds the package hosts GET /meta gave, and none of its own when it gave none', () => {
    const without = githubHosts('https://github.com', 'https://api.github.com').rules;
    const packages = [
      'Registry.Github.TEST',
      '*.layers.github.test',
      'not a host',
      'api.github.com',
      'x.test:8443',
    ];
    const { rules } = githubHosts('https://github.com', 'https://api.github.com', packages);
    // Normalized, the wildcard kept; a malformed entry, the guarded API host and a port-bound entry left out.
    expect(rules).toEqual([
      ...without,
      { host: 'registry.github.test', source: 'GitHub' },
      { host: '*.layers.github.test', source: 'GitHub' },
    ]);
    expect(without.some((rule) => /pkg|registry|container/.test(rule.host))).toBe(false);
  });

  it('adds them on GitHub Enterprise Server too, and even when the server URL is unusable', () => {
    expect(
      githubHosts('https://ghes.corp.example', 'https://ghes.corp.example/api/v3', ['pkg.ghes.test']).rules,
    ).toEqual([
      { host: 'ghes.corp.example', source: 'GitHub' },
      { host: '*.ghes.corp.example', source: 'GitHub' },
      { host: 'pkg.ghes.test', source: 'GitHub' },
    ]);
    expect(githubHosts('not a url', 'also not', ['pkg.ghes.test']).rules).toEqual([
      { host: 'pkg.ghes.test', source: 'GitHub' },
    ]);
  });

  it('on a GHE.com subdomain: the host and every name below it, its API host guarded', () => {
    expect(githubHosts('https://acme.ghe.com', 'https://api.acme.ghe.com')).toEqual({
      rules: [
        { host: 'acme.ghe.com', source: 'GitHub' },
        { host: '*.acme.ghe.com', source: 'GitHub' },
      ],
      guarded: [{ host: 'api.acme.ghe.com', what: "GitHub's API" }],
    });
  });

  it('on GitHub Enterprise Server, whose API shares the web host, nothing is guarded by name', () => {
    expect(githubHosts('https://GHES.corp.example/', 'https://ghes.corp.example/api/v3').guarded).toEqual([]);
  });
});
