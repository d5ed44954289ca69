import ipaddr from 'ipaddr.js';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Proxy headers in the spec's order ("Authentication", client-IP resolution): the CDN
 * connecting-IP header, True-Client-IP, X-Real-IP, the first X-Forwarded-For entry, X-Client-IP.
 */
const PROXY_HEADERS = [
  'cf-connecting-ip',
  'true-client-ip',
  'x-real-ip',
  'x-forwarded-for',
  'x-client-ip',
] as const;

/**
 * Canonical text of an IP address, or undefined when `raw` is not one. IPv4-mapped IPv6
 * (`::ffff:1.2.3.4`) becomes plain IPv4 so one client has one identity; IPv6 is written in its
 * compact lower-case form; zone ids and brackets are dropped.
 */
const DOTTED_QUAD = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

export function normaliseIp(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  // Fast path for the common case (a plain IPv4 peer), already canonical.
  if (DOTTED_QUAD.test(raw)) return raw;
  // A dual-stack listener's IPv4 peers (`::ffff:1.2.3.4`): no parsing either.
  if (raw.startsWith('::ffff:') && DOTTED_QUAD.test(raw.slice(7))) return raw.slice(7);
  let v = raw.trim();
  if (v.startsWith('[') && v.includes(']')) v = v.slice(1, v.indexOf(']'));
  const zone = v.indexOf('%');
  if (zone >= 0) v = v.slice(0, zone);
  if (v.length === 0 || v.length > 45 || !ipaddr.isValid(v)) return undefined;
  // ipaddr.isValid accepts legacy IPv4 forms such as "1" or "0x7f.1"; only dotted quads count.
  if (!v.includes(':') && !ipaddr.IPv4.isValidFourPartDecimal(v)) return undefined;
  const addr = ipaddr.parse(v);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (addr as ipaddr.IPv6).toIPv4Address().toString();
  }
  return addr.toString();
}

/**
 * The one client address a request is judged by. With `trustProxyHeaders` false only the peer
 * address counts (headers are attacker-controlled); with it true the first header that holds a
 * valid address wins, garbage is skipped, and the peer address is the last resort.
 */
export function resolveClientIp(
  peer: string | undefined,
  headers: IncomingHttpHeaders,
  trustProxyHeaders: boolean,
): string {
  if (trustProxyHeaders) {
    for (const name of PROXY_HEADERS) {
      const raw = headers[name];
      const value = Array.isArray(raw) ? raw[0] : raw;
      if (value === undefined) continue;
      const candidate = name === 'x-forwarded-for' ? value.split(',')[0] : value;
      const ip = normaliseIp(candidate);
      if (ip !== undefined) return ip;
    }
  }
  return normaliseIp(peer) ?? '0.0.0.0';
}

/** Loopback addresses (127.0.0.0/8, ::1). */
export function isLoopback(ip: string): boolean {
  // Asked on every request (the ban check): a dotted quad, the usual case, needs no parsing.
  if (DOTTED_QUAD.test(ip)) return ip.startsWith('127.');
  return ipaddr.isValid(ip) && ipaddr.process(ip).range() === 'loopback';
}

/**
 * Addresses that belong to the operator's own network: private, link-local, unique-local,
 * carrier-grade NAT and loopback. A reverse proxy or a Docker gateway lives here.
 */
export function isInternal(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  const range = ipaddr.process(ip).range();
  return ['loopback', 'private', 'linkLocal', 'uniqueLocal', 'carrierGradeNat', 'unspecified'].includes(
    range,
  );
}
