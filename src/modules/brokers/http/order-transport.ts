/**
 * One broker origin for order traffic: a keep-alive undici `Pool`
 * (ARCHITECTURE.md "outbound HTTP": one pool per broker origin) whose calls never throw — a
 * timeout or a broken connection comes back as an outcome the adapter turns into a
 * `BrokerResult` with status 504 or 502.
 *
 * Broker-neutral: both adapters use it.
 *
 * Keep-warm. An order after a quiet spell should not pay for a new TCP + TLS handshake. Brokers'
 * front ends drop idle keep-alive sockets after about 60 s (nginx 75 s, cloud load balancers
 * 60 s), and undici obeys the server's `Keep-Alive: timeout` hint over its own setting, so a long
 * client-side `keepAliveTimeout` alone cannot hold the socket. Once the pool has been idle for
 * `keepWarmMs` (default 20 s) a timer sends `GET /` without any credential: it touches no
 * account, costs no rate limit, and whatever the broker answers (a small 404 page) resets the
 * server's idle clock. Neither broker documents a credential-free cheap endpoint, so the root is
 * used; not `HEAD`, whose answers often carry no Content-Length, after which some servers (Node's
 * among them) close the connection. If the broker answers a ping with `Connection: close` the ping would cost the very
 * socket it keeps, so warming turns itself off. Warming also stops after an hour without a real
 * call, so an unused adapter goes quiet.
 */
import type { Logger } from 'pino';
import { Pool } from 'undici';
import { sanitize } from '../quotes/quote-transport.js';

/** Options every live broker adapter takes (the registry passes them through). */
export interface BrokerAdapterOptions {
  /** The app's API key (Kite `api_key`, Upstox `client_id`). */
  apiKey: string;
  /** The app's API secret (Kite checksum ingredient, Upstox `client_secret`). */
  apiSecret: string;
  /** The redirect URL registered with the broker app (Upstox sends it in the code exchange). */
  redirectUrl: string;
  /** REST API origin (and optional path prefix); defaults to the broker's public API. */
  baseUrl?: string;
  /**
   * Origin of the order endpoints where the broker serves them apart (Upstox: api-hft). Defaults
   * to the broker's documented host, or to `baseUrl` when only that is given (tests, proxies).
   */
  orderBaseUrl?: string;
  /** Origin of the browser login page (Kite `kite.zerodha.com`, Upstox `api.upstox.com`). */
  loginBaseUrl?: string;
  /** Connect, headers and body timeouts per request, ms (default 10,000). */
  timeoutMs?: number;
  /** Idle time after which the pool is kept warm, ms (default 20,000; 0 turns it off). */
  keepWarmMs?: number;
  logger?: Logger;
  /** Epoch-ms clock for token expiry (default `Date.now`). */
  clock?: { now(): number };
}

/** Default request timeout (the brief: 10 s). */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Default idle time before a keep-warm request. */
export const DEFAULT_KEEP_WARM_MS = 20_000;
/** Connections per origin: parallel orders of a basket without queueing behind each other. */
const CONNECTIONS = 8;
/** Warming stops when no real call came for this long. */
const KEEP_WARM_FOR_MS = 60 * 60_000;

/** One request: path below the base URL's path, headers, and an already encoded body. */
export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** What came back: an HTTP answer (any status) or a transport failure mapped to 502/504. */
export type HttpOutcome =
  | { kind: 'answer'; status: number; json: unknown; text: string; roundTripMs: number }
  | {
      kind: 'failure';
      /** 504 for a timeout, 502 for a refused, reset or closed connection. */
      status: 502 | 504;
      code: 'timeout' | 'network' | 'closed';
      message: string;
      roundTripMs: number;
    };

/** Failures before anything was sent: the broker cannot have seen the request. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
]);

/** A keep-alive pool to one broker origin; see the file comment. */
export class OrderTransport {
  private readonly pool: Pool;
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly keepWarmMs: number;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly logger: Logger | undefined;
  private lastActivity = 0;
  private lastRealCall = 0;
  private inFlight = 0;
  private warming = false;
  private warmOff = false;
  private closed = false;

