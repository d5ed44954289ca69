/**
 * The parsers of single configuration values (numbers, booleans, hosts, URLs, log levels,
 * secrets): each returns the value or throws a message `loadConfig` reports with the variable's
 * name. The sandbox's own values are parsed in `config-sandbox.ts`.
 */
import { isIP } from 'node:net';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function parseInteger(raw: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(raw)) throw new Error(`"${raw}" is not an integer`);
  const n = Number(raw);
  if (n < min || n > max) throw new Error(`${n} is outside ${min}..${max}`);
  return n;
}

export function parseBoolean(raw: string): boolean {
  const v = raw.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw new Error(`"${raw}" is not a boolean (true/false)`);
}

/** One DNS label: letters, digits and inner hyphens, at most 63 characters. */
const HOST_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * An IPv4 or IPv6 address, or a host name (whether it resolves is checked when the server starts,
 * before anything else). Something that looks like an address but is not one (`999.1.1.1`) is
 * refused here, not handed to the resolver.
 */
export function parseHost(raw: string): string {
  if (isIP(raw)) return raw;
  if (/^[\d.]+$/.test(raw)) throw new Error(`"${raw}" is not a valid IPv4 address`);
  if (raw.includes(':')) throw new Error(`"${raw}" is not a valid IPv6 address`);
  const name = raw.endsWith('.') ? raw.slice(0, -1) : raw;
  if (name.length === 0 || name.length > 253 || !name.split('.').every((l) => HOST_LABEL.test(l)))
    throw new Error(`"${raw}" is not a host name or address`);
  return raw;
}

export function parseUrl(raw: string, protocols: string[]): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('is not a valid URL');
  }
  if (!protocols.includes(url.protocol)) throw new Error(`must use ${protocols.join(' or ')}`);
  return raw;
}

export function parseDatabaseUrl(raw: string): string {
  return parseUrl(raw, ['postgres:', 'postgresql:']);
}

export function parseLogLevel(raw: string): LogLevel {
  const v = raw.toLowerCase() === 'warning' ? 'warn' : raw.toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(v))
    throw new Error(`must be one of ${LOG_LEVELS.join(', ')}`);
  return v as LogLevel;
}

/** How log lines are written: `auto` (readable on a terminal, JSON otherwise), `json`, `pretty`. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export function parseLogFormat(raw: string): LogFormat {
  const v = raw.toLowerCase();
  if (!(LOG_FORMATS as readonly string[]).includes(v))
    throw new Error(`must be one of ${LOG_FORMATS.join(', ')}`);
  return v as LogFormat;
}

/** A bearer token: 16+ printable ASCII characters without spaces (what a header carries intact). */
export function parseMetricsToken(raw: string): string {
  if (raw.length < 16)
    throw new Error('must be at least 16 characters (32 random hex characters recommended)');
  if (!/^[\x21-\x7e]+$/.test(raw)) throw new Error('must be printable ASCII without spaces');
  return raw;
}

export function parseSecret(raw: string): string {
  if (raw.length < 16) throw new Error('must be at least 16 characters (64 hex characters recommended)');
  return raw;
}
