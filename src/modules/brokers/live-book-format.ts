/**
 * The broker's books (the contract's neutral rows, their instrument already mapped back to
 * algodesk's symbol) in OpenAlgo's wire shapes — the same shapes and statistics the sandbox's
 * books answer (src/modules/orders/book.schema.ts, docs/openalgo-book-shapes.md "Live mode").
 * Amounts are rounded once, half away from zero, to 2 decimals (4 on CDS and BCD); orders and
 * trades newest first by their broker timestamp (`YYYY-MM-DD HH:MM:SS` sorts as text), ties by
 * the higher id.
 */
import type {
  Funds,
  HoldingRow,
  Holdings,
  Orderbook,
  OrderRow,
  PositionRow,
  TradeRow,
} from '../orders/book.schema.js';
import type { BookFunds, BookHolding, BookOrder, BookPosition, BookTrade } from './broker-adapter.js';
import { FOUR_DECIMAL_EXCHANGES } from '../../domain/exchanges.js';

/** A row with algodesk's symbol beside the broker's. */
export type Mapped<T> = T & { symbol: string };

/** `x` rounded half away from zero to `d` decimals; never -0. */
export function roundAmount(x: number, d: 2 | 4 = 2): number {
  const f = 10 ** d;
  const r = (Math.sign(x) * Math.round(Math.abs(x) * f + 1e-9)) / f;
  return r + 0;
}

const dec = (exchange: string): 2 | 4 => (FOUR_DECIMAL_EXCHANGES.has(exchange) ? 4 : 2);

const compareIds = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

function newestFirst<T extends { timestamp: string }>(rows: readonly T[], id: (r: T) => string): T[] {
  return [...rows].sort(
    (x, y) =>
      (y.timestamp < x.timestamp ? -1 : y.timestamp > x.timestamp ? 1 : 0) || compareIds(id(y), id(x)),
  );
}

export function liveOrderRow(o: Mapped<BookOrder>): OrderRow {
  const d = dec(o.exchange);
  return {
    orderid: o.orderid,
    symbol: o.symbol,
    exchange: o.exchange,
    action: o.action,
    quantity: o.quantity,
    price: roundAmount(o.price, d),
    trigger_price: roundAmount(o.trigger_price, d),
    pricetype: o.pricetype,
    product: o.product,
    order_status: o.order_status,
    average_price: roundAmount(o.average_price, d),
    filled_quantity: o.filled_quantity,
    pending_quantity: o.pending_quantity,
    rejection_reason: o.rejection_reason,
    timestamp: o.timestamp,
    strategy: o.strategy,
  };
}

/** The orderbook `data`, counted as the sandbox counts (open = `open` + `trigger pending`). */
export function liveOrderbook(orders: readonly Mapped<BookOrder>[]): Orderbook {
  const statistics = {
    total_buy_orders: 0,
    total_sell_orders: 0,
    total_completed_orders: 0,
    total_open_orders: 0,
    total_rejected_orders: 0,
  };
  for (const o of orders) {
    if (o.action === 'BUY') statistics.total_buy_orders += 1;
    else statistics.total_sell_orders += 1;
    if (o.order_status === 'complete') statistics.total_completed_orders += 1;
    else if (o.order_status === 'rejected') statistics.total_rejected_orders += 1;
    else if (o.order_status === 'open' || o.order_status === 'trigger pending')
      statistics.total_open_orders += 1;
  }
  return { orders: newestFirst(orders, (o) => o.orderid).map(liveOrderRow), statistics };
}

export function liveTradebook(trades: readonly Mapped<BookTrade>[]): TradeRow[] {
  return newestFirst(trades, (t) => t.tradeid).map((t) => {
    const d = dec(t.exchange);
    const price = roundAmount(t.average_price, d);
    return {
      tradeid: t.tradeid,
      orderid: t.orderid,
      symbol: t.symbol,
      exchange: t.exchange,
      action: t.action,
      quantity: t.quantity,
      average_price: price,
      price,
      trade_value: roundAmount(t.average_price * t.quantity, d),
      product: t.product,
      strategy: t.strategy,
      timestamp: t.timestamp,
    };
  });
}

export function livePositionbook(positions: readonly Mapped<BookPosition>[]): PositionRow[] {
  return positions.map((p) => {
    const d = dec(p.exchange);
    return {
      symbol: p.symbol,
      exchange: p.exchange,
      product: p.product,
      quantity: p.quantity,
      average_price: roundAmount(p.average_price, d),
      ltp: roundAmount(p.ltp, d),
      pnl: roundAmount(p.pnl, d),
      realized_pnl: roundAmount(p.realized_pnl, d),
      unrealized_pnl: roundAmount(p.unrealized_pnl, d),
    };
  });
}

const pct = (part: number, whole: number) => (whole === 0 ? 0 : roundAmount((part / whole) * 100, 2));

/**
 * The holdings `data` and its statistics. A holding without an LTP is valued at cost (as the
 * sandbox does), so its P&L is 0 rather than −100 %.
 */
export function liveHoldings(holdings: readonly Mapped<BookHolding>[]): Holdings {
  let value = 0;
  let invested = 0;
  let gain = 0;
  const rows = holdings.map((h): HoldingRow => {
    const d = dec(h.exchange);
    const cost = h.average_price * h.quantity;
    const worth = h.ltp > 0 ? h.ltp * h.quantity : cost;
    const pnl = h.ltp > 0 ? h.pnl : 0;
    value += worth;
    invested += cost;
    gain += pnl;
    return {
      symbol: h.symbol,
      exchange: h.exchange,
      product: 'CNC',
      quantity: h.quantity,
      average_price: roundAmount(h.average_price, d),
      ltp: roundAmount(h.ltp, d),
      pnl: roundAmount(pnl, d),
      pnlpercent: pct(pnl, cost),
    };
  });
  return {
    holdings: rows,
    statistics: {
      totalholdingvalue: roundAmount(value),
      totalinvvalue: roundAmount(invested),
      totalprofitandloss: roundAmount(gain),
      totalpnlpercentage: pct(gain, invested),
    },
  };
}

export function liveFunds(f: BookFunds): Funds {
  return {
    availablecash: roundAmount(f.availablecash),
    collateral: roundAmount(f.collateral),
    m2mrealized: roundAmount(f.m2mrealized),
    m2munrealized: roundAmount(f.m2munrealized),
    utiliseddebits: roundAmount(f.utiliseddebits),
  };
}
