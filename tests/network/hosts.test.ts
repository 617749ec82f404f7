import { describe, expect, it } from 'vitest';
import {
  nameFits,
  normalizeHost,
  parseAllowedHosts,
  parseHostEntry,
  portFits,
  ruleFromUrl,
  ruleText,
  uniqueRules,
} from '../../src/network/hosts.js';

describe('normalizeHost', () => {
  it('writes a host as a URL holds it, whatever form an address was given in', () => {
    expect(
      [
        'Example.COM.',
        '127.1',
        '0x7f.0.0.1',
        '[::1]',
        '::FFFF:127.0.0.1',
        'bücher.example',
        'a_b.example',
      ].map(normalizeHost),
    ).toEqual([
      'example.com',
      '127.0.0.1',
      '127.0.0.1',
      '::1',
      '::ffff:7f00:1',
      'xn--bcher-kva.example',
      'a_b.example',
    ]);
  });

  it('is undefined for what is no host: a path, a user, a port, a bad label, a bad address', () => {
    expect(
      ['', 'a/b', 'user@host', 'host:80', '-x.example', 'x-.example', 'a..b', '999.1.1.1', 'a b'].map(
        normalizeHost,
      ),
    ).toEqual(Array(9).fill(undefined));
  });
});

describe('parseHostEntry', () => {
  it('reads a host, a wildcard, a port, an IPv6 address in brackets and a URL', () => {
    expect(
      [
        'registry.example',
        '*.corp.example:8443',
        'localhost:5432',
        '[::1]:6379',
        'https://mirror.example:8081/simple',
      ].map((entry) => parseHostEntry(entry, 'test')),
    ).toEqual([
      { host: 'registry.example', source: 'test' },
      { host: '*.corp.example', port: 8443, source: 'test' },
      { host: 'localhost', port: 5432, source: 'test' },
      { host: '::1', port: 6379, source: 'test' },
      { host: 'mirror.example', port: 8081, source: 'test' },
    ]);
  });

  it('refuses a wildcard over an address or a top-level name, a port out of range and a wildcard inside a name', () => {
    expect(
      ['*.127.0.0.1', '*.example', 'a.example:0', 'a.example:70000', 'a.*.example', '**.a.example'].map(
        (entry) => parseHostEntry(entry, 'test'),
      ),
    ).toEqual(Array(6).fill(undefined));
  });
});

describe('ruleFromUrl', () => {
  it('takes http(s) URLs (cargo’s sparse+ too), with the port they name', () => {
    expect(ruleFromUrl('sparse+https://index.example/', 'cargo')).toEqual({
      host: 'index.example',
      source: 'cargo',
    });
    expect(ruleFromUrl('http://user:pw@nexus.example:8081/repository/npm/', 'npm')).toEqual({
      host: 'nexus.example',
      port: 8081,
      source: 'npm',
    });
  });

  it('leaves out what no proxy reaches: a file index, a bare word, ssh', () => {
    expect(
      ['file:///opt/pypi/simple', 'direct', 'off', 'ssh://git@host.example/x'].map((url) =>
        ruleFromUrl(url, 'x'),
      ),
    ).toEqual(Array(4).fill(undefined));
  });
});

describe('parseAllowedHosts', () => {
  it('reads entries one per line or comma-separated, blank lines and spaces aside', () => {
    expect(parseAllowedHosts('a.example,\n\n  b.example:8080 , *.c.example\n')).toEqual({
      rules: [
        { host: 'a.example', source: 'allowed_hosts' },
        { host: 'b.example', port: 8080, source: 'allowed_hosts' },
        { host: '*.c.example', source: 'allowed_hosts' },
      ],
    });
    expect(parseAllowedHosts('')).toEqual({ rules: [] });
  });

  it('names the entry that is no host, and refuses a wildcard over everything', () => {
    expect(parseAllowedHosts('ok.example, no/host')).toEqual({
      problem:
        "allowed_hosts: 'no/host' is not a host name, a *.example.com wildcard, an address or host:port",
    });
    expect(parseAllowedHosts('*:443')).toEqual({
      problem: "allowed_hosts: '*:443' would allow every host; set tool_network: all for that",
    });
  });
});

describe('matching', () => {
  const wildcard = { host: '*.example.com', source: 't' };
  it('a wildcard covers every name below it, never the name itself nor a look-alike', () => {
    expect(
      ['a.example.com', 'a.b.example.com', 'example.com', 'evilexample.com', 'example.com.evil'].map((host) =>
        nameFits(wildcard, host),
      ),
    ).toEqual([true, true, false, false, false]);
  });

  it('a rule without a port lets 80 and 443 through; one with a port, that port alone', () => {
    expect([80, 443, 22, 8080].map((port) => portFits(wildcard, port))).toEqual([true, true, false, false]);
    expect([80, 5432].map((port) => portFits({ host: 'localhost', port: 5432, source: 't' }, port))).toEqual([
      false,
      true,
    ]);
  });

  it('writes a rule back as allowed_hosts takes it, and keeps the first of repeats', () => {
    expect([{ host: '::1', port: 5432 }, { host: 'a.example' }].map(ruleText)).toEqual([
      '[::1]:5432',
      'a.example',
    ]);
    expect(
      uniqueRules([
        { host: 'a.example', source: 'first' },
        { host: 'a.example', source: 'second' },
        { host: 'a.example', port: 8080, source: 'third' },
      ]).map((rule) => rule.source),
    ).toEqual(['first', 'third']);
  });
});