  constructor(
    /** Broker id for log lines (`zerodha`). */
    readonly broker: string,
    /** Broker name for messages (`Zerodha`). */
    readonly label: string,
    baseUrl: string,
    opts: Pick<BrokerAdapterOptions, 'timeoutMs' | 'keepWarmMs' | 'logger'> = {},
  ) {
    const url = new URL(baseUrl);
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.keepWarmMs = opts.keepWarmMs ?? DEFAULT_KEEP_WARM_MS;
    this.logger = opts.logger;
    this.pool = new Pool(url.origin, {
      connections: CONNECTIONS,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      connect: { timeout: this.timeoutMs },
      // Used when the server sends no Keep-Alive hint; a hint (less undici's safety margin) wins.
      keepAliveTimeout: 60_000,
      keepAliveMaxTimeout: 10 * 60_000,
    });
    if (this.keepWarmMs > 0) {
      this.timer = setInterval(() => void this.keepWarm(), this.keepWarmMs);
      this.timer.unref();
    }
  }

  /**
   * Sends one request and reads the whole answer. Never rejects: transport failures are outcomes.
   * Nothing is retried — a POST that timed out may have placed the order.
   */
  async send(req: HttpRequest): Promise<HttpOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
    if (this.closed)
      return {
        kind: 'failure',
        status: 502,
        code: 'closed',
        message: `${this.label}: the adapter is closed`,
        roundTripMs: 0,
      };
    this.inFlight++;
    this.lastRealCall = this.lastActivity = performance.now();
    try {
      const res = await this.pool.request({
        method: req.method,
        path: this.prefix + req.path,
        headers: req.headers,
        body: req.body,
      });
      const text = await res.body.text();
      const roundTripMs = elapsed();
      // undici hands a keep-alive socket to the next request only after an event-loop turn;
      // without this yield a caller's next sequential call would open another connection.
      await new Promise<void>((resolve) => setImmediate(resolve));
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { kind: 'answer', status: res.statusCode, json, text, roundTripMs };
    } catch (err) {
      return this.failure(err, elapsed());
    } finally {
      this.inFlight--;
      this.lastActivity = performance.now();
    }
  }

  private failure(err: unknown, roundTripMs: number): HttpOutcome {
    const code = String((err as { code?: unknown }).code ?? '');
    const detail = sanitize(code || (err instanceof Error ? err.message : String(err)), []);
    if (TIMEOUT_CODES.has(code))
      return {
        kind: 'failure',
        status: 504,
        code: 'timeout',
        message: `${this.label} did not answer within ${this.timeoutMs} ms (${detail}); the request may have reached the broker`,
        roundTripMs,
      };
    if (this.closed || code === 'UND_ERR_CLOSED' || code === 'UND_ERR_DESTROYED')
      return {
        kind: 'failure',
        status: 502,
        code: 'closed',
        message: `${this.label}: the adapter is closed`,
        roundTripMs,
      };
    const message = UNREACHABLE_CODES.has(code)
      ? `${this.label} could not be reached (${detail})`
      : `${this.label} connection failed (${detail}); the request may have reached the broker`;
    return { kind: 'failure', status: 502, code: 'network', message, roundTripMs };
  }

  /** The keep-warm tick: one credential-free `GET /` when the pool has gone quiet. */
  private async keepWarm(): Promise<void> {
    const now = performance.now();
    if (this.closed || this.warmOff || this.warming || this.inFlight > 0 || this.lastRealCall === 0) return;
    if (now - this.lastActivity < this.keepWarmMs || now - this.lastRealCall > KEEP_WARM_FOR_MS) return;
    this.warming = true;
    try {
      const res = await this.pool.request({ method: 'GET', path: `${this.prefix}/` });
      await res.body.dump(); // reads a small page; a large one is cut and its socket dropped
      this.logger?.debug({ broker: this.broker, status: res.statusCode }, 'broker keep-warm');
      if (String(res.headers.connection ?? '').toLowerCase() === 'close') {
        this.warmOff = true;
        if (this.timer) clearInterval(this.timer);
        this.logger?.info({ broker: this.broker }, 'broker closes keep-warm connections; keep-warm off');
      }
    } catch (err) {
      this.logger?.debug(
        { broker: this.broker, code: String((err as { code?: unknown }).code ?? 'error') },
        'broker keep-warm failed',
      );
    } finally {
      this.lastActivity = performance.now();
      this.warming = false;
    }
  }

  /** Closes the pool (idempotent); later sends answer a `closed` failure. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.pool.close();
  }
}
