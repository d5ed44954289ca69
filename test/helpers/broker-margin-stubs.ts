/**
 * The brokers' margin calculators as the loopback stubs answer them (broker-order-stubs.ts serves
 * the routes): Kite's `POST /margins/basket` (kite.trade/docs/connect/v3/margins) and Upstox's
 * `POST /v2/charges/margin` (upstox.com/developer/api-documentation/margin), in their documented
 * shapes, with a simple fixed rule so tests can compute the figures by hand:
 *
 * - cash equity: `var` (Kite) / `equity_margin` (Upstox) = value ÷ 5 for MIS (I), the value for
 *   CNC (D);
 * - an option bought: the premium, `value`;
 * - a future, or an option sold: SPAN 12 % and exposure 3 % of the value;
 * - a basket holding both a bought and a sold derivative leg is a spread: the final figure drops
 *   70 % of the SPAN.
 *
 * The value is quantity × the order's price, or the instrument's price in the stub when it has none.
 */
import type { StubAnswer } from './broker-quote-stubs.js';
import { kiteError, upstoxError } from './broker-quote-stubs.js';

/** One leg as the rule sees it. */
export interface StubMarginLeg {
  derivative: boolean;
  option: boolean;
  side: string;
  intraday: boolean;
  value: number;
}

export interface StubLegFigures {
  span: number;
  exposure: number;
  premium: number;
  equity: number;
  total: number;
}

const paise = (x: number) => Math.round(x * 100) / 100;

export function legFigures(l: StubMarginLeg): StubLegFigures {
  const zero = { span: 0, exposure: 0, premium: 0, equity: 0 };
  if (!l.derivative) {
    const equity = paise(l.intraday ? l.value / 5 : l.value);
    return { ...zero, equity, total: equity };
  }
  if (l.option && l.side === 'BUY') return { ...zero, premium: paise(l.value), total: paise(l.value) };
  const span = paise(l.value * 0.12);
  const exposure = paise(l.value * 0.03);
  return { ...zero, span, exposure, total: paise(span + exposure) };
}

/** The basket: each leg's figures, their sum, and the sum less the spread benefit. */
export function basketFigures(legs: readonly StubMarginLeg[]) {
  const each = legs.map(legFigures);
  const sum = (k: keyof StubLegFigures) => paise(each.reduce((a, f) => a + f[k], 0));
  const initial = {
    span: sum('span'),
    exposure: sum('exposure'),
    premium: sum('premium'),
    equity: sum('equity'),
    total: sum('total'),
  };
  const d = legs.filter((l) => l.derivative);
  const spread = d.some((l) => l.side === 'BUY') && d.some((l) => l.side === 'SELL');
  const benefit = spread ? paise(initial.span * 0.7) : 0;
  const final = { ...initial, span: paise(initial.span - benefit), total: paise(initial.total - benefit) };
  return { each, initial, final };
}

const KITE_ORDER_FIELDS = [
  'exchange',
  'tradingsymbol',
  'transaction_type',
  'variety',
  'product',
  'order_type',
  'quantity',
];

