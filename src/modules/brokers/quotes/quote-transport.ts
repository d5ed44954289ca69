/**
 * How the broker quote clients ask: one keep-alive undici `Pool` per origin (ARCHITECTURE.md
 * "outbound HTTP") in {@link QuoteTransport}, the mapping of transport failures and error answers
 * to {@link QuoteError}s that never echoes a credential ("Secrets never leave", {@link sanitize}),
 * the session's access token, and the batching of instruments into requests.
 */
import type { Logger } from 'pino';
import { Pool } from 'undici';
import { systemClock, type Clock } from '../../../platform/clock.js';
import {
  isRetryableStatus,
  QuoteError,
  type QuoteClientOptions,
  type QuoteInstrument,
} from './quote-client.js';
import { isObject } from './quote-fields.js';

/**
 * A broker's text made safe for a message or a log line: every credential replaced, `Bearer x`
 * and `token key:secret` forms masked whatever their value, control characters dropped, and at
 * most 300 characters kept.
 */
export function sanitize(text: string, secrets: readonly (string | undefined)[]): string {
  let s = text;
  for (const secret of secrets) if (secret && secret.length >= 4) s = s.split(secret).join('[redacted]');
  s = s
    .replace(/\bBearer\s+\S+/gi, 'Bearer [redacted]')
    .replace(/\btoken\s+[^\s:]+:\S+/gi, 'token [redacted]')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}

/** Splits `items` into runs of at most `size`. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Groups instruments by the key the broker is asked with; each maps to the algodesk keys
 * (`EXCHANGE:SYMBOL`) its quote answers. Instruments whose request key is undefined are dropped.
 */
export function groupByRequestKey(
  instruments: readonly QuoteInstrument[],
  requestKey: (i: QuoteInstrument) => string | undefined,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const i of instruments) {
    const key = requestKey(i);
    if (key === undefined) continue;
    const target = `${i.exchange}:${i.symbol}`;
    const list = out.get(key);
    if (!list) out.set(key, [target]);
    else if (!list.includes(target)) list.push(target);
  }
  return out;
}
/** The access token now (a provider is read on every call). */
export function currentToken(source: QuoteClientOptions['accessToken']): string | undefined {
  const t = typeof source === 'function' ? source() : source;
  return t === undefined || t.trim() === '' ? undefined : t;
}

/** What one GET answered: status, the body parsed as JSON (undefined when it is not JSON). */
export interface HttpAnswer {
  status: number;
  json: unknown;
  receivedAt: number;
}

/** How a broker's error body reads. */
export type ErrorReader = (json: unknown) => { code?: string; message?: string };

/**
 * One broker origin: a keep-alive undici `Pool` (4 connections, headers and body timeouts) and
 * the mapping of transport failures and error answers to {@link QuoteError}s.
 */
export class QuoteTransport {
  private readonly pool: Pool;
  private readonly prefix: string;
  private closed = false;
  readonly clock: Clock;
  readonly logger: Logger | undefined;

  constructor(
    readonly broker: string,
    /** Broker name for messages (`Zerodha`). */
    private readonly label: string,
    opts: QuoteClientOptions,
    defaultBaseUrl: string,
    private readonly readError: ErrorReader,
  ) {
    const url = new URL(opts.baseUrl ?? defaultBaseUrl);
    this.prefix = url.pathname.replace(/\/+$/, '');
    const timeout = opts.timeoutMs ?? 5000;
    this.pool = new Pool(url.origin, {
      connections: 4,
      headersTimeout: timeout,
      bodyTimeout: timeout,
      connect: { timeout },
    });
    this.clock = opts.clock ?? systemClock;
    this.logger = opts.logger;
  }

  /** A local refusal or failure (never sent to the broker). */
  error(code: string, message: string, retryable = false, cause?: unknown): QuoteError {
    return new QuoteError({
      broker: this.broker,
      code,
      message: `${this.label} quotes: ${message}`,
      retryable,
      cause,
    });
  }

  /** GET `path` (below the base URL's path). Rejects with a QuoteError, or the abort reason. */
  async get(path: string, headers: Record<string, string>, signal?: AbortSignal): Promise<HttpAnswer> {
    if (this.closed) throw this.error('closed', 'the client is closed');
    signal?.throwIfAborted();
    const started = performance.now();
    let status: number;
    let text: string;
    try {
      const res = await this.pool.request({ method: 'GET', path: this.prefix + path, headers, signal });
      status = res.statusCode;
      text = await res.body.text();
    } catch (err) {
      if (signal?.aborted) throw signal.reason ?? err;
      throw this.transportError(err);
    }
    // undici hands a keep-alive socket to the next request only after a full event-loop turn
    // (it first checks that the server did not close it); without this yield a caller's next
    // batch would find the socket busy and open another connection.
    await new Promise<void>((resolve) => setImmediate(resolve));
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    this.logger?.debug(
      { broker: this.broker, status, ms: Math.round(performance.now() - started) },
      'broker quote request',
    );
    return { status, json, receivedAt: this.clock.now() };
  }

  /**
   * The `data` object of a success answer (`{"status":"success","data":{…}}`); anything else is a
   * QuoteError with the broker's code and sanitised message, logged at warn.
   */
  unwrap(answer: HttpAnswer, secrets: readonly (string | undefined)[]): Record<string, unknown> {
    const { status, json } = answer;
    const ok = status >= 200 && status < 300;
    if (ok && isObject(json) && json.status === 'success') return isObject(json.data) ? json.data : {};
    const said = isObject(json) ? this.readError(json) : {};
    const code = said.code ?? (ok ? 'bad_response' : `http_${status}`);
    const text = said.message
      ? sanitize(said.message, secrets)
      : json === undefined
        ? 'the answer is not JSON'
        : 'the answer is not a success';
    const err = new QuoteError({
      broker: this.broker,
      status,
      code,
      retryable: isRetryableStatus(status),
      message: `${this.label} quotes: HTTP ${status} ${code}: ${text}`,
    });
    this.logger?.warn(
      { broker: this.broker, status, code, retryable: err.retryable, reason: err.message },
      'broker quote request failed',
    );
    throw err;
  }

  private transportError(err: unknown): QuoteError {
    const code = (err as { code?: unknown }).code;
    const detail = sanitize(err instanceof Error ? err.message : String(err), []);
    let out: QuoteError;
    if (
      code === 'UND_ERR_HEADERS_TIMEOUT' ||
      code === 'UND_ERR_BODY_TIMEOUT' ||
      code === 'UND_ERR_CONNECT_TIMEOUT'
    )
      out = this.error('timeout', `timed out (${detail})`, true, err);
    else if (code === 'UND_ERR_CLOSED' || code === 'UND_ERR_DESTROYED')
      out = this.error('closed', 'the client is closed', false, err);
    else out = this.error('network', `request failed (${detail})`, true, err);
    this.logger?.warn(
      { broker: this.broker, code: out.code, retryable: out.retryable, reason: out.message },
      'broker quote request failed',
    );
    return out;
  }

  /** Closes the pool (idempotent). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.close();
  }
}
