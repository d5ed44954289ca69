/**
 * From an HTTP outcome to the broker contract's answers (`BrokerResult`, login errors), with the
 * credential scrubbing every answer goes through (ARCHITECTURE.md "Secrets never leave").
 * Broker-neutral, shared by the Kite and Upstox adapters; kept beside {@link OrderTransport}.
 */
import type { Logger } from 'pino';
import type { BrokerResult } from '../broker-adapter.js';
import { sanitize } from '../quotes/quote-transport.js';
import type { HttpOutcome } from './order-transport.js';

/** Body fields that hold a credential wherever they appear (session answers, echoes). */
const SECRET_FIELDS = new Set([
  'access_token',
  'refresh_token',
  'public_token',
  'extended_token',
  'enctoken',
  'api_key',
  'api_secret',
  'client_secret',
  'request_token',
  'checksum',
  'authorization',
]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** `text` with every credential, `Bearer x` and `token key:secret` masked (no truncation). */
function redactText(text: string, secrets: readonly (string | undefined)[]): string {
  let s = text;
  for (const secret of secrets) if (secret && secret.length >= 4) s = s.split(secret).join('[redacted]');
  return s
    .replace(/\bBearer\s+\S+/gi, 'Bearer [redacted]')
    .replace(/\btoken\s+[^\s:]+:\S+/gi, 'token [redacted]');
}

/**
 * A deep copy of a parsed broker body safe to store in the order log: credential-named fields
 * replaced, credentials inside any string masked. Deeper than 32 levels is cut.
 */
export function scrub(value: unknown, secrets: readonly (string | undefined)[], depth = 0): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  if (depth > 32) return '[truncated]';
  if (Array.isArray(value)) return value.map((v) => scrub(v, secrets, depth + 1));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] =
      SECRET_FIELDS.has(k.toLowerCase()) && v !== null && v !== ''
        ? '[redacted]'
        : scrub(v, secrets, depth + 1);
  return out;
}

/** An order id as brokers send it: a non-empty string, or a number (made a string). */
export function readOrderId(v: unknown): string | undefined {
  if (typeof v === 'string' && v.trim() !== '') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

/** A form body (`application/x-www-form-urlencoded`) of the defined fields, in order. */
export function formBody(fields: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) params.append(k, String(v));
  return params.toString();
}

/** How one call's answer is read. */
export interface ResultSpec {
  /** Broker id and name (`zerodha`, `Zerodha`) and the operation (`place`) for logs. */
  broker: string;
  label: string;
  op: string;
  /** Every credential the call touched; none may appear in `message`, `raw` or a log line. */
  secrets: readonly (string | undefined)[];
  /** The broker's error text (and code, for logs) from an error body. */
  readError(json: unknown): { code?: string; message?: string };
  /**
   * The order id of a success and what `raw` keeps (default the whole body); `list: true` for an
   * answer that is a success without an order id (a list of orders).
   */
  read(data: unknown, body: Record<string, unknown>): { orderId?: string; raw?: unknown; list?: boolean };
  /** What the message says when a success carries no order id. */
  missing?: string;
  logger?: Logger;
}

/**
 * The `BrokerResult` of one call. A success (`2xx` and `"status":"success"`) needs an order id
 * (or, for a list, a body its reader accepts), else it is a failure that keeps the broker's status; any other answer is a failure with the
 * broker's status and sanitised message; a transport failure is 502/504 with no `raw`.
 */
