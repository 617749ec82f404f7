// One table of secret words for every toolchain, one unquote, one URL scrub: each judged as before, and in
// one pass over what it reads, however hostile (200 kB of the worst case each; no timing is asserted: the
// answers are, and a quadratic reading of them would take minutes).
import { describe, expect, it } from 'vitest';
import {
  hasSecretProperty,
  isSecretName,
  unquote,
  withoutUrlSecrets,
} from '../../../src/network/runner/secret-keys.js';

const BIG = 200_000;

describe('isSecretName', () => {
  it('judges each toolchain’s keys by its own words and names', () => {
    expect(isSecretName('npm', '_auth')).toBe(true);
    expect(isSecretName('npm', 'Email')).toBe(true);
    expect(isSecretName('npm', 'cafile')).toBe(false);
    expect(isSecretName('pip', 'client_cert')).toBe(true);
    expect(isSecretName('pip', 'cert')).toBe(false);
    expect(isSecretName('yarn', 'npmAuthIdent')).toBe(true);
    expect(isSecretName('yarn', 'npmAlwaysAuth')).toBe(false);
    expect(isSecretName('yarn', 'httpsKeyFilePath')).toBe(true);
    expect(isSecretName('gem', ':rubygems_api_key:')).toBe(true);
    expect(isSecretName('gradle', 'systemProp.https.proxyUser')).toBe(true);
    expect(isSecretName('cargo', 'credential-provider')).toBe(true);
    expect(isSecretName('cargo', 'index')).toBe(false);
    expect(isSecretName('go', 'GOPASSWORD')).toBe(true);
    expect(isSecretName('go', 'GOPROXY')).toBe(false);
  });
});

describe('hasSecretProperty', () => {
  it('finds a -D property that names a secret, in any case, and only one an = ends', () => {
    expect(hasSecretProperty('-Xmx2g -Dhttp.proxyPassword=x')).toBe(true);
    expect(hasSecretProperty('-dHTTP.PROXYPASSWORD=x')).toBe(true);
    expect(hasSecretProperty('-Xmx2g -Dfile.encoding=UTF-8 -Dpassword')).toBe(false);
    expect(hasSecretProperty('x-Dsecret.file=y')).toBe(true);
  });

  it('reads 200 kB of -D without an = once', () => {
    expect(hasSecretProperty('-D'.repeat(BIG / 2))).toBe(false);
    expect(hasSecretProperty(`${'-D'.repeat(BIG / 2)}token=x`)).toBe(true);
  });
});

describe('unquote', () => {
  it('takes off the quotes it is given, the same at both ends, and reads what is inside', () => {
    expect(unquote(' "a b" ', `"'`)).toBe('a b');
    expect(unquote("'a'", '"')).toBe("'a'");
    expect(unquote('"a\'', `"'`)).toBe('"a\'');
    expect(unquote('"', `"'`)).toBe('"');
    expect(unquote('"x"', '"', (inner, quote) => `${quote}${inner.toUpperCase()}`)).toBe('"X');
  });
});

describe('withoutUrlSecrets', () => {
  it('drops a URL’s login and its query, where a token may be', () => {
    expect(withoutUrlSecrets('registry=https://u:p@npm.corp.example/path?token=s3cr3t&x=1')).toBe(
      'registry=https://npm.corp.example/path',
    );
    expect(
      withoutUrlSecrets('<url>https://m.corp.example/m2?sig=s3cr3t</url> "https://a.example/?k=s3cr3t"'),
    ).toBe('<url>https://m.corp.example/m2</url> "https://a.example/"');
    expect(withoutUrlSecrets('why? https://a.example/p and b@c')).toBe('why? https://a.example/p and b@c');
    // A URL inside another's path loses its login before the outer one loses its query.
    expect(withoutUrlSecrets('https://a.example/x/b://u:s3cr3t@h/?q=1 next')).toBe(
      'https://a.example/x/b://h/ next',
    );
  });

  it('reads 200 kB of scheme characters, of URLs in a URL and of logins once', () => {
    expect(withoutUrlSecrets('a.'.repeat(BIG / 2))).toBe('a.'.repeat(BIG / 2));
    expect(withoutUrlSecrets(`${'a://'.repeat(BIG / 4)}u@h?t=s3cr3t`)).toBe(`${'a://'.repeat(BIG / 4)}h`);
    expect(withoutUrlSecrets(`x://${'u'.repeat(BIG)}`)).toBe(`x://${'u'.repeat(BIG)}`);
  });
});
