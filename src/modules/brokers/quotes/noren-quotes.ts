/**
 * Noren (Shoonya, Flattrade) market quotes (NorenApi-Py README "get_quotes"; OpenAlgo
 * broker/flattrade/api/data.py): `POST <base>/GetQuotes` with the form body
 * `jData={"uid","exch","token"}&jKey=<token>`, one instrument a request, so the instruments of one
 * call are asked one after another, at least {@link NOREN_QUOTE_PACE_MS} apart (Noren documents no
 * rate; OpenAlgo paces its Flattrade data calls).
 *
 * The answer (strings throughout) carries `lp`, `o`, `h`, `l`, `c` (the previous close, as the
 * feed's `c` and OpenAlgo read it), `v`, `ltq`, `oi`, `uc`/`lc` (circuit limits), `tbq`/`tsq`
 * (total buy/sell quantity, when sent) and five depth levels `bp1…bp5`, `bq1…`, `bo1…` (bids) and
 * `sp1…`, `sq1…`, `so1…` (asks); `ltt` is a time of day only, so the quote is stamped when it came.
 * A `Not_Ok` "no data" answer leaves the instrument out; any other refusal (an expired session:
 * "Session Expired : Invalid Session Key") rejects the call with a {@link QuoteError}.
 *
 * Candles: TPSeries and EODChartData (noren-history.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Quote } from '../../sandbox/core/types.js';
import { systemClock, type Clock } from '../../../platform/clock.js';
import { OrderTransport, type HttpOutcome } from '../http/order-transport.js';
import { NOREN_FORM_HEADERS } from '../noren/noren.auth.js';
import {
  isNoData,
  isNorenOk,
  norenErrorStatus,
  norenForm,
  readNorenError,
  type NorenVariant,
} from '../noren/noren.mapping.js';
import {
  isRetryableStatus,
  QuoteError,
  type Candle,
  type DepthLevel,
  type HistoryInterval,
  type MarketDataClient,
  type MarketQuote,
  type QuoteClientOptions,
  type QuoteInstrument,
} from './quote-client.js';
import { readCircuit, readPrice } from './quote-fields.js';
import { currentToken, groupByRequestKey, sanitize } from './quote-transport.js';
import { NOREN_INTERVALS, norenHistoryPlan, readNorenCandles } from './noren-history.js';

/** The gap between two requests of one call (quotes and history windows). */
export const NOREN_QUOTE_PACE_MS = 100;

/** Options of the Noren quote client: the quote options, the variant, the pacing. */
export type NorenQuoteOptions = QuoteClientOptions & {
  variant: NorenVariant;
  /** Gap between the requests of one call, ms (default {@link NOREN_QUOTE_PACE_MS}). */
  paceMs?: number;
};

const TOKEN = /^\d+$/;

const count = (v: unknown): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : 0;
};
const price = (v: unknown) => readPrice(typeof v === 'string' && v.trim() !== '' ? Number(v) : v);

function depthSide(r: Record<string, unknown>, p: string, q: string, o: string): DepthLevel[] {
  const out: DepthLevel[] = [];
  for (let n = 1; n <= 5; n++) {
    const level = {
      price: price(r[`${p}${n}`]) ?? 0,
      quantity: count(r[`${q}${n}`]),
      orders: count(r[`${o}${n}`]),
    };
    if (level.price !== 0 || level.quantity !== 0) out.push(level);
  }
  return out;
}

/** A sandbox {@link Quote} from a GetQuotes answer; undefined without a usable `lp`. */
export function readNorenQuote(r: Record<string, unknown>, receivedAt: number): Quote | undefined {
  const ltp = price(r.lp);
  if (ltp === undefined) return undefined;
  const close = price(r.c);
  return {
    ltp,
    bid: price(r.bp1) ?? 0,
    ask: price(r.sp1) ?? 0,
    high: price(r.h) ?? 0,
    low: price(r.l) ?? 0,
    ...(close ? { close } : {}),
    timestamp: receivedAt,
  };
}

/** A {@link MarketQuote} from a GetQuotes answer; undefined without a usable `lp`. */
export function readNorenMarketQuote(
  r: Record<string, unknown>,
  receivedAt: number,
): MarketQuote | undefined {
  const ltp = price(r.lp);
  if (ltp === undefined) return undefined;
  const bids = depthSide(r, 'bp', 'bq', 'bo');
  const asks = depthSide(r, 'sp', 'sq', 'so');
  const sum = (levels: DepthLevel[]) => levels.reduce((s, l) => s + l.quantity, 0);
  return {
    open: price(r.o) ?? 0,
    high: price(r.h) ?? 0,
    low: price(r.l) ?? 0,
    ltp,
    prevClose: price(r.c) ?? 0,
    volume: count(r.v),
    oi: count(r.oi),
    ltq: count(r.ltq),
    totalBuyQty: r.tbq !== undefined ? count(r.tbq) : sum(bids),
    totalSellQty: r.tsq !== undefined ? count(r.tsq) : sum(asks),
    bids,
    asks,
    timestamp: receivedAt,
    upperCircuit: readCircuit(price(r.uc)),
    lowerCircuit: readCircuit(price(r.lc)),
  };
}

/**
 * The {@link MarketDataClient} of one Noren broker. Instruments are asked for by the master
 * contract's `brexchange` (Noren's `exch`) and `token`; those without a numeric token are skipped.
 * Every jData names the session's user (`brokerUserId`).
 */
