import { afterEach, describe, expect, it } from 'vitest';
import { systemResolver, TEST_RESOLVER, toolsResolver } from '../../../src/network/proxy/resolver.js';

afterEach(() => {
  delete (globalThis as Record<symbol, unknown>)[TEST_RESOLVER];
});

describe('systemResolver', () => {
  it('answers an address with itself, and a name from the system (localhost, from /etc/hosts), IPv4 first', async () => {
    const resolve = systemResolver();
    expect(await resolve('::1')).toEqual({ addresses: [{ address: '::1', family: 6 }] });
    const local = await resolve('localhost');
    expect(local.addresses[0]).toEqual({ address: '127.0.0.1', family: 4 });
    expect(local.trusted).toBeUndefined();
  });

  it('keeps an answer for a while: the same lookup is not made twice', () => {
    const resolve = systemResolver();
    expect(resolve('localhost')).toBe(resolve('localhost'));
  });
});

describe('toolsResolver', () => {
  it('is the system’s alone unless code in this process lent a map', async () => {
    expect((await toolsResolver()('localhost')).port).toBeUndefined();
  });

  it('answers from a lent map first (its port and trust included), and from the system for the rest', async () => {
    (globalThis as Record<symbol, unknown>)[TEST_RESOLVER] = {
      'registry.test': { address: '127.0.0.1', port: 4873, trusted: true },
      'rebind.test': { address: '127.0.0.1' },
    };
    const resolve = toolsResolver();
    expect(await resolve('registry.test')).toEqual({
      addresses: [{ address: '127.0.0.1', family: 4 }],
      port: 4873,
      trusted: true,
    });
    expect(await resolve('rebind.test')).toEqual({ addresses: [{ address: '127.0.0.1', family: 4 }] });
    expect((await resolve('localhost')).addresses[0]?.address).toBe('127.0.0.1');
  });
});
