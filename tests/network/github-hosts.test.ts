import { describe, expect, it } from 'vitest';
import { githubHosts } from '../../src/network/github-hosts.js';

describe('githubHosts', () => {
  it('on github.com: its web, archive, raw, release, LFS and container hosts, and its API guarded', () => {
    const { rules, guarded } = githubHosts('https://github.com', 'https://api.github.com');
    const hosts = rules.map((rule) => rule.host);
    expect(hosts).toEqual(
      expect.arrayContaining([
        'github.com',
        'codeload.github.com',
        'raw.githubusercontent.com',
        'objects.githubusercontent.com',
        'release-assets.githubusercontent.com',
        'ghcr.io',
        'pkg-containers.githubusercontent.com',
      ]),
    );
    expect(hosts.some((host) => host.includes('api') || host.startsWith('*.'))).toBe(false);
    expect(rules.every((rule) => rule.source === 'GitHub' && rule.port === undefined)).toBe(true);
    expect(guarded).toEqual([{ host: 'api.github.com', what: "GitHub's API" }]);
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
