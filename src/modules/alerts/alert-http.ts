/**
 * The one outbound call of the chat alerts: a JSON POST with undici `request`, bounded in time
 * (default 5 s for each attempt, connect to last byte) and retried once on 429 or 5xx after the
 * server's Retry-After when that is at most 2 s. Never rejects: timeouts and broken connections
 * come back as outcomes. A timeout is not retried: the message may already have been posted.
 * Neither the URL nor the body appears in an outcome (the URL may carry the credential).
 */
import { request, type Dispatcher } from 'undici';

export interface AlertHttpOptions {
  /** Bound of each attempt, ms (default 5,000). */
  timeoutMs?: number;
  /** Longest Retry-After honoured, ms (default 2,000); a longer one ends the attempts. */
  maxRetryWaitMs?: number;
  /** Wait before the retry when the server gives no Retry-After, ms (default 500). */
  defaultRetryWaitMs?: number;
  /** undici dispatcher (default: the global one). */
  dispatcher?: Dispatcher;
}

/** Per-call options of {@link AlertHttp.postJson}. */
export interface PostOptions {
  /**
   * Reads the retry wait from the channel's own answer (Telegram's `parameters.retry_after`)
   * when the Retry-After header is absent.
   */
  retryAfterMs?: (text: string) => number | undefined;
  /**
   * Extra request headers (WhatsApp's `authorization: Bearer …`). They may carry a credential:
   * like the URL, they never appear in an outcome.
   */
  headers?: Record<string, string>;
}

/** What one POST came to. `status` is null when no HTTP answer arrived. */
export type PostOutcome =
  | { kind: 'answer'; status: number; text: string; attempts: number }
  | { kind: 'failure'; status: null; code: 'timeout' | 'network'; detail: string; attempts: number };

/** Largest answer read; chat APIs answer in a few hundred bytes. */
const MAX_ANSWER_BYTES = 16 * 1024;

export class AlertHttp {
  readonly timeoutMs: number;
  private readonly maxRetryWaitMs: number;
  private readonly defaultRetryWaitMs: number;

  constructor(private readonly opts: AlertHttpOptions = {}) {
    this.timeoutMs = opts.timeoutMs ?? 5_000;
    this.maxRetryWaitMs = opts.maxRetryWaitMs ?? 2_000;
    this.defaultRetryWaitMs = opts.defaultRetryWaitMs ?? 500;
  }

  /** POSTs `body` as JSON to `url`: one attempt, plus one retry on 429/5xx (see {@link PostOptions}). */
  async postJson(url: string, body: unknown, opts: PostOptions = {}): Promise<PostOutcome> {
    const payload = JSON.stringify(body);
    const first = await this.attempt(url, payload, 1, opts.headers);
    if (first.outcome.kind !== 'answer' || !retryable(first.outcome.status)) return first.outcome;
    const wait = first.retryAfterMs ?? opts.retryAfterMs?.(first.outcome.text) ?? this.defaultRetryWaitMs;
    if (wait > this.maxRetryWaitMs) return first.outcome;
    await new Promise((resolve) => setTimeout(resolve, wait));
    return (await this.attempt(url, payload, 2, opts.headers)).outcome;
  }

  private async attempt(
    url: string,
    payload: string,
    attempts: number,
    headers: Record<string, string> = {},
  ): Promise<{ outcome: PostOutcome; retryAfterMs?: number }> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.timeoutMs);
    try {
      const res = await request(url, {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json; charset=utf-8',
          'user-agent': 'algodesk-alerts',
        },
        body: payload,
        signal: abort.signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        ...(this.opts.dispatcher ? { dispatcher: this.opts.dispatcher } : {}),
      });
      const text = await readCapped(res.body);
      const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
      return {
        outcome: { kind: 'answer', status: res.statusCode, text, attempts },
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      };
    } catch (err) {
      const code = String((err as { code?: unknown }).code ?? '');
      const timedOut = abort.signal.aborted || /TIMEOUT/.test(code);
      return {
        outcome: timedOut
          ? {
              kind: 'failure',
              status: null,
              code: 'timeout',
              detail: `no answer within ${this.timeoutMs} ms`,
              attempts,
            }
          : {
              kind: 'failure',
              status: null,
              code: 'network',
              detail: `connection failed (${code || 'error'})`,
              attempts,
            },
      };
    } finally {
      clearTimeout(timer);
    }
  }
}

const retryable = (status: number) => status === 429 || status >= 500;

/** Retry-After as delay-seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function parseRetryAfter(v: string | string[] | undefined, now = Date.now()): number | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  if (s === undefined || s.trim() === '') return undefined;
  if (/^\d+$/.test(s.trim())) return Number(s.trim()) * 1000;
  const at = Date.parse(s);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

async function readCapped(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    chunks.push(buf);
    size += buf.length;
    if (size >= MAX_ANSWER_BYTES) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, MAX_ANSWER_BYTES);
}

/**
 * `text` made safe to log or show: each secret replaced, control characters flattened, cut to
 * `max` characters. Used on whatever a chat server answered.
 */
export function scrub(text: string, secrets: readonly (string | undefined)[], max = 200): string {
  let s = text;
  for (const secret of secrets) if (secret && secret.length >= 4) s = s.split(secret).join('[redacted]');
  // eslint-disable-next-line no-control-regex
  s = s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** The channels of order alerts. */
export type AlertChannel = 'telegram' | 'slack';

/**
 * The result of one channel's send: never holds the credential or the full URL. `C` is the
 * channel's name: an order-alert channel, or `whatsapp` (sent only through the notify API).
 */
export interface ChannelResult<C extends string = AlertChannel> {
  channel: C;
  ok: boolean;
  /** HTTP status of the last answer; null when none arrived (timeout, connection failure). */
  status: number | null;
  /** Why it failed (server's words, scrubbed), absent on success. */
  error?: string;
  attempts: number;
  /** Host the message went to (the only part of the URL that may be logged). */
  host: string;
}
