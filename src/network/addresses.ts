// What kind of address a name leads to: the public internet, or the runner's own loopback, a private or
// link-local network (cloud metadata at 169.254.169.254), or a range no tool has business with. Pure.
import { BlockList, isIP } from 'node:net';

export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'reserved';

/** Each non-public range, IPv4 and IPv6, with the kind a refusal names. */
const RANGES: ReadonlyArray<readonly [Exclude<AddressKind, 'public'>, string, number, 'ipv4' | 'ipv6']> = [
  ['reserved', '0.0.0.0', 8, 'ipv4'], // "this network": 0.0.0.0 reaches the host itself
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '100.64.0.0', 10, 'ipv4'], // carrier-grade NAT, shared address space
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['reserved', '192.0.0.0', 24, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['reserved', '198.18.0.0', 15, 'ipv4'], // benchmarking
  ['reserved', '224.0.0.0', 4, 'ipv4'], // multicast
  ['reserved', '240.0.0.0', 4, 'ipv4'], // reserved, and the broadcast address
  ['reserved', '::', 128, 'ipv6'],
  ['loopback', '::1', 128, 'ipv6'],
  ['private', '64:ff9b:1::', 48, 'ipv6'], // local-use NAT64: an IPv4 address at the network's own offset
  ['private', 'fc00::', 7, 'ipv6'], // unique local
  ['private', 'fec0::', 10, 'ipv6'], // site-local: deprecated, still routed inside some networks
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['reserved', 'ff00::', 8, 'ipv6'], // multicast
];

const LISTS = new Map(
  (['loopback', 'private', 'link-local', 'reserved'] as const).map((kind) => {
    const list = new BlockList();
    for (const [rangeKind, network, prefix, family] of RANGES)
      if (rangeKind === kind) list.addSubnet(network, prefix, family);
    return [kind, list];
  }),
);

/** An IPv4 address in dotted form from two 16-bit groups. */
const ipv4Of = (high: number, low: number): string =>
  [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');

/**
 * The IPv4 address an IPv6 one carries, in dotted form: such an address reaches that IPv4 host (through the
 * host's own stack, a NAT64 or a relay), so it is judged as one. IPv4-compatible `::a.b.c.d` (but `::` and
 * `::1`, which are IPv6's own), IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, the NAT64
 * prefix `64:ff9b::/96`, 6to4 `2002:AABB:CCDD::/48`, and Teredo `2001:0::/32`, whose client (the host it
 * reaches) is the last 32 bits inverted. The local-use NAT64 prefix `64:ff9b:1::/48` is not read here: where
 * in it the IPv4 address sits depends on the network's own prefix length, so the whole range is private.
 */
function embeddedIpv4(address: string): string | undefined {
  const g = expandIpv6(address);
  if (!g) return undefined;
  const zero = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
  const compatible = zero(0, 6) && (g[6] !== 0 || g[7]! > 1);
  const mapped = zero(0, 5) && g[5] === 0xffff;
  const translated = zero(0, 4) && g[4] === 0xffff && g[5] === 0;
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6);
  if (compatible || mapped || translated || nat64) return ipv4Of(g[6]!, g[7]!);
  if (g[0] === 0x2002) return ipv4Of(g[1]!, g[2]!);
  if (g[0] === 0x2001 && g[1] === 0) return ipv4Of(g[6]! ^ 0xffff, g[7]! ^ 0xffff);
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part read as two groups). */
function expandIpv6(address: string): number[] | undefined {
  let text = address.toLowerCase().split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    const [a, b, c, d] = dotted.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -dotted.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  const fill = 8 - front.length - back.length;
  if (fill < 0 || (tail === undefined && fill !== 0)) return undefined;
  return [...front, ...Array<number>(fill).fill(0), ...back];
}

/** The kind of an IP address; anything that is not one counts as `reserved` (never connected to). */
export function addressKind(address: string): AddressKind {
  const family = isIP(address);
  if (family === 0) return 'reserved';
  const v4 = family === 6 ? embeddedIpv4(address) : address;
  const [text, type] = v4 ? [v4, 'ipv4' as const] : [address, 'ipv6' as const];
  for (const [kind, list] of LISTS) if (list.check(text, type)) return kind;
  return 'public';
}

/** How a refusal names the kind: "a loopback address", "a private-network address"… */
export function kindWords(kind: AddressKind): string {
  return {
    public: 'a public address',
    loopback: 'a loopback address',
    private: 'a private-network address',
    'link-local': 'a link-local address (where cloud metadata services answer)',
    reserved: 'a reserved or multicast address',
  }[kind];
}
