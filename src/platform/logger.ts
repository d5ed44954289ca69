import pino, { type DestinationStream, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';
import type { LogLevel } from '../config.js';

/**
 * Keys whose values are secrets (ARCHITECTURE.md "Secrets never leave"): replaced by
 * `[redacted]` at the top level of a record and inside the usual containers below.
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
  'api_secret',
  'apiSecret',
  'metricsToken',
  'client_secret',
  'accessToken',
  'totp_secret',
  'totp_code',
  'smtp_password',
  'csrf_token',
  'authorization',
  'cookie',
  'set-cookie',
  'x-csrf-token',
];

/**
 * Objects under which secrets may travel in a log record. Paths are explicit because pino's
 * wildcard redaction (`*.key`) costs 20-50 µs per line — more than the whole request it logs —
 * while explicit paths cost nothing measurable. Code never logs request bodies; the secret-scan
 * tests hold that line.
 */
const CONTAINERS = [
  'req',
  'req.headers',
  'headers',
  'body',
  'payload',
  'data',
  'params',
  'query',
  'config',
  'user',
  'smtp',
  'broker',
  'session',
];

export const REDACT_PATHS = [
  ...SECRET_KEYS.map((k) => `["${k}"]`),
  ...CONTAINERS.flatMap((c) => SECRET_KEYS.map((k) => `${c}["${k}"]`)),
];

/**
 * Receives every record at `warn` and above as the exact line written to the log (already
 * redacted), for the error log store. Until a consumer attaches, the
 * newest lines wait in a small buffer (start-up warnings logged before the database is open).
 */
export class WarnCapture implements DestinationStream {
  private consumer: ((line: string) => void) | undefined;
  private early: string[] = [];
  static readonly EARLY_LIMIT = 200;

  write(line: string): void {
    if (this.consumer) return this.consumer(line);
    if (this.early.push(line) > WarnCapture.EARLY_LIMIT) this.early.shift();
  }

  /** Hands the waiting lines, then every later one, to `consumer` (the last attach wins). */
  attach(consumer: (line: string) => void): void {
    this.consumer = consumer;
    const early = this.early;
    this.early = [];
    for (const line of early) consumer(line);
  }

  detach(consumer: (line: string) => void): void {
    if (this.consumer === consumer) this.consumer = undefined;
  }
}

const captures = new WeakMap<Logger, WarnCapture>();

/** The warn-and-above tee of a logger made by {@link createLogger} (undefined for others). */
export function warnCaptureOf(logger: Logger): WarnCapture | undefined {
  return captures.get(logger);
}

/**
 * The pino logger of the process; Fastify uses it for request logs (each line has `reqId`).
 * Records at `warn` and above are also written, as the same redacted line, to a
 * {@link WarnCapture} (a multistream tee), also when `level` is stricter than `warn`.
 */
export function createLogger(level: LogLevel, stream?: DestinationStream): Logger {
  const capture = new WarnCapture();
  const out = stream ?? pino.destination(1);
  const strict = level === 'silent' || pino.levels.values[level]! > pino.levels.values.warn!;
  const streams: pino.StreamEntry[] = [{ level: 'warn', stream: capture }];
  if (level !== 'silent') streams.unshift({ level, stream: out });
  const logger = pino(
    {
      level: strict ? 'warn' : level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { svc: 'algodesk' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: pino.stdSerializers.err },
    },
    pino.multistream(streams),
  );
  captures.set(logger, capture);
  return logger;
}

/**
 * The path segment after one naming a webhook or a reset carries a secret (a webhook token, a reset
 * token), near misses included (`/strategy/webhooks/<token>`, `/flow/hook/<token>`).
 */
const SECRET_AFTER = /(^|\/)([^/]*(?:webhook|hook|reset)[^/]*)\/+[^/]+/gi;
/** A segment that looks like a credential wherever it stands: 24 or more token characters. */
const TOKEN_LIKE = /(^|\/)[A-Za-z0-9_~.+=-]{24,}(?=\/|$)/g;

/**
 * URL as it may be logged, stored or echoed in a 404: the webhook token in
 * `/strategy/webhook/<token>` (and other integrations' webhook and reset paths, and near misses of
 * them) is masked, so is any segment that looks like a credential, and query strings are dropped
 * because credentials sometimes travel there.
 */
export function maskUrl(url: string): string {
  let path = url;
  // Decoded first, so an encoded slash or question mark cannot hide a token from the mask.
  if (path.includes('%')) {
    try {
      path = decodeURIComponent(path);
    } catch {
      // A malformed escape elsewhere: the separators are decoded alone, the rest kept as sent.
      path = path.replace(/%2f/gi, '/').replace(/%3f/gi, '?');
    }
  }
  // Whatever the path's shape (`//strategy/webhook/…`, `/x/../strategy//webhook/…`, any case).
  return (path.split('?')[0] ?? path)
    .replace(SECRET_AFTER, '$1$2/[redacted]')
    .replace(TOKEN_LIKE, '$1[redacted]');
}

/**
 * Standard output for the service's logs, buffered: lines are written in blocks of about 4 KiB
 * instead of one write per request (a syscall per access line halved throughput), flushed at
 * least every second so a quiet service still shows its logs promptly, and flushed
 * synchronously on exit and on a crash so nothing is lost.
 */
export function createStdoutDestination(format: 'json' | 'pretty' = 'json'): {
  stream: DestinationStream;
  stop(): void;
} {
  // On a terminal a person reads the lines: one readable line each, written as it comes (the
  // banner beside them is plain text too), through pino's own pretty-printer.
  if (format === 'pretty')
    return {
      stream: pinoPretty({
        destination: 1,
        sync: true,
        colorize: process.stdout.isTTY === true,
        translateTime: 'SYS:HH:MM:ss',
        ignore: 'pid,hostname,svc',
        singleLine: true,
      }),
      stop: () => undefined,
    };
  const stream = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  const timer = setInterval(() => stream.flush(), 1000);
  timer.unref();
  const flushNow = () => {
    try {
      stream.flushSync();
    } catch {
      // Nothing more can be done while the process ends.
    }
  };
  process.on('exit', flushNow);
  return {
    stream,
    stop() {
      clearInterval(timer);
      flushNow();
    },
  };
}
