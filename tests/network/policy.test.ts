// The allowlist's decisions alone: no lookup and no traffic, so the private-range rule is tested on what it
// decides for any address, not on a connection to one.
import { describe, expect, it } from 'vitest';
import { addressRefusal, ruleFor, type Allowlist } from '../../src/network/policy.js';
import type { HostRule } from '../../src/network/hosts.js';

const rule = (host: string, source = 'npm registry', port?: number): HostRule => ({
  host,
  source,
  ...(port ? { port } : {}),
});

const LIST: Allowlist = {
  rules: [
    rule('registry.example'),
    rule('*.cdn.example', 'allowed_hosts'),
    rule('db.internal', 'allowed_hosts'),
    rule('mirror.example', 'Maven settings', 8081),
    rule('10.0.0.5', 'allowed_hosts', 8080),
    rule('*.api.example', 'allowed_hosts'),
  ],
  guarded: [
    { host: 'api.github.com', what: "GitHub's API" },
    { host: 'v1.api.example', what: "the model's API endpoint" },
    { host: 'model.example', what: "the model's API endpoint" },
  ],
};

describe('ruleFor: the name and the port', () => {
  it('finds the rule of a listed name, a name under a wildcard, an address named with its port', () => {
    expect(ruleFor(LIST, 'Registry.Example.', 443)).toEqual({
      host: 'registry.example',
      rule: LIST.rules[0],
    });
    expect(ruleFor(LIST, 'a.cdn.example', 80)).toEqual({ host: 'a.cdn.example', rule: LIST.rules[1] });
    expect(ruleFor(LIST, 'mirror.example', 8081)).toEqual({ host: 'mirror.example', rule: LIST.rules[3] });
    expect(ruleFor(LIST, '10.0.0.5', 8080)).toEqual({ host: '10.0.0.5', rule: LIST.rules[4] });
  });

  it('refuses a name outside the list, saying what would allow it', () => {
    expect(ruleFor(LIST, 'evil.example', 443)).toEqual({
      refused: { reason: 'evil.example is not in the allowlist', allow: 'evil.example' },
    });
  });

  it('refuses another port of a listed host, naming host:port as the entry', () => {
    expect(ruleFor(LIST, 'registry.example', 22)).toEqual({
      refused: {
        reason: 'port 22 of registry.example is not allowed (a host listed without a port allows 80 and 443)',
        allow: 'registry.example:22',
      },
    });
    expect(ruleFor(LIST, 'mirror.example', 443)).toMatchObject({ refused: { allow: 'mirror.example' } });
  });

  it('refuses an address no rule names, whatever form it is written in', () => {
    for (const literal of ['169.254.169.254', '0xa9.254.169.254', '[::1]', '10.0.0.6'])
      expect(ruleFor(LIST, literal, 80)).toMatchObject({
        refused: { reason: expect.stringMatching(/is an IP address that the allowlist does not name/) },
      });
  });

  it('refuses a guarded API unless allowed_hosts itself names it (a wildcard of allowed_hosts counts, a registry does not)', () => {
    expect(ruleFor({ ...LIST, rules: [...LIST.rules, rule('model.example')] }, 'model.example', 443)).toEqual(
      {
        refused: {
          reason:
            "model.example is the model's API endpoint: the tools reach it only when allowed_hosts names it",
          allow: 'model.example',
        },
      },
    );
    expect(ruleFor(LIST, 'v1.api.example', 443)).toMatchObject({ host: 'v1.api.example' });
    expect(ruleFor(LIST, 'api.github.com', 443)).toMatchObject({ refused: { allow: 'api.github.com' } });
  });

  it('refuses what is no host name at all', () => {
    expect(ruleFor(LIST, 'a b<c>', 80)).toEqual({ refused: { reason: '"a b<c>" is not a host name' } });
  });
});

describe('addressRefusal: where an allowed name may lead', () => {
  const registry = LIST.rules[0]!;
  const wildcard = LIST.rules[1]!;
  const named = LIST.rules[2]!;

  it('lets a public address through for any rule', () => {
    expect(
      [registry, wildcard, named].map((r) => addressRefusal(r, 'x.example', 443, '93.184.215.14')),
    ).toEqual([undefined, undefined, undefined]);
  });

  it('refuses loopback, private and link-local addresses (cloud metadata) to a wildcard or a configured registry', () => {
    const cases = [
      [wildcard, 'rebind.cdn.example', '127.0.0.1', 'a loopback address (127.0.0.1)'],
      [wildcard, 'rebind.cdn.example', '::ffff:127.0.0.1', 'a loopback address (::ffff:127.0.0.1)'],
      [registry, 'registry.example', '10.20.30.40', 'a private-network address (10.20.30.40)'],
      [
        registry,
        'registry.example',
        '169.254.169.254',
        'a link-local address (where cloud metadata services answer) (169.254.169.254)',
      ],
      [registry, 'registry.example', 'fd00:ec2::254', 'a private-network address (fd00:ec2::254)'],
    ] as const;
    for (const [r, host, address, words] of cases)
      expect(addressRefusal(r, host, 443, address)).toEqual({
        reason: `${host} resolves to ${words}; only a host named in allowed_hosts may lead there`,
        allow: host,
      });
  });

  it('lets a host named exactly in allowed_hosts lead to a private address (a self-hosted mirror, a database)', () => {
    expect(addressRefusal(named, 'db.internal', 443, '10.1.1.1')).toBeUndefined();
    expect(addressRefusal(named, 'db.internal', 443, '127.0.0.1')).toBeUndefined();
  });

  it("lets a mirror the runner's own settings name lead to a loopback or private address, never a link-local one", () => {
    const mirror: HostRule = { ...rule('pypi.corp.test', "the runner's pip settings", 3141), runner: true };
    expect(addressRefusal(mirror, 'pypi.corp.test', 3141, '127.0.0.1')).toBeUndefined();
    expect(addressRefusal(mirror, 'pypi.corp.test', 3141, '10.1.2.3')).toBeUndefined();
    expect(addressRefusal(mirror, 'pypi.corp.test', 3141, '169.254.169.254')).toEqual({
      reason:
        'pypi.corp.test resolves to a link-local address (where cloud metadata services answer) (169.254.169.254); only a host named in allowed_hosts may lead there',
      allow: 'pypi.corp.test:3141',
    });
    // Only on its own port: the name allows no other (ruleFor), whatever it resolves to.
    const list: Allowlist = { rules: [mirror], guarded: [] };
    expect(ruleFor(list, 'pypi.corp.test', 5432)).toMatchObject({
      refused: { reason: expect.stringContaining('port 5432 of pypi.corp.test is not allowed') },
    });
  });

  it('never lets anything lead to a reserved or multicast address, named or not', () => {
    expect(addressRefusal(named, 'db.internal', 443, '0.0.0.0')).toEqual({
      reason: 'db.internal resolves to a reserved or multicast address (0.0.0.0), which no tool may reach',
    });
  });

  it('skips the check only for an answer the test’s resolver marked as standing in for a public one', () => {
    expect(addressRefusal(wildcard, 'a.cdn.example', 80, '127.0.0.1', true)).toBeUndefined();
    expect(addressRefusal(wildcard, 'a.cdn.example', 80, '127.0.0.1', false)).toBeDefined();
  });
});
