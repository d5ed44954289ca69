/**
 * The sandbox's records in OpenAlgo's wire shapes (docs/rules/sandbox.md#read-apis): the `data` of
 * orderbook, tradebook, positionbook, holdings, funds and orderstatus. Pure functions; shapes and
 * the reasons for each choice are in docs/openalgo-book-shapes.md.
 *
 * Numbers: every amount is computed exactly in {@link Money} and rounded once, at the end, half
 * away from zero, to 2 decimals as OpenAlgo does (`round(float(x), 2)`), except on the currency
 * exchanges CDS and BCD, which tick in ₹0.0025 and keep 4 decimals (Money's own precision, so
 * their prices, values and P&L are never rounded; only averages are). Percentages have 2 decimals.
 * Times are IST (UTC+05:30, no daylight saving) as `YYYY-MM-DD HH:MM:SS`, OpenAlgo's sandbox
 * format. Orders and trades are listed newest first, as OpenAlgo's sandbox lists them.
 */
import { IST_OFFSET_MS } from '../../market/timings.service.js';
import type {
  Funds,
  HoldingRow,
  Holdings,
  Orderbook,
  OrderRow,
  OrderStatistics,
  PositionRow,
  TradeRow,
} from '../../orders/book.schema.js';
import { divRound, tradeValue, type Money } from './money.js';
import { unrealisedPnl } from './positions.js';
import type { AccountRecord, HoldingRecord, OrderRecord, PositionRecord, TradeRecord } from './records.js';
import { FOUR_DECIMAL_EXCHANGES } from '../../../domain/exchanges.js';

// ---- Numbers ----

/** Decimals of the rupee amounts of a row on `exchange`: 4 on CDS/BCD, else 2. */
export function amountDecimals(exchange: string): 2 | 4 {
  return FOUR_DECIMAL_EXCHANGES.has(exchange) ? 4 : 2;
}

/** `m` in rupees with `decimals` decimals (half away from zero); never -0. */
function rupees(m: Money, decimals: 2 | 4): number {
  const r = decimals === 4 ? m / 10_000 : divRound(m, 100) / 100;
  return r + 0;
}

/** Average price `cost ÷ |quantity|` in rupees, rounded once from the exact quotient; 0 when flat. */
function average(cost: Money, quantity: number, decimals: 2 | 4): number {
  const q = Math.abs(quantity);
  if (q === 0) return 0;
  const r = decimals === 4 ? divRound(cost, q) / 10_000 : divRound(cost, q * 100) / 100;
  return r + 0;
}

/** `part ÷ whole × 100` with 2 decimals, half away from zero, exact (BigInt); 0 when `whole` is 0. */
function percent(part: Money, whole: Money): number {
  if (whole === 0) return 0;
  const num = BigInt(part) * 10_000n;
  const den = BigInt(whole);
  const a = num < 0n ? -num : num;
  const b = den < 0n ? -den : den;
  let q = a / b;
  if ((a % b) * 2n >= b) q += 1n;
  const hundredths = Number(num < 0n !== den < 0n ? -q : q);
  return hundredths / 100 + 0;
}

/** `a + b`, or a `RangeError` past 2^53 (money.ts: never a silently wrong number). */
function plus(a: Money, b: Money): Money {
  const s = a + b;
  if (!Number.isSafeInteger(s)) throw new RangeError('total is outside the exact money range');
  return s;
}

// ---- Times and order of rows ----

/** An instant as OpenAlgo's sandbox writes it: IST wall-clock `YYYY-MM-DD HH:MM:SS`. */
export function istTimestamp(epochMs: number): string {
  const iso = new Date(epochMs + IST_OFFSET_MS).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
}

/** Decimal ids in numeric order without parsing (`"9"` < `"10"`). */
function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** Newest first; equal times by id, highest (latest issued) first. */
function newestFirst<T>(rows: readonly T[], at: (r: T) => number, id: (r: T) => string): T[] {
  return [...rows].sort((x, y) => at(y) - at(x) || compareIds(id(y), id(x)));
}

// ---- Orders ----

function isWorking(order: OrderRecord): boolean {
  return order.status === 'open' || order.status === 'trigger pending';
}

/** One order as an orderbook row (also the `data` of orderstatus). */
function orderRow(o: OrderRecord): OrderRow {
  const d = amountDecimals(o.exchange);
  return {
    orderid: o.orderId,
    symbol: o.symbol,
    exchange: o.exchange,
    action: o.side,
    quantity: o.quantity,
    price: rupees(o.price, d),
    trigger_price: rupees(o.triggerPrice, d),
    pricetype: o.priceType,
    product: o.product,
    order_status: o.status,
    average_price: rupees(o.averagePrice, d),
    filled_quantity: o.filledQuantity,
    pending_quantity: isWorking(o) ? o.quantity - o.filledQuantity : 0,
    rejection_reason: o.reason ?? '',
    timestamp: istTimestamp(o.createdAt),
    strategy: o.strategy ?? '',
  };
}

/**
 * The orderbook `data`: rows newest first and the counts. `total_open_orders` counts every order
 * still working (`open` and `trigger pending`); cancelled orders count only by side.
 */
