// The runner's settings files as the tools see them: every line that could hold a secret left out, every
// URL without its credentials, the rest (registries, CA files, strict-ssl) kept as written.
import { describe, expect, it } from 'vitest';
import { filterSettings, isCertificateFile, settingValues } from '../../../src/network/runner/filter.js';

const NPMRC = [
  '; a comment that quotes //old.example/:_authToken=npm_commentedOut',
  'registry=https://user:npm_pass@mirror.corp.test/npm/',
  '@corp:registry=https://npm.corp.test:8443/',
  '//npm.corp.test:8443/:_authToken=npm_scopedToken0001',
  '//npm.corp.test:8443/:keyfile=/home/runner/client.key',
  '_auth=dXNlcjpwYXNz',
  '_authToken=npm_globalToken0001',
  'cafile=/etc/corp/ca.pem',
  'ca[]="-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----"',
  'strict-ssl=true',
  'email=someone@corp.test',
  'cert=-----BEGIN CERTIFICATE-----client',
  'key=-----BEGIN PRIVATE KEY-----',
  'keyfile=/home/runner/client.key',
  'https-proxy=http://proxyuser:proxypass@proxy.corp.test:3128',
  'save-exact=true',
].join('\n');

describe('filterSettings', () => {
  it('keeps npm’s registries, scoped registries, CA and strict-ssl; leaves out tokens, logins, client keys and proxies', () => {
    expect(filterSettings('npm', NPMRC)).toBe(
      [
        'registry=https://mirror.corp.test/npm/',
        '@corp:registry=https://npm.corp.test:8443/',
        'cafile=/etc/corp/ca.pem',
        'ca[]="-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----"',
        'strict-ssl=true',
        'save-exact=true',
        '',
      ].join('\n'),
    );
  });

  it('keeps pip’s sections, indexes (continuation lines too), trusted hosts and CA bundle; never client_cert', () => {
    const pip = [
      '[global]',
      'index-url = https://pipuser:pip_secret0001@pypi.corp.test/simple',
      'extra-index-url =',
      '    https://extra.corp.test/simple',
      '    https://tok_en0001@other.corp.test/simple',
      'cert = /etc/corp/ca.pem',
      'client-cert = /home/runner/pip-client.pem',
      '  /continuation/of/a/secret',
      'client_cert = /home/runner/pip-client2.pem',
      '# password = hunter2',
      '[install]',
      'trusted-host = pypi.corp.test',
      'find-links: https://fl:pip_colon0001@links.corp.test/',
      'client-cert: /home/runner/pip-client3.pem',
    ].join('\n');
    expect(filterSettings('pip', pip)).toBe(
      [
        '[global]',
        'index-url = https://pypi.corp.test/simple',
        'extra-index-url =',
        '    https://extra.corp.test/simple',
        '    https://other.corp.test/simple',
        'cert = /etc/corp/ca.pem',
        '[install]',
        'trusted-host = pypi.corp.test',
        'find-links: https://links.corp.test/',
        '',
      ].join('\n'),
    );
  });

  it("keeps Maven's mirrors, repositories and profiles; leaves out servers, proxies, credentials and comments", () => {
    const xml = [
      '<settings>',
      '  <!-- <server><password>commented0001</password></server> -->',
      '  <servers><server><id>corp</id><username>ci</username><password>mvn_secret0001</password></server></servers>',
      '  <proxies><proxy><host>proxy.corp.test</host><password>proxy0001</password></proxy></proxies>',
      '  <mirrors><mirror><id>corp</id><url>https://u:mvn_url0001@maven.corp.test/m2</url></mirror></mirrors>',
      '  <profiles><profile><repositories><repository><url>https://repo.corp.test/r</url></repository></repositories></profile></profiles>',
      '</settings>',
    ].join('\n');
    const kept = filterSettings('maven', xml);
    expect(kept).toContain(
      '<mirrors><mirror><id>corp</id><url>https://maven.corp.test/m2</url></mirror></mirrors>',
    );
    expect(kept).toContain('<url>https://repo.corp.test/r</url>');
    expect(kept).not.toMatch(/0001|<servers|<proxies|<username/);
  });

  it('gives nothing for a file of secrets alone', () => {
    expect(filterSettings('npm', '//r.corp.test/:_authToken=npm_x\n; nothing else\n')).toBe('');
  });
});

describe('settingValues', () => {
  it('reads a key’s values, continuation lines and quotes included', () => {
    expect(settingValues('npm', NPMRC, /^(?:@[^:]+:)?registry$/)).toEqual([
      'https://user:npm_pass@mirror.corp.test/npm/',
      'https://npm.corp.test:8443/',
    ]);
    expect(settingValues('npm', NPMRC, /(?:^|:)keyfile$/)).toEqual([
      '/home/runner/client.key',
      '/home/runner/client.key',
    ]);
    expect(
      settingValues(
        'pip',
        '[global]\nextra-index-url =\n  https://a.test/\n  https://b.test/\n',
        /^extra-index-url$/,
      ),
    ).toEqual(['https://a.test/', 'https://b.test/']);
  });
});

