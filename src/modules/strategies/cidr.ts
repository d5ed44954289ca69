import ipaddr from 'ipaddr.js';

/** A parsed allowlist entry. */
export type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * Parses one allowlist entry: a CIDR, or a bare address (as /32 or /128). Returns the canonical
 * text, or throws with a message naming the entry.
 */
export function normaliseCidr(entry: string): string {
  const raw = entry.trim();
  try {
    if (raw.includes('/')) {
      const [addr, bits] = ipaddr.parseCIDR(raw);
      return `${addr.toString()}/${bits}`;
    }
    const addr = ipaddr.parse(raw);
    return `${addr.toString()}/${addr.kind() === 'ipv4' ? 32 : 128}`;
  } catch {
    throw new Error(`"${raw.slice(0, 64)}" is not an IP address or CIDR range`);
  }
}

export function parseAllowlist(entries: readonly string[]): Cidr[] {
  return entries.map((e) => ipaddr.parseCIDR(e) as Cidr);
}

/** True when `ip` falls in one of the ranges (IPv4-mapped IPv6 addresses match IPv4 ranges). */
export function ipAllowed(ip: string, ranges: readonly Cidr[]): boolean {
  if (ranges.length === 0) return true;
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.process(ip);
  } catch {
    return false;
  }
  return ranges.some(([net, bits]) => addr.kind() === net.kind() && addr.match(net, bits));
}
