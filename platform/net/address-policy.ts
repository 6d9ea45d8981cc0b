import ipaddr from 'ipaddr.js';

/**
 * Which addresses an outbound webhook may reach. Only globally routable unicast is allowed:
 * loopback, private (RFC 1918), link-local (cloud metadata at 169.254.169.254 included), CGNAT,
 * unique-local IPv6, multicast, unspecified, reserved and documentation ranges, IPv4-mapped and
 * IPv4-embedding IPv6 forms (IPv4-compatible, NAT64, 6to4, Teredo) are refused, plus a few public metadata hosts.
 */
const EXTRA_FORBIDDEN: readonly string[] = [
  '168.63.129.16', // Azure wire server
  '100.100.100.200', // Alibaba Cloud metadata (also inside CGNAT)
];

export interface AddressVerdict {
  allowed: boolean;
  /** e.g. "loopback", "private", "linkLocal", "ipv4Mapped"; "unicast" when allowed. */
  range: string;
}

export function classifyAddress(address: string, options: { allowLoopback: boolean }): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return { allowed: false, range: 'unparseable' };
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    return { allowed: false, range: 'ipv4Mapped' };
  const range = parsed.range();
  if (EXTRA_FORBIDDEN.includes(parsed.toString())) return { allowed: false, range: 'metadata' };
  if (range === 'loopback') return { allowed: options.allowLoopback, range };
  // Deprecated IPv4-compatible IPv6 (::a.b.c.d, RFC 4291): not global unicast, and some stacks route it to IPv4.
  if (range === 'unicast' && parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).match(ipaddr.IPv6.parse('::'), 96))
    return { allowed: false, range: 'ipv4Compatible' };
  return { allowed: range === 'unicast', range };
}

export const isIpLiteral = (host: string): boolean => ipaddr.isValid(host.replace(/^\[|\]$/g, ''));
