/**
 * The market-data half of the Fyers loopback stub (broker-order-stub-fyers.ts serves it), answering
 * as myapi.fyers.in/docsv3 "Data Api" documents:
 *
 * - `GET /data/quotes?symbols=a,b` (at most 50, else a -50 refusal): `{"s":"ok","code":200,"d":
 *   [{"n","s":"ok","v":{…}}]}` from `quotes` (symbol → `v`); an unknown symbol is an entry with
 *   `"s":"error"` (the docs show no such entry: its shape is the stub's);
 * - `GET /data/depth?symbol=…&ohlcv_flag=1`: `{"s":"ok","d":{"<symbol>":{…}},"message":""}` from
 *   `depths`; an unknown symbol is refused with -300 ("invalid symbol", the error table's code);
 * - `GET /data/history?symbol&resolution&date_format=1&range_from&range_to`: the candles of
 *   `candles` (`symbol|resolution` → rows `[epoch s, o, h, l, c, v(, oi)]`) whose IST day lies in
 *   the range; more than 100 days (minute resolutions) or 366 (daily) is refused with -50;
 * - the documented 10 requests a second: an eleventh data request within one second is refused
 *   with HTTP 429 and code -429 (the error table's rate-limit code; the message is the stub's).
 *
 * {@link FYERS_DOC_SBIN_QUOTE} and {@link FYERS_DOC_SBIN_DEPTH} are the docs' sample answers'
 * records, verbatim. Also here, to keep the order stub's file short: the portfolio answers it
 * builds from its fills ({@link fyersPositionBook}, {@link fyersFundLimit}; docs "Positions",
 * "Funds").
 */
import { positionFigures, type StubPosition } from './broker-order-stub-base.js';
import type { RecordedRequest, StubAnswer } from './broker-stub.js';

type Body = Record<string, unknown>;

/** Fyers' error envelope (docs "Request & Response Structure": `s`, negative `code`, `message`). */
export const fyersError = (status: number, code: number, message: string): StubAnswer => ({
  status,
  body: { s: 'error', code, message },
});

/** The rate-limit refusal (HTTP 429, code -429). */
export const FYERS_RATE_LIMIT = fyersError(429, -429, 'request limit reached');

/** The docs' Quotes sample `v` (NSE:SBIN-EQ). */
export const FYERS_DOC_SBIN_QUOTE: Body = {
  ch: 1.7,
  chp: 0.4,
  lp: 426.9,
  spread: 0.05,
  ask: 426.9,
  bid: 426.85,
  open_price: 430.5,
  high_price: 433.65,
  low_price: 423.6,
  prev_close_price: 425.2,
  atp: 428.07,
  volume: 38977242,
  short_name: 'SBIN-EQ',
  exchange: 'NSE',
  description: 'NSE:SBIN-EQ',
  original_name: 'NSE:SBIN-EQ',
  symbol: 'NSE:SBIN-EQ',
  fyToken: '10100000003045',
  tt: '1622160000',
};

/** The docs' Market Depth sample record (NSE:SBIN-EQ). */
export const FYERS_DOC_SBIN_DEPTH: Body = {
  totalbuyqty: 2396063,
  totalsellqty: 4990001,
  bids: [
    { price: 427.25, volume: 4738, ord: 5 },
    { price: 427.2, volume: 2631, ord: 9 },
    { price: 427.15, volume: 6366, ord: 19 },
    { price: 427.1, volume: 6344, ord: 18 },
    { price: 427.05, volume: 8136, ord: 16 },
  ],
  ask: [
    { price: 427.4, volume: 2193, ord: 4 },
    { price: 427.45, volume: 5406, ord: 19 },
    { price: 427.5, volume: 15311, ord: 57 },
    { price: 427.55, volume: 11170, ord: 17 },
    { price: 427.6, volume: 7272, ord: 25 },
  ],
  o: 430.5,
  h: 433.65,
  l: 423.6,
  c: 425.2,
  chp: 0.48,
  tick_Size: 0.05,
  ch: 2.05,
  ltq: 20,
  ltt: 1622184920,
  ltp: 427.25,
  v: 39163870,
  atp: 428.07,
  lower_ckt: 382.7,
  upper_ckt: 467.7,
  expiry: '',
  oi: 0,
  oiflag: false,
  pdoi: 0,
  oipercent: 0.0,
};

/** A quotes `v` in the docs' shape with the given last price (the rest from the SBIN sample). */
export function fyersQuote(symbol: string, lp: number): Body {
  return {
    ...FYERS_DOC_SBIN_QUOTE,
    lp,
    bid: lp - 0.05,
    ask: lp,
    symbol,
    original_name: symbol,
    description: symbol,
  };
}

const RESOLUTIONS = ['1', '2', '3', '5', '10', '15', '20', '30', '45', '60', '120', '180', '240', 'D', '1D'];
const ISO = /^\d{4}-\d{2}-\d{2}$/;
const DAY = 86_400_000;
const istDay = (epochS: number) => new Date(epochS * 1000 + 19_800_000).toISOString().slice(0, 10);

/** What the data routes answer from; see the file comment. */
export class FyersDataDesk {
  /** Quotes `v` by Fyers symbol. */
  readonly quotes = new Map<string, Body>();
  /** Depth records by Fyers symbol. */
  readonly depths = new Map<string, Body>();
  /** Candle rows by `symbol|resolution`. */
  readonly candles = new Map<string, number[][]>();
  /** Data requests allowed a second (docs: 10). */
  perSecond = 10;
  private readonly times: number[] = [];

