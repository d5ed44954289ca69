import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config.js';

/**
 * Every path under which a secret can reach a log record (ARCHITECTURE.md "Secrets never
 * leave"). Matching keys are replaced by `[redacted]` at any of the first three levels.
 */
const SECRET_KEYS = [
  'apikey',
  'api_key',
  'password',
  'new_password',
  'current_password',
  'token',
  'access_token',
  'request_token',
  'auth_token',
  'webhook_token',
  'secret',
  'totp_secret',
  'totp_code',
  'smtp_password',
  'csrf_token',
  'authorization',
  'cookie',
  'set-cookie',
  'x-csrf-token',
];

export const REDACT_PATHS = [
  ...SECRET_KEYS.map((k) => `["${k}"]`),
  ...SECRET_KEYS.map((k) => `*["${k}"]`),
  ...SECRET_KEYS.map((k) => `*.*["${k}"]`),
];

/** The pino logger of the process; Fastify uses it for request logs (each line has `reqId`). */
export function createLogger(level: LogLevel, stream?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { svc: 'algodesk' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: pino.stdSerializers.err },
    },
    stream,
  );
}

/**
 * URL as it may be logged or stored: the webhook token in `/strategy/webhook/<token>` (and
 * other integrations' webhook paths) is masked, and query strings are dropped because
 * credentials sometimes travel there.
 */
export function maskUrl(url: string): string {
  const path = url.split('?')[0] ?? url;
  return path.replace(/^\/(strategy|flow|scanner)\/webhook\/[^/]+/, '/$1/webhook/[redacted]');
}