export class NorenQuoteClient implements MarketDataClient {
  readonly broker: string;
  readonly maxBatch = 1;
  readonly intervals = Object.keys(NOREN_INTERVALS) as HistoryInterval[];
  private readonly http: OrderTransport;
  private readonly clock: Clock;
  private readonly label: string;

  constructor(private readonly opts: NorenQuoteOptions) {
    this.broker = opts.variant.name;
    this.label = opts.variant.label;
    this.http = new OrderTransport(this.broker, this.label, opts.baseUrl ?? opts.variant.baseUrl, {
      timeoutMs: opts.timeoutMs ?? 5000,
      keepWarmMs: 0,
      logger: opts.logger,
    });
    this.clock = opts.clock ?? systemClock;
  }

  quotes(instruments: readonly QuoteInstrument[], signal?: AbortSignal): Promise<Map<string, Quote>> {
    return this.fetch(instruments, readNorenQuote, signal);
  }

  marketQuotes(
    instruments: readonly QuoteInstrument[],
    signal?: AbortSignal,
  ): Promise<Map<string, MarketQuote>> {
    return this.fetch(instruments, readNorenMarketQuote, signal);
  }

  /** Candles from TPSeries (windows one after another) or EODChartData; see noren-history.ts. */
  async history(
    instrument: QuoteInstrument,
    interval: HistoryInterval,
    from: string,
    to: string,
    signal?: AbortSignal,
  ): Promise<Candle[]> {
    const plan = norenHistoryPlan(instrument, interval, from, to);
    if ('refusal' in plan) throw this.error('bad_request', plan.refusal);
    const candles: Candle[] = [];
    for (const [n, req] of plan.requests.entries()) {
      signal?.throwIfAborted();
      if (n > 0) await sleep(this.opts.paceMs ?? NOREN_QUOTE_PACE_MS, undefined, { signal });
      const json = await this.send(req.endpoint, req.data);
      signal?.throwIfAborted();
      if (json !== undefined) candles.push(...readNorenCandles(json, plan.daily));
    }
    const byTime = new Map(candles.map((c) => [c.time, c]));
    return [...byTime.values()].sort((a, b) => a.time - b.time);
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private error(code: string, message: string, retryable = false, status?: number): QuoteError {
    return new QuoteError({
      broker: this.broker,
      code,
      message: `${this.label} quotes: ${message}`,
      retryable,
      status,
    });
  }

  private async fetch<T>(
    instruments: readonly QuoteInstrument[],
    read: (raw: Record<string, unknown>, receivedAt: number) => T | undefined,
    signal?: AbortSignal,
  ): Promise<Map<string, T>> {
    const out = new Map<string, T>();
    const wanted = groupByRequestKey(instruments, (i) =>
      TOKEN.test(i.token) && i.brexchange !== '' ? `${i.brexchange}:${i.token}` : undefined,
    );
    for (const [n, [key, targets]] of [...wanted.entries()].entries()) {
      signal?.throwIfAborted();
      if (n > 0) await sleep(this.opts.paceMs ?? NOREN_QUOTE_PACE_MS, undefined, { signal });
      const at = key.lastIndexOf(':');
      const json = await this.send('GetQuotes', { exch: key.slice(0, at), token: key.slice(at + 1) });
      signal?.throwIfAborted();
      if (json === undefined || Array.isArray(json)) continue;
      const quote = read(json as Record<string, unknown>, this.clock.now());
      if (quote) for (const t of targets) out.set(t, quote);
    }
    return out;
  }

  /**
   * One call with the session's token and user id: the answer (an array or a success object), or
   * undefined for a "no data" refusal; anything else is a {@link QuoteError}, logged at warn.
   */
  private async send(endpoint: string, data: Record<string, string>): Promise<unknown> {
    const token = currentToken(this.opts.accessToken);
    const uid = this.opts.brokerUserId?.();
    if (token === undefined || !uid)
      throw this.error('no_token', 'no session token and user id (broker session not connected)');
    const outcome = await this.http.send({
      method: 'POST',
      path: `/${endpoint}`,
      headers: NOREN_FORM_HEADERS,
      body: norenForm({ uid, ...data }, token),
    });
    return this.unwrap(outcome, [token, this.opts.apiKey]);
  }

  private unwrap(outcome: HttpOutcome, secrets: readonly (string | undefined)[]): unknown {
    let err: QuoteError;
    if (outcome.kind === 'failure')
      err = this.error(outcome.code, outcome.message, outcome.code !== 'closed');
    else if (outcome.json === undefined)
      err = this.error(
        'bad_response',
        `HTTP ${outcome.status}: the answer is not JSON`,
        isRetryableStatus(outcome.status),
        outcome.status,
      );
    else if (
      outcome.status >= 200 &&
      outcome.status < 300 &&
      (Array.isArray(outcome.json) || isNorenOk(outcome.json))
    )
      return outcome.json;
    else {
      const said = readNorenError(outcome.json);
      if (outcome.status < 300 && isNoData(said.message)) return undefined;
      const status = outcome.status >= 400 ? outcome.status : norenErrorStatus(said.message);
      const text = said.message ? sanitize(said.message, secrets) : 'the answer is not a success';
      err = this.error(`http_${status}`, `HTTP ${status}: ${text}`, isRetryableStatus(status), status);
    }
    this.opts.logger?.warn(
      {
        broker: this.broker,
        status: err.status,
        code: err.code,
        retryable: err.retryable,
        reason: err.message,
      },
      'broker quote request failed',
    );
    throw err;
  }
}
