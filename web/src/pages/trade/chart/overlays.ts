/**
 * What the chart draws of the user's own trading on one instrument, from the desk's books
 * (docs/rules/web.md#desk-books): each fill as a marker on its candle, each working order as a
 * dashed line at its price, the open position's average price as a line. Pure: the chart turns
 * these into markers and price lines, and the page lists them in words for screen readers.
 */
import type { paths } from '../../../api/openapi.js';
import { formatCount, formatPrice } from '../../../format-number.js';
import { istTime } from '../../../ist-time.js';
import { bookInstant, bucketStart, type HistoryInterval } from '../../../features/market/candles.js';

// The desk's answers are the API's (docs/rules/web.md#desk-calls), read from the generated types
// directly so the unit test can load this file without the console's API client.
type Book<P extends '/api/v1/tradebook' | '/api/v1/orderbook' | '/api/v1/positionbook'> =
  paths[P]['post']['responses'][200]['content']['application/json']['data'];
type Trade = Book<'/api/v1/tradebook'>[number];
type Order = Book<'/api/v1/orderbook'>['orders'][number];
type Position = Book<'/api/v1/positionbook'>[number];

export interface TradeMark {
  /** The start of the candle the fill falls in, epoch seconds. */
  time: number;
  side: 'BUY' | 'SELL';
  /** On the chart: quantity@price. */
  text: string;
  /** In words, for the list beside the chart. */
  description: string;
}

export interface PriceMark {
  /** A stable key: the order id, or the position's product. */
  key: string;
  kind: 'BUY' | 'SELL' | 'avg';
  price: number;
  /** On the price axis: "BUY 10 LMT", "Avg 812.35 (+10)". */
  title: string;
  description: string;
}

const PRICE_TYPE: Record<Order['pricetype'], string> = {
  MARKET: 'MKT',
  LIMIT: 'LMT',
  SL: 'SL',
  'SL-M': 'SL-M',
};
const WORKING = new Set<Order['order_status']>(['open', 'trigger pending']);

const mine = (r: { symbol: string; exchange: string }, symbol: string, exchange: string) =>
  r.symbol === symbol && r.exchange === exchange;

/**
 * The instrument's fills as markers, oldest first (the chart wants them in time order), each on
 * the candle of the chart's interval it falls in; a fill before `from` (older than the candles
 * drawn) or with a timestamp that reads as no time is left out.
 */
export function tradeMarks(
  trades: readonly Trade[],
  o: {
    symbol: string;
    exchange: string;
    interval: HistoryInterval;
    anchor?: number;
    from?: number;
    nowMs: number;
  },
): TradeMark[] {
  const out: TradeMark[] = [];
  for (const t of trades) {
    if (!mine(t, o.symbol, o.exchange)) continue;
    const at = bookInstant(t.timestamp, o.nowMs);
    if (at === undefined) continue;
    const time = bucketStart(at, o.interval, o.anchor);
    if (o.from !== undefined && time < o.from) continue;
    const price = t.average_price > 0 ? t.average_price : t.price;
    out.push({
      time,
      side: t.action,
      text: `${formatCount(t.quantity)}@${formatPrice(price)}`,
      description: `${t.action === 'BUY' ? 'Bought' : 'Sold'} ${formatCount(t.quantity)} at ${formatPrice(price)}, ${istTime(at * 1000)} IST`,
    });
  }
  return out.sort((a, b) => a.time - b.time);
}

/**
 * The instrument's working orders (`open`, `trigger pending`) as lines at the price they wait for
 * (a stop's trigger), labelled with side, the quantity still to fill and the price type; and its
 * open positions' average prices (net quantity not 0), the product named when there are several.
 */
export function priceMarks(
  orders: readonly Order[],
  positions: readonly Position[],
  o: { symbol: string; exchange: string },
): PriceMark[] {
  const out: PriceMark[] = [];
  for (const r of orders) {
    if (!mine(r, o.symbol, o.exchange) || !WORKING.has(r.order_status)) continue;
    const stop = r.pricetype === 'SL' || r.pricetype === 'SL-M';
    const price = stop ? r.trigger_price : r.price;
    if (!(price > 0)) continue;
    const qty = r.pending_quantity > 0 ? r.pending_quantity : r.quantity;
    const title = `${r.action} ${formatCount(qty)} ${PRICE_TYPE[r.pricetype]}`;
    out.push({
      key: `order:${r.orderid}`,
      kind: r.action,
      price,
      title,
      description: `Working order ${r.orderid}: ${title} at ${stop ? 'trigger ' : ''}${formatPrice(price)}`,
    });
  }
  const open = positions.filter(
    (p) => mine(p, o.symbol, o.exchange) && p.quantity !== 0 && p.average_price > 0,
  );
  for (const p of open) {
    const qty = `${p.quantity > 0 ? '+' : ''}${formatCount(p.quantity)}`;
    const title = `Avg ${formatPrice(p.average_price)} (${qty}${open.length > 1 ? ` ${p.product}` : ''})`;
    out.push({
      key: `position:${p.product}`,
      kind: 'avg',
      price: p.average_price,
      title,
      description: `Open position ${p.product}: ${qty} at an average of ${formatPrice(p.average_price)}`,
    });
  }
  return out;
}
