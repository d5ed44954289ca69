/**
 * SmartAPI's historical API on an {@link AngelStub} (smartapi.angelone.in/docs/Historical),
 * registered by {@link serveAngelCandles}: `POST /rest/secure/angelbroking/historical/v1/
 * getCandleData` `{exchange, symboltoken, interval, fromdate, todate}`, times `YYYY-MM-DD HH:mm`
 * (IST), answered `{"status":true,"message":"SUCCESS","errorcode":"","data":[[time, open, high,
 * low, close, volume], …]}` with the candles the test put in {@link AngelCandles.rows} (keyed
 * `EXCHANGE:TOKEN:INTERVAL`) whose time lies between `fromdate` and `todate`, in the order they
 * were put; none is `"data":[]`.
 *
 * Like the stub's secure routes it needs `Authorization: Bearer <the current JWT>` (else the
 * gateway's AG8001) and `X-PrivateKey` (else AG8004). The interval must be one of the documented
 * eight and the range within the docs' "Max Days in one Request" for it; a violation is HTTP 400
 * `"errorcode":"STUB"` (Angel documents the limits, not its answer). More than 3 requests within a
 * second (the documented rate, SmartAPI forum topic 4387) get the rate limiter's plain-text
 * "Access denied because of exceeding access rate" with HTTP 403.
 */
import {
  ANGEL_INVALID_TOKEN,
  ANGEL_RATE_LIMIT_TEXT,
  angelError,
  angelFail,
  angelOk,
  type AngelStub,
} from './broker-order-stub-angel.js';
import type { RecordedRequest, StubAnswer } from './broker-stub.js';

/** The historical endpoint. */
export const ANGEL_HISTORY_STUB_PATH = '/rest/secure/angelbroking/historical/v1/getCandleData';

/** A row as getCandleData answers it: `[time with +05:30, open, high, low, close, volume]`. */
export type AngelCandleRow = [string, number, number, number, number, number];

/**
 * The docs' example: NIFTY 50 (`NSE`, token 99926000), ONE_HOUR, 2023-09-06 11:15 to 12:00;
 * an index has no volume.
 */
export const ANGEL_DOC_REQUEST = {
  exchange: 'NSE',
  symboltoken: '99926000',
  interval: 'ONE_HOUR',
  fromdate: '2023-09-06 11:15',
  todate: '2023-09-06 12:00',
};
export const ANGEL_DOC_ROWS: readonly AngelCandleRow[] = [
  ['2023-09-06T11:15:00+05:30', 19571.2, 19573.35, 19534.4, 19552.05, 0],
];

/** Max days of one request, by interval (the docs' table). */
const MAX_DAYS: Readonly<Record<string, number>> = {
  ONE_MINUTE: 30,
  THREE_MINUTE: 60,
  FIVE_MINUTE: 100,
  TEN_MINUTE: 100,
  FIFTEEN_MINUTE: 200,
  THIRTY_MINUTE: 200,
  ONE_HOUR: 400,
  ONE_DAY: 2000,
};
const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/;
const ist = (s: string) => Date.parse(`${s.replace(' ', 'T')}:00+05:30`);
const stubFail = (message: string): StubAnswer => ({
  status: 400,
  body: angelError(`stub: ${message}`, 'STUB'),
});

/** The historical route of one AngelStub; see the file comment. */
export class AngelCandles {
  /** Candles by `EXCHANGE:TOKEN:INTERVAL` (`NSE:3045:ONE_DAY`). */
  readonly rows = new Map<string, AngelCandleRow[]>();
  /** Requests a second before the rate limiter answers (docs: 3). */
  perSecond = 3;
  private readonly sent: number[] = [];

  constructor(private readonly stub: AngelStub) {
    stub.route('POST', ANGEL_HISTORY_STUB_PATH, (r) => this.answer(r));
  }

  /** JSON bodies of the getCandleData requests received, in order. */
  bodies(): Record<string, unknown>[] {
    return this.stub.bodies(ANGEL_HISTORY_STUB_PATH);
  }

  private answer(req: RecordedRequest): StubAnswer {
    if (this.stub.credentialOf(req) !== 'exact') return { status: 200, body: ANGEL_INVALID_TOKEN };
    if (req.headers['x-privatekey'] !== this.stub.credentials.apiKey)
      return angelFail('Invalid API Key', 'AG8004');
    const now = performance.now();
    while (this.sent.length > 0 && now - this.sent[0]! >= 1000) this.sent.shift();
    if (this.sent.length >= this.perSecond) return { status: 403, body: ANGEL_RATE_LIMIT_TEXT };
    this.sent.push(now);
    let b: Record<string, unknown>;
    try {
      b = JSON.parse(req.body) as Record<string, unknown>;
    } catch {
      return stubFail('the body is not JSON');
    }
    const interval = String(b.interval);
    const days = MAX_DAYS[interval];
    if (days === undefined) return stubFail(`unknown interval ${interval}`);
    const [from, to] = [String(b.fromdate), String(b.todate)];
    if (!TIME.test(from) || !TIME.test(to)) return stubFail('times are YYYY-MM-DD HH:mm');
    if (ist(to) - ist(from) > days * 86_400_000) return stubFail(`more than ${days} days of ${interval}`);
    const key = `${String(b.exchange)}:${String(b.symboltoken)}:${interval}`;
    const rows = (this.rows.get(key) ?? []).filter((r) => {
      const t = Date.parse(r[0]);
      return t >= ist(from) && t <= ist(to);
    });
    return angelOk(rows);
  }
}

/** Serves getCandleData on `stub`; the returned {@link AngelCandles} holds its candles. */
export function serveAngelCandles(stub: AngelStub): AngelCandles {
  return new AngelCandles(stub);
}
