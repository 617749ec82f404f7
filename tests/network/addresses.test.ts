import { describe, expect, it } from 'vitest';
import { addressKind } from '../../src/network/addresses.js';

describe('addressKind', () => {
  it('knows the runner’s own loopback, private networks and cloud metadata’s link-local range, IPv4 and IPv6', () => {
    const kinds = Object.fromEntries(
      [
        '127.0.0.1',
        '127.255.0.9',
        '::1',
        '10.1.2.3',
        '172.16.0.1',
        '172.31.255.255',
        '192.168.1.1',
        '100.64.0.1',
        'fd12::1',
        '169.254.169.254',
        'fe80::1',
        '0.0.0.0',
        '::',
        '224.0.0.1',
        '255.255.255.255',
      ].map((address) => [address, addressKind(address)]),
    );
    expect(kinds).toEqual({
      '127.0.0.1': 'loopback',
      '127.255.0.9': 'loopback',
      '::1': 'loopback',
      '10.1.2.3': 'private',
      '172.16.0.1': 'private',
      '172.31.255.255': 'private',
      '192.168.1.1': 'private',
      '100.64.0.1': 'private',
      'fd12::1': 'private',
      '169.254.169.254': 'link-local',
      'fe80::1': 'link-local',
      '0.0.0.0': 'reserved',
      '::': 'reserved',
      '224.0.0.1': 'reserved',
      '255.255.255.255': 'reserved',
    });
  });

  it('judges an IPv6 address that carries an IPv4 one (mapped, NAT64) as that IPv4 address', () => {
    expect(
      ['::ffff:127.0.0.1', '::ffff:a9fe:a9fe', '64:ff9b::10.0.0.1', '::ffff:8.8.8.8'].map(addressKind),
    ).toEqual(['loopback', 'link-local', 'private', 'public']);
  });

  it('judges every IPv6 form that embeds an IPv4 address by that address', () => {
    const kinds = Object.fromEntries(
      [
        '::127.0.0.1', // IPv4-compatible
        '::a9fe:a9fe',
        '::ffff:0:127.0.0.1', // IPv4-translated
        '::ffff:0:a00:1',
        '64:ff9b::7f00:1', // NAT64, well-known prefix
        '2002:7f00:1::1', // 6to4
        '2002:a9fe:a9fe:1:2:3:4:5',
        '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo: the client is 127.0.0.1, inverted
        '2001:0:4136:e378:8000:63bf:f5ff:fffe', // … and here 10.0.0.1
        '::8.8.8.8',
        '2002:808:808::1',
        '2001:0:4136:e378:8000:63bf:f7f7:f7f7', // Teredo client 8.8.8.8
      ].map((address) => [address, addressKind(address)]),
    );
    expect(kinds).toEqual({
      '::127.0.0.1': 'loopback',
      '::a9fe:a9fe': 'link-local',
      '::ffff:0:127.0.0.1': 'loopback',
      '::ffff:0:a00:1': 'private',
      '64:ff9b::7f00:1': 'loopback',
      '2002:7f00:1::1': 'loopback',
      '2002:a9fe:a9fe:1:2:3:4:5': 'link-local',
      '2001:0:4136:e378:8000:63bf:80ff:fffe': 'loopback',
      '2001:0:4136:e378:8000:63bf:f5ff:fffe': 'private',
      '::8.8.8.8': 'public',
      '2002:808:808::1': 'public',
      '2001:0:4136:e378:8000:63bf:f7f7:f7f7': 'public',
    });
    // `::` and `::1` stay IPv6's own, not 0.0.0.0 and 0.0.0.1.
    expect(['::', '::1', '::0.0.0.1'].map(addressKind)).toEqual(['reserved', 'loopback', 'loopback']);
  });

  it('counts site-local fec0::/10 and the local-use NAT64 range 64:ff9b:1::/48 as private', () => {
    expect(
      ['fec0::1', 'feff::1', '64:ff9b:1::8.8.8.8', '64:ff9b:1:7f00:1::', '64:ff9b:2::1'].map(addressKind),
    ).toEqual(['private', 'private', 'private', 'private', 'public']);
  });

  it('calls public what lies outside every such range, and reserved what is no address', () => {
    expect(
      ['8.8.8.8', '172.32.0.1', '192.169.0.1', '2606:4700::1111', 'example.com'].map(addressKind),
    ).toEqual(['public', 'public', 'public', 'public', 'reserved']);
  });
});