describe('isCertificateFile', () => {
  it('takes PEM certificates alone, never a key', () => {
    const cert = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    expect(isCertificateFile(cert + cert)).toBe(true);
    expect(isCertificateFile(`${cert}-----BEGIN PRIVATE KEY-----\nMII\n-----END PRIVATE KEY-----\n`)).toBe(
      false,
    );
    expect(isCertificateFile('-----BEGIN RSA PRIVATE KEY-----\n')).toBe(false);
    expect(isCertificateFile('registry=https://x.test/\n')).toBe(false);
  });
});

describe('secrets in the spellings a review found', () => {
  it('splits at a lone carriage return as npm and pip do, so a token after one is judged by its own key', () => {
    expect(filterSettings('npm', 'registry=https://r.example/\r_authToken=s3cr3t-cr\n')).toBe(
      'registry=https://r.example/\n',
    );
    expect(
      filterSettings('pip', '[global]\rindex-url = https://p.example/\rpassword = s3cr3t-cr\n'),
    ).not.toContain('s3cr3t');
  });

  it('takes the quotes off a key before judging it, as npm’s ini parser does', () => {
    const text = [
      '"//r.example/:username"=s3cr3t-user',
      '"//r.example/:_authToken"=s3cr3t-quoted',
      "'email'=s3cr3t@example.com",
      'strict-ssl=true',
    ].join('\n');
    expect(filterSettings('npm', text)).toBe('strict-ssl=true\n');
  });

  it('shows nothing of a Maven file whose secret element is never closed', () => {
    const open =
      '<settings><mirrors><mirror><url>https://m.example/</url></mirror></mirrors><password>s3cr3t-open';
    expect(filterSettings('maven', open)).toBe('');
    const closed =
      '<settings><servers><server><password>s3cr3t</password></server></servers><localRepository>/r</localRepository></settings>';
    expect(filterSettings('maven', closed)).toContain('<localRepository>/r</localRepository>');
  });
});

describe('filterSettings, on hostile lines and files (200 kB each, read once)', () => {
  const BIG = 200_000;

  it('finds a key before the first `=` once, however many spaces stand before it or none follows', () => {
    expect(filterSettings('npm', `registry${' '.repeat(BIG)}x\nstrict-ssl=true\n`)).toBe('strict-ssl=true\n');
    expect(filterSettings('npm', `registry${' '.repeat(BIG)}=https://npm.corp.test/\n`)).toBe(
      `registry${' '.repeat(BIG)}=https://npm.corp.test/\n`,
    );
    expect(settingValues('pip', `[global]\ncert${' '.repeat(BIG)}: /ca.pem\n`, /^cert$/)).toEqual([
      '/ca.pem',
    ]);
  });

  it('reads a Maven file with comments or secret elements left open, by the thousand, once', () => {
    const mirror = '<mirrors><mirror><url>https://maven.corp.test/m2</url></mirror></mirrors>';
    expect(filterSettings('maven', `${mirror}${'<!--'.repeat(BIG / 4)}`)).toBe('');
    expect(filterSettings('maven', `${mirror}${'<password>'.repeat(BIG / 10)}`)).toBe('');
    expect(filterSettings('maven', `${mirror}${'<servers'.repeat(BIG / 8)}`)).toBe(
      `${mirror}${'<servers'.repeat(BIG / 8)}`,
    );
    expect(filterSettings('maven', `${mirror}${'<password>s3cr3t</password>'.repeat(BIG / 27)}`)).toBe(
      mirror,
    );
  });

  it('leaves out a secret element nested in one of its name whole', () => {
    expect(filterSettings('maven', '<password><password></password>s3cr3t</password>x')).toBe('x');
    expect(filterSettings('maven', '<servers/><privateKey a="b"/>x<!-- <password> -->y')).toBe('xy');
  });
});

describe('a token in a URL’s query', () => {
  it('goes as a URL’s login goes, in every format', () => {
    expect(filterSettings('npm', 'registry=https://npm.corp.test/path?token=s3cr3t\n')).toBe(
      'registry=https://npm.corp.test/path\n',
    );
    expect(filterSettings('pip', '[global]\nindex-url = https://pypi.corp.test/simple?key=s3cr3t\n')).toBe(
      '[global]\nindex-url = https://pypi.corp.test/simple\n',
    );
    expect(filterSettings('maven', '<url>https://maven.corp.test/m2?sig=s3cr3t&amp;x=1</url>')).toBe(
      '<url>https://maven.corp.test/m2</url>',
    );
  });
});
