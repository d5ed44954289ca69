/**
 * Kite Connect v3 full market quotes (kite.trade/docs/connect/v3/market-quotes):
 * `GET /quote?i=NSE:INFY&i=NFO:NIFTY2681826000CE…`, at most 500 instruments a call, headers
 * `X-Kite-Version: 3` and `Authorization: token api_key:access_token`. The answer is
 * `{"status":"success","data":{"NSE:INFY":{…}}}` keyed by the `exchange:tradingsymbol` asked
 * for; an instrument without data is absent. Errors are `{"status":"error","message",
 * "error_type"}` with 400/403/429/5xx (kite.trade/docs/connect/v3/exceptions).
 */
import type { Quote } from '../../sandbox/types.js';
import {
  chunk,
  currentToken,
  groupByRequestKey,
  QuoteTransport,
  readQuote,
  type QuoteClient,
  type QuoteClientOptions,
  type QuoteInstrument,
} from './quote-client.js';

/** Kite's public API origin. */
export const KITE_BASE_URL = 'https://api.kite.trade';

/** Documented limit of `/quote` ("Limits": 500 instruments). */
const KITE_MAX_QUOTE_INSTRUMENTS = 500;

/**
 * The value of one `i` parameter: percent-encoded except the `:` separator, which Kite's own
 * examples send as is (`i=NSE:INFY`); the space of index symbols becomes `%20` (`NSE:NIFTY%2050`).
 */
function encodeKiteKey(key: string): string {
  return encodeURIComponent(key).replace(/%3A/gi, ':');
}

/** Kite's error body: `message` and `error_type` (TokenException, InputException, …). */
function readKiteError(json: unknown): { code?: string; message?: string } {
  const body = json as { message?: unknown; error_type?: unknown };
  return {
    code: typeof body.error_type === 'string' && body.error_type !== '' ? body.error_type : undefined,
    message: typeof body.message === 'string' && body.message !== '' ? body.message : undefined,
  };
}

/**
 * Zerodha's {@link QuoteClient}. Instruments are asked for as `brexchange:brsymbol` (the master
 * contract's Kite exchange and trading symbol, `NSE:NIFTY 50` for the NSE_INDEX `NIFTY`) and the
 * answer's keys are mapped back to algodesk's `EXCHANGE:SYMBOL`.
 */
export class ZerodhaQuoteClient implements QuoteClient {
  readonly broker = 'zerodha';
  readonly maxBatch = KITE_MAX_QUOTE_INSTRUMENTS;
  private readonly http: QuoteTransport;

  constructor(private readonly opts: QuoteClientOptions) {
    this.http = new QuoteTransport('zerodha', 'Zerodha', opts, KITE_BASE_URL, readKiteError);
  }

  async quotes(instruments: readonly QuoteInstrument[], signal?: AbortSignal): Promise<Map<string, Quote>> {
    const out = new Map<string, Quote>();
    const wanted = groupByRequestKey(instruments, (i) =>
      i.brexchange && i.brsymbol ? `${i.brexchange}:${i.brsymbol}` : undefined,
    );
    if (wanted.size === 0) return out;

    const token = currentToken(this.opts.accessToken);
    const apiKey = this.opts.apiKey;
    // Refused before any I/O: Kite would answer 403 and the call would only cost rate limit.
    if (token === undefined)
      throw this.http.error('no_token', 'no access token (broker session not connected)');
    if (!apiKey) throw this.http.error('no_token', 'no API key configured');
    const headers = { 'x-kite-version': '3', authorization: `token ${apiKey}:${token}` };
    const secrets = [token, apiKey];

    for (const keys of chunk([...wanted.keys()], this.maxBatch)) {
      const path = `/quote?${keys.map((k) => `i=${encodeKiteKey(k)}`).join('&')}`;
      const answer = await this.http.get(path, headers, signal);
      const data = this.http.unwrap(answer, secrets);
      for (const [key, raw] of Object.entries(data)) {
        const targets = wanted.get(key);
        if (!targets) continue;
        const quote = readQuote(raw, answer.receivedAt);
        if (quote) for (const t of targets) out.set(t, quote);
      }
    }
    return out;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