  /** Counts a data request; the rate-limit refusal when it is over the limit. */
  limited(): StubAnswer | undefined {
    const now = performance.now();
    while (this.times.length > 0 && now - this.times[0]! >= 1000) this.times.shift();
    if (this.times.length >= this.perSecond) return FYERS_RATE_LIMIT;
    this.times.push(now);
    return undefined;
  }

  quote(req: RecordedRequest): StubAnswer {
    const symbols = (req.query.get('symbols') ?? '').split(',').filter((s) => s !== '');
    if (symbols.length === 0) return fyersError(400, -50, 'symbols is required');
    if (symbols.length > 50) return fyersError(400, -50, 'Maximum symbol limit is 50');
    const d = symbols.map((n) => {
      const v = this.quotes.get(n);
      return v ? { n, s: 'ok', v } : { n, s: 'error', v: { errmsg: 'Invalid symbol' } };
    });
    return { status: 200, body: { s: 'ok', code: 200, d } };
  }

  depth(req: RecordedRequest): StubAnswer {
    const symbol = req.query.get('symbol') ?? '';
    if (req.query.get('ohlcv_flag') === null) return fyersError(400, -50, 'ohlcv_flag is required');
    const rec = this.depths.get(symbol);
    if (!rec) return fyersError(400, -300, 'Please provide a valid symbol');
    return { status: 200, body: { s: 'ok', d: { [symbol]: rec }, message: '' } };
  }

  history(req: RecordedRequest): StubAnswer {
    const q = req.query;
    const symbol = q.get('symbol') ?? '';
    const resolution = q.get('resolution') ?? '';
    const [from, to] = [q.get('range_from') ?? '', q.get('range_to') ?? ''];
    if (!RESOLUTIONS.includes(resolution)) return fyersError(400, -50, 'Invalid resolution');
    if (q.get('date_format') !== '1' || !ISO.test(from) || !ISO.test(to))
      return fyersError(400, -50, 'Invalid range_from or range_to');
    const days = (Date.parse(to) - Date.parse(from)) / DAY + 1;
    const daily = resolution === 'D' || resolution === '1D';
    if (days > (daily ? 366 : 100))
      return fyersError(
        400,
        -50,
        `Range is more than ${daily ? 366 : 100} days for resolution ${resolution}`,
      );
    const rows = (this.candles.get(`${symbol}|${daily ? 'D' : resolution}`) ?? []).filter((r) => {
      const day = istDay(r[0]!);
      return day >= from && day <= to;
    });
    return { status: 200, body: { s: 'ok', candles: rows } };
  }
}

/** The funds ledger's lines, in the docs' order. */
const LEDGER = [
  'Total Balance',
  'Utilized Amount',
  'Clear Balance',
  'Realized Profit and Loss',
  'Collaterals',
].concat(['Fund Transfer', 'Receivables', 'Adhoc Limit', 'Limit at start of the day', 'Available Balance']);
/** The fields of a position the stub does not model (docs' sample values). */
const POSITION_FIXED = { crossCurrency: 'N', rbiRefRate: 1.0, qtyMulti_com: 1.0, cfBuyQty: 0, cfSellQty: 0 };

/** `GET /positions` (docs "Positions" sample) from the stub's net positions. */
export function fyersPositionBook(
  positions: readonly StubPosition[],
  priceOf: (symbol: string) => number,
  instrumentOf: (symbol: string) => { exchange: number; segment: number },
): Body {
  const netPositions = positions.map((p, n) => {
    const ins = instrumentOf(p.tradingsymbol);
    const ltp = priceOf(p.tradingsymbol);
    const f = positionFigures(p, ltp);
    return {
      netQty: f.quantity,
      qty: Math.abs(f.quantity),
      avgPrice: f.average,
      netAvg: f.average,
      side: f.quantity > 0 ? 1 : f.quantity < 0 ? -1 : 0,
      productType: p.product,
      realized_profit: f.realised,
      unrealized_profit: f.unrealised,
      pl: f.pnl,
      ltp,
      buyQty: p.buyQty,
      buyAvg: f.buyAvg,
      buyVal: p.buyValue,
      sellQty: p.sellQty,
      sellAvg: f.sellAvg,
      sellVal: p.sellValue,
      slNo: n,
      fyToken: String(p.token),
      ...POSITION_FIXED,
      segment: ins.segment,
      symbol: p.tradingsymbol,
      id: `${p.tradingsymbol}-${p.product}`,
      dayBuyQty: p.buyQty,
      daySellQty: p.sellQty,
      exchange: ins.exchange,
    };
  });
  const sum = (k: string) => netPositions.reduce((a, p) => a + Number((p as Body)[k]), 0);
  const overall = {
    count_total: netPositions.length,
    count_open: netPositions.filter((p) => p.netQty !== 0).length,
    pl_total: sum('pl'),
    pl_realized: sum('realized_profit'),
    pl_unrealized: sum('unrealized_profit'),
  };
  return { netPositions, overall };
}

/** `GET /funds`: the docs' ten ledger lines, from the cash and the positions' use. */
export function fyersFundLimit(cash: number, positions: readonly StubPosition[]): Body[] {
  const used = positions.reduce((a, p) => a + Math.abs(p.buyValue - p.sellValue), 0);
  const amounts: Record<string, number> = {
    'Total Balance': cash,
    'Utilized Amount': used,
    'Clear Balance': cash - used,
    'Limit at start of the day': cash,
    'Available Balance': cash - used,
  };
  const lines = LEDGER.map((title) => [title, amounts[title] ?? 0] as const);
  return lines.map(([title, equityAmount], n) => ({ id: n + 1, title, equityAmount, commodityAmount: 0 }));
}
