/**
 * Pure pieces of the error log: turning a pino line into a row,
 * cleaning browser input, and the fingerprint that groups repeats of one problem.
 */
import { createHash } from 'node:crypto';
import type { ErrorLogTable } from '../../db/schema.js';
import { maskUrl } from '../../platform/logger.js';

/** Levels the store keeps, weakest first (pino's numbers 40, 50, 60). */
export const ERROR_LEVELS = ['warn', 'error', 'fatal'] as const;
export type ErrorLevel = (typeof ERROR_LEVELS)[number];
export type ErrorOrigin = 'server' | 'client';

const PINO_LEVELS: Record<number, ErrorLevel> = { 40: 'warn', 50: 'error', 60: 'fatal' };

/** Column caps (characters): long enough for a real stack, short enough to keep rows bounded. */
export const CAPS = {
  module: 100,
  message: 2_000,
  exception: 2_000,
  stack: 16_000,
  requestId: 64,
  method: 16,
  path: 2_048,
  url: 2_048,
  userAgent: 512,
  componentStack: 8_000,
  context: 4_000,
} as const;

/** A row to store (the repository adds the id): the table's columns, level and origin narrowed. */
export interface ErrorEntry extends Omit<ErrorLogTable, 'id' | 'level' | 'origin'> {
  level: ErrorLevel;
  origin: ErrorOrigin;
}

/** Cuts `s` to `max` characters, marking the cut. */
const CUT = '[truncated]';

export function cap(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - CUT.length)}${CUT}`;
}

// C0 controls except tab and newline, DEL, C1 controls, and the bidirectional overrides that
// make a log line read differently from what it holds. (NUL included: PostgreSQL cannot store it.)
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_KEEP_LINES = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_ALL = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]+/g;

/** One-line text: control characters (newlines too) become a space, spaces collapse; trimmed, capped. */
export function cleanLine(raw: string, max: number): string {
  return cap(raw.replace(CONTROL_ALL, ' ').replace(/ {2,}/g, ' ').trim(), max);
}

/** Multi-line text (stacks): newlines and tabs kept, other control characters dropped. */
export function cleanBlock(raw: string, max: number): string {
  return cap(raw.replace(/\r\n?/g, '\n').replace(CONTROL_KEEP_LINES, '').trimEnd(), max);
}

/** A page URL as it may be stored: no query string or fragment, tokens in paths masked. */
export function cleanUrl(raw: string): string {
  const line = cleanLine(raw, CAPS.url * 2);
  try {
    const u = new URL(line);
    return cap(`${u.protocol}//${u.host}${maskUrl(u.pathname)}`, CAPS.url);
  } catch {
    return cap(maskUrl(line.split('#')[0] ?? line), CAPS.url);
  }
}

/**
 * The message with its variable parts replaced, so repeats of one problem group together:
 * ISO timestamps and dates, UUIDs, hex ids (0x… or 8+ hex digits with a digit in them, which
 * includes request ids), then every remaining number.
 */
export function normaliseMessage(message: string): string {
  return (
    message
      .replace(/\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?/g, '<ts>')
      .replace(/\b\d{2}:\d{2}:\d{2}(?:\.\d+)?\b/g, '<ts>')
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>')
      // Request ids of this service: 8 hex digits, a dash, a base-36 sequence.
      .replace(/\b[0-9a-f]{8}-[0-9a-z]{1,12}\b/gi, '<id>')
      .replace(/\b0x[0-9a-f]+\b/gi, '<hex>')
      .replace(/\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<hex>')
      .replace(/\d+(?:\.\d+)?/g, '<n>')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 500)
  );
}

/** Groups key: level + module + normalised message (16 hex characters of SHA-256). */
export function fingerprint(level: string, module: string | null, message: string): string {
  return createHash('sha256')
    .update(`${level}\u0000${module ?? ''}\u0000${normaliseMessage(message)}`)
    .digest('hex')
    .slice(0, 16);
}

/** Fields of a pino record that have columns of their own (the rest goes to `context`). */
const OWN_FIELDS = new Set([
  'level',
  'time',
  'svc',
  'pid',
  'hostname',
  'msg',
  'err',
  'reqId',
  'module',
  'method',
  'url',
]);

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/**
 * A pino line (JSON, already redacted by the logger) as a row; undefined when it is not a
 * record at warn or above. `at` is the capture time on the injected clock.
 */
export function entryFromLogLine(line: string, at: number): ErrorEntry | undefined {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const level = PINO_LEVELS[rec.level as number];
  if (!level || typeof rec !== 'object') return undefined;
  const err = rec.err && typeof rec.err === 'object' ? (rec.err as Record<string, unknown>) : undefined;
  const errMessage = str(err?.message);
  const module = str(rec.module) ?? str(rec.name) ?? str(rec.component);
  const message = cleanLine(str(rec.msg) ?? errMessage ?? '(no message)', CAPS.message);
  const reqId = str(rec.reqId);
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rec)) if (!OWN_FIELDS.has(k)) rest[k] = v;
  const context = Object.keys(rest).length > 0 ? cap(JSON.stringify(rest), CAPS.context) : null;
  const url = str(rec.url);
  return {
    created_at: at,
    level,
    origin: 'server',
    module: module ? cleanLine(module, CAPS.module) : null,
    message,
    exception: err
      ? cleanLine(`${str(err.type) ?? 'Error'}: ${errMessage ?? ''}`.trim(), CAPS.exception)
      : null,
    stack: str(err?.stack) ? cleanBlock(err!.stack as string, CAPS.stack) : null,
    request_id: reqId ? cap(reqId, CAPS.requestId) : null,
    method: str(rec.method) ? cleanLine(rec.method as string, CAPS.method) : null,
    path: cap(url ? cleanLine(maskUrl(url), CAPS.path) : '', CAPS.path) || null,
    user_id: null,
    url: null,
    user_agent: null,
    component_stack: null,
    context,
    fingerprint: fingerprint(level, module, message),
  };
}

/** A browser's error report as the route received it (schema-checked, not yet cleaned). */
export interface ClientReport {
  level?: string;
  message: string;
  stack?: string | null;
  url?: string | null;
  component_stack?: string | null;
  user_agent?: string | null;
}

/** Browser levels accepted, mapped to the store's. */
export const CLIENT_LEVELS: Record<string, ErrorLevel> = {
  warn: 'warn',
  warning: 'warn',
  error: 'error',
  fatal: 'fatal',
};

/**
 * A browser report as a row: control characters stripped, every field capped, the page URL
 * without query or fragment. Returns undefined when nothing of the message is left.
 */
export function entryFromClientReport(r: ClientReport, at: number, userId: number): ErrorEntry | undefined {
  const level = CLIENT_LEVELS[(r.level ?? 'error').toLowerCase()] ?? 'error';
  const message = cleanLine(r.message, CAPS.message);
  if (message === '') return undefined;
  const opt = (v: string | null | undefined, clean: (s: string) => string) => {
    const c = v ? clean(v) : '';
    return c === '' ? null : c;
  };
  return {
    created_at: at,
    level,
    origin: 'client',
    module: 'browser',
    message,
    exception: null,
    stack: opt(r.stack, (s) => cleanBlock(s, CAPS.stack)),
    request_id: null,
    method: null,
    path: null,
    user_id: userId,
    url: opt(r.url, cleanUrl),
    user_agent: opt(r.user_agent, (s) => cleanLine(s, CAPS.userAgent)),
    component_stack: opt(r.component_stack, (s) => cleanBlock(s, CAPS.componentStack)),
    context: null,
    fingerprint: fingerprint(level, 'browser', message),
  };
}