export function formatOrderbook(orders: readonly OrderRecord[]): Orderbook {
  const statistics: OrderStatistics = {
    total_buy_orders: 0,
    total_sell_orders: 0,
    total_completed_orders: 0,
    total_open_orders: 0,
    total_rejected_orders: 0,
  };
  for (const o of orders) {
    if (o.side === 'BUY') statistics.total_buy_orders += 1;
    else statistics.total_sell_orders += 1;
    if (o.status === 'complete') statistics.total_completed_orders += 1;
    else if (o.status === 'rejected') statistics.total_rejected_orders += 1;
    else if (isWorking(o)) statistics.total_open_orders += 1;
  }
  const rows = newestFirst(
    orders,
    (o) => o.createdAt,
    (o) => o.orderId,
  ).map(orderRow);
  return { orders: rows, statistics };
}

/** The orderstatus `data`: the order's orderbook row. */
export function formatOrderStatus(order: OrderRecord): OrderRow {
  return orderRow(order);
}

// ---- Trades ----

/** The tradebook `data`: one row per fill, newest first. */
export function formatTradebook(trades: readonly TradeRecord[]): TradeRow[] {
  return newestFirst(
    trades,
    (t) => t.createdAt,
    (t) => t.tradeId,
  ).map((t) => {
    const d = amountDecimals(t.exchange);
    const price = rupees(t.price, d);
    return {
      tradeid: t.tradeId,
      orderid: t.orderId,
      symbol: t.symbol,
      exchange: t.exchange,
      action: t.side,
      quantity: t.quantity,
      average_price: price,
      price,
      trade_value: rupees(tradeValue(t.price, t.quantity), d),
      product: t.product,
      strategy: t.strategy ?? '',
      timestamp: istTimestamp(t.createdAt),
      charges: rupees(t.charges, 2),
    };
  });
}

// ---- Positions and holdings ----

/**
 * The positionbook `data`, in the order given. `pnl` is realised plus unrealised P&L (OpenAlgo:
 * a closed position still shows what it made); unrealised is (ltp − average) × quantity for a
 * long and (average − ltp) × |quantity| for a short. Without an LTP the open quantity is not
 * marked: `ltp` 0 and unrealised 0, not a fabricated loss.
 */
export function formatPositionbook(positions: readonly PositionRecord[]): PositionRow[] {
  return positions.map((p) => {
    const d = amountDecimals(p.exchange);
    const unrealised = p.ltp === undefined ? 0 : unrealisedPnl(p, p.ltp);
    const pnl = plus(p.realisedPnl, unrealised);
    const charges = p.charges ?? 0;
    return {
      symbol: p.symbol,
      exchange: p.exchange,
      product: p.product,
      quantity: p.quantity,
      average_price: average(p.cost, p.quantity, d),
      ltp: p.ltp === undefined ? 0 : rupees(p.ltp, d),
      pnl: rupees(pnl, d),
      realized_pnl: rupees(p.realisedPnl, d),
      unrealized_pnl: rupees(unrealised, d),
      charges: rupees(charges, 2),
      net_pnl: rupees(pnl - charges, d),
    };
  });
}

/**
 * The holdings `data`, rows in the order given. A holding without an LTP is valued at cost:
 * `ltp` 0, `pnl` 0, and its cost in both totals, so `totalprofitandloss` stays
 * `totalholdingvalue − totalinvvalue`. Percentages are P&L over invested value.
 */
export function formatHoldings(holdings: readonly HoldingRecord[]): Holdings {
  let value = 0;
  let invested = 0;
  let pnl = 0;
  const rows = holdings.map((h): HoldingRow => {
    const d = amountDecimals(h.exchange);
    const worth = h.ltp === undefined ? h.cost : tradeValue(h.ltp, h.quantity);
    const gain = worth - h.cost;
    value = plus(value, worth);
    invested = plus(invested, h.cost);
    pnl = plus(pnl, gain);
    return {
      symbol: h.symbol,
      exchange: h.exchange,
      product: 'CNC',
      quantity: h.quantity,
      average_price: average(h.cost, h.quantity, d),
      ltp: h.ltp === undefined ? 0 : rupees(h.ltp, d),
      pnl: rupees(gain, d),
      pnlpercent: percent(gain, h.cost),
    };
  });
  return {
    holdings: rows,
    statistics: {
      totalholdingvalue: rupees(value, 2),
      totalinvvalue: rupees(invested, 2),
      totalprofitandloss: rupees(pnl, 2),
      totalpnlpercentage: percent(pnl, invested),
    },
  };
}

// ---- Funds ----

/**
 * The funds `data`. `m2mrealized` is the realised P&L since the account's last reset (the
 * sandbox keeps no per-day total), gross; `charges` what its fills paid and `netrealized` the
 * difference (docs/rules/sandbox.md#charges-booked); `collateral` is always 0.
 */
export function formatFunds(account: AccountRecord): Funds {
  return {
    availablecash: rupees(account.available, 2),
    collateral: 0,
    m2mrealized: rupees(account.realisedPnl, 2),
    m2munrealized: rupees(account.unrealisedPnl, 2),
    utiliseddebits: rupees(account.usedMargin, 2),
    charges: rupees(account.charges, 2),
    netrealized: rupees(account.realisedPnl - account.charges, 2),
  };
}
