/**
 * Pure rules of the tunnel: which host is local, which custom domain to request, which local
 * address to forward to, and cutting a credential out of a provider message.
 */
import ipaddr from 'ipaddr.js';
import { safeUrl } from '../../platform/safe-url.js';
import type { ListenAddress } from './tunnel.types.js';

/** Names that only resolve on this machine or this network: never a reservable public domain. */
const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.lan', '.home.arpa'];

function hostnameOf(hostServer: string): string {
  // URL keeps the brackets of an IPv6 literal.
  return new URL(hostServer).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

/**
 * True when `HOST_SERVER` points at this machine: `localhost` (and `*.localhost`), a loopback or
 * unspecified address. This is the `is_localhost` of `GET /api/config/host`: such a URL is
 * unreachable for webhook senders.
 */
export function isLocalHost(hostServer: string): boolean {
  const host = hostnameOf(hostServer);
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (!ipaddr.isValid(host)) return false;
  let addr = ipaddr.parse(host);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress())
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  const range = addr.range();
  return range === 'loopback' || range === 'unspecified';
}

/**
 * The custom domain to request for `HOST_SERVER`, or undefined for a random public URL. Only a
 * public DNS name can be reserved on the tunnel account, so local hosts, IP literals (a LAN or
 * public address), single-label names and local-only suffixes get a random URL.
 */
export function customDomain(hostServer: string): string | undefined {
  const host = hostnameOf(hostServer);
  if (isLocalHost(hostServer) || ipaddr.isValid(host) || !host.includes('.')) return undefined;
  if (LOCAL_SUFFIXES.some((s) => host.endsWith(s))) return undefined;
  return host;
}

/**
 * The URL the tunnel forwards to: the address the server actually listens on, with a wildcard
 * bind (`0.0.0.0`, `::`) replaced by loopback, which such a bind also serves.
 */
export function forwardUrl(listen: ListenAddress): string {
  let host = listen.address;
  if (host === '0.0.0.0' || host === '') host = '127.0.0.1';
  if (host === '::') host = '::1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${listen.port}`;
}

/**
 * Tunnel provider messages are logged only through this: a value shaped like an ngrok auth token
 * (two long base62 runs joined by `_`) or following the word "authtoken" is cut out, so even a
 * provider that echoes the credential ("Your authtoken: …") cannot put it in a log line.
 */
export function scrubCredential(message: string): string {
  return message
    .replace(/(authtoken\s*[:=]\s*["']?)[^\s'",;]+/gi, '$1[redacted]')
    .replace(/\b[A-Za-z0-9]{16,}_[A-Za-z0-9]{8,}\b/g, '[redacted]')
    .slice(0, 500);
}

/**
 * The start-up banner's line for the public URL, printed once the tunnel is up on the stream of
 * "algodesk is running at", so an operator sees it whatever `LOG_LEVEL` hides. Scheme, host and
 * path only, token shapes scrubbed: nothing of a provider's answer but the address reaches it.
 */
export function publicUrlBanner(url: string): string {
  return `algodesk public URL (tunnel): ${scrubCredential(safeUrl(url) ?? '(unusable URL)')}\n`;
}