/** Kite's `POST /margins/basket` on a parsed JSON body. */
export function kiteBasketAnswer(body: unknown, priceOf: (tradingsymbol: string) => number): StubAnswer {
  const bad = (m: string): StubAnswer => ({ status: 400, body: kiteError(m, 'InputException') });
  if (!Array.isArray(body) || body.length === 0) return bad('stub: a JSON array of orders is required');
  const orders = body as Array<Record<string, unknown>>;
  for (const o of orders) {
    const missing = KITE_ORDER_FIELDS.find((k) => o[k] === undefined || o[k] === '');
    if (missing) return bad(`Missing or empty field \`${missing}\`.`);
    if (typeof o.quantity !== 'number' || typeof (o.price ?? 0) !== 'number')
      return bad('stub: numbers as JSON numbers');
  }
  const legs = orders.map((o) => {
    const symbol = String(o.tradingsymbol);
    const price = Number(o.price) > 0 ? Number(o.price) : priceOf(symbol);
    return {
      derivative: !['NSE', 'BSE'].includes(String(o.exchange)),
      option: /(CE|PE)$/.test(symbol),
      side: String(o.transaction_type),
      intraday: o.product === 'MIS',
      value: Number(o.quantity) * price,
    };
  });
  const f = basketFigures(legs);
  const kite = (x: { span: number; exposure: number; premium: number; equity: number; total: number }) => ({
    type: 'equity',
    tradingsymbol: '',
    exchange: '',
    span: x.span,
    exposure: x.exposure,
    option_premium: x.premium,
    additional: 0,
    bo: 0,
    cash: 0,
    var: x.equity,
    pnl: { realised: 0, unrealised: 0 },
    leverage: 1,
    charges: { total: 0 },
    total: x.total,
  });
  return {
    status: 200,
    body: {
      status: 'success',
      data: {
        initial: kite(f.initial),
        final: kite(f.final),
        orders: f.each.map((x, i) => ({
          ...kite(x),
          tradingsymbol: orders[i]!.tradingsymbol,
          exchange: orders[i]!.exchange,
        })),
        charges: { total: 0 },
      },
    },
  };
}

/** Upstox's documented limit of instruments per margin request. */
export const UPSTOX_STUB_MARGIN_MAX = 20;

/** Upstox's `POST /v2/charges/margin` on a parsed JSON body. */
export function upstoxMarginAnswer(
  body: Record<string, unknown>,
  symbolOf: (instrumentKey: string) => string,
  priceOf: (tradingsymbol: string) => number,
): StubAnswer {
  const bad = (code: string, m: string): StubAnswer => ({ status: 400, body: upstoxError(code, m) });
  const list = body.instruments;
  if (!Array.isArray(list) || list.length === 0) return bad('UDAPI1000', 'stub: instruments is required');
  if (list.length > UPSTOX_STUB_MARGIN_MAX)
    return bad('UDAPI1127', `A maximum of ${UPSTOX_STUB_MARGIN_MAX} instruments is allowed per request`);
  const legs: StubMarginLeg[] = [];
  for (const raw of list as Array<Record<string, unknown>>) {
    const key = String(raw.instrument_key ?? '');
    if (!/^[A-Z_]+\|.+$/.test(key)) return bad('UDAPI1011', 'instrument_key is invalid');
    if (!Number.isInteger(raw.quantity) || (raw.quantity as number) <= 0)
      return bad('UDAPI1000', 'stub: quantity');
    if (!['D', 'I', 'CO', 'MTF'].includes(String(raw.product))) return bad('UDAPI1002', 'stub: product');
    if (!['BUY', 'SELL'].includes(String(raw.transaction_type))) return bad('UDAPI1003', 'stub: side');
    if (raw.price !== undefined && typeof raw.price !== 'number')
      return bad('UDAPI100038', 'stub: price number');
    const symbol = symbolOf(key);
    const price = typeof raw.price === 'number' && raw.price > 0 ? raw.price : priceOf(symbol);
    legs.push({
      derivative: !key.endsWith('_EQ', key.indexOf('|')),
      option: /(CE|PE)$/.test(symbol),
      side: String(raw.transaction_type),
      intraday: raw.product === 'I',
      value: (raw.quantity as number) * price,
    });
  }
  const f = basketFigures(legs);
  return {
    status: 200,
    body: {
      status: 'success',
      data: {
        margins: f.each.map((x) => ({
          span_margin: x.span,
          exposure_margin: x.exposure,
          equity_margin: x.equity,
          net_buy_premium: x.premium,
          additional_margin: 0,
          total_margin: x.total,
          tender_margin: 0,
        })),
        required_margin: f.initial.total,
        final_margin: f.final.total,
      },
    },
  };
}
