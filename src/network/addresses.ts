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
  ['private', 'fc00::', 7, 'ipv6'], // unique local
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

/**
 * The 32 bits of an IPv4 address an IPv6 one carries (IPv4-mapped `::ffff:a.b.c.d`, or the NAT64 prefix
 * `64:ff9b::/96`), in dotted form: such an address reaches that IPv4 host, so it is judged as one.
 */
function embeddedIpv4(address: string): string | undefined {
  const groups = expandIpv6(address);
  if (!groups) return undefined;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0);
  if (!mapped && !nat64) return undefined;
  return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
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
