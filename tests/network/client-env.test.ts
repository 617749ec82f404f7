import { describe, expect, it } from 'vitest';
import { proxyEnv } from '../../src/network/client-env.js';

describe('proxyEnv', () => {
  it('names the proxy on the tools’ loopback for every client, in both cases, and keeps loopback their own', () => {
    const env = proxyEnv(4321);
    const proxied = Object.entries(env).filter(([, value]) => value === 'http://127.0.0.1:4321');
    expect(proxied.map(([name]) => name).sort()).toEqual(
      [
        'CARGO_HTTP_PROXY',
        'HTTPS_PROXY',
        'HTTP_PROXY',
        'PIP_PROXY',
        'YARN_HTTPS_PROXY',
        'YARN_HTTP_PROXY',
        'http_proxy',
        'https_proxy',
        'npm_config_https_proxy',
        'npm_config_proxy',
      ].sort(),
    );
    expect([env.NO_PROXY, env.no_proxy, env.npm_config_noproxy]).toEqual(
      Array(3).fill('localhost,127.0.0.1,::1'),
    );
    expect(env.NODE_USE_ENV_PROXY).toBe('1');
  });
});