export function toBrokerResult(outcome: HttpOutcome, spec: ResultSpec): BrokerResult {
  const log = (r: BrokerResult, code?: string) => {
    const fields = { broker: spec.broker, op: spec.op, status: r.httpStatus, ms: r.roundTripMs };
    if (r.ok) spec.logger?.debug(fields, 'broker order call');
    else spec.logger?.warn({ ...fields, code, reason: r.message }, 'broker order call failed');
    return r;
  };
  if (outcome.kind === 'failure')
    return log(
      {
        httpStatus: outcome.status,
        ok: false,
        message: outcome.message,
        raw: null,
        roundTripMs: outcome.roundTripMs,
      },
      outcome.code,
    );

  const { status, json, roundTripMs } = outcome;
  const raw = json === undefined ? sanitize(outcome.text, spec.secrets) : scrub(json, spec.secrets);
  const ok2xx = status >= 200 && status < 300;
  if (ok2xx && isObject(json) && json.status === 'success') {
    const read = spec.read(json.data, json);
    const kept = read.raw === undefined ? raw : scrub(read.raw, spec.secrets);
    if (read.orderId !== undefined)
      return log({ httpStatus: status, ok: true, orderId: read.orderId, raw: kept, roundTripMs });
    if (read.list) return log({ httpStatus: status, ok: true, raw: kept, roundTripMs });
    const message = spec.missing ?? `${spec.label} answered success without an order id`;
    return log({ httpStatus: status, ok: false, message, raw: kept, roundTripMs }, 'no_order_id');
  }
  const said = isObject(json) ? spec.readError(json) : {};
  const message = said.message
    ? sanitize(said.message, spec.secrets)
    : json === undefined
      ? `${spec.label} answered HTTP ${status} without a JSON body`
      : `${spec.label} answered HTTP ${status} without an error message`;
  return log({ httpStatus: status, ok: false, message, raw, roundTripMs }, said.code ?? `http_${status}`);
}

/** A failed login code exchange: the broker's status (or 502/504) and a sanitised message. */
export class BrokerLoginError extends Error {
  override readonly name = 'BrokerLoginError';
  constructor(
    /** Broker id. */
    readonly broker: string,
    /** The broker's HTTP status, 502/504 for transport failures, 200 for a success lacking a token. */
    readonly httpStatus: number,
    /** The broker's error code (`TokenException`, `UDAPI100057`) or `timeout`, `network`, `no_token`. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The JSON object of a successful login exchange; anything else throws a {@link BrokerLoginError}
 * whose message never holds the code, the secret or a token.
 */
export function loginAnswer(
  outcome: HttpOutcome,
  spec: Pick<ResultSpec, 'broker' | 'label' | 'secrets' | 'readError' | 'logger'>,
): Record<string, unknown> {
  let err: BrokerLoginError;
  if (outcome.kind === 'failure')
    err = new BrokerLoginError(spec.broker, outcome.status, outcome.code, outcome.message);
  else if (outcome.status >= 200 && outcome.status < 300 && isObject(outcome.json)) return outcome.json;
  else {
    const said = isObject(outcome.json) ? spec.readError(outcome.json) : {};
    const text = said.message ? sanitize(said.message, spec.secrets) : `HTTP ${outcome.status}`;
    err = new BrokerLoginError(
      spec.broker,
      outcome.status,
      said.code ?? `http_${outcome.status}`,
      `${spec.label} login failed: ${text}`,
    );
  }
  spec.logger?.warn(
    { broker: spec.broker, status: err.httpStatus, code: err.code, reason: err.message },
    'broker login failed',
  );
  throw err;
}

const IST_OFFSET_MS = (5 * 60 + 30) * 60_000;
const DAY_MS = 86_400_000;

/** The first instant after `now` when the IST wall clock reads `hour:minute` (token expiries). */
export function nextIstTime(now: number, hour: number, minute: number): number {
  const istMidnight = Math.floor((now + IST_OFFSET_MS) / DAY_MS) * DAY_MS - IST_OFFSET_MS;
  const t = istMidnight + (hour * 60 + minute) * 60_000;
  return t > now ? t : t + DAY_MS;
}

/** The `exp` claim of a JWT (epoch ms), when it has a readable one. */
export function jwtExpiry(jwt: string): number | undefined {
  const part = jwt.split('.')[1];
  if (part === undefined) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof claims.exp === 'number' && Number.isFinite(claims.exp) && claims.exp > 0
      ? claims.exp * 1000
      : undefined;
  } catch {
    return undefined;
  }
}
