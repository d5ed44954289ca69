/**
 * What the live feed lends the rest of the service (docs/rules/market-data.md#live-cache): a
 * broker quote built from a fresh tick, so `/api/v1/quotes`, `multiquotes` and `depth` answer
 * without a broker round trip while the stream ticks; and a tick as the sandbox's quote, so a
 * resting order fills on the tick that crosses it. Only a broker stream's ticks count (the demo
 * sources are the sandbox's own prices already), and only a Depth tick carries every field a
 * quote answer holds; anything less, or older than `maxAgeMs`, and the caller asks the broker.
 */
import type { MarketQuote } from '../brokers/quotes/quote-client.js';
import type { Quote } from '../sandbox/core/types.js';
import type { FeedHub } from './feed-hub.js';
import type { Tick } from './feed.types.js';

/** A fresh tick answers a quote call for this long (the REST quote it replaces is no fresher). */
export const LIVE_QUOTE_MAX_AGE_MS = 5_000;

/** The broker quote of a fresh, complete tick of `exchange:symbol`, or undefined. */
export function liveMarketQuote(
  hub: FeedHub,
  exchange: string,
  symbol: string,
  now = Date.now(),
  maxAgeMs = LIVE_QUOTE_MAX_AGE_MS,
): MarketQuote | undefined {
  const seen = hub.latest(exchange, symbol);
  if (!seen || seen.mode < 3 || now - seen.receivedAt > maxAgeMs) return undefined;
  const t = seen.tick;
  const need = [
    t.open,
    t.high,
    t.low,
    t.close,
    t.volume,
    t.last_quantity,
    t.total_buy_quantity,
    t.total_sell_quantity,
  ];
  if (need.some((v) => v === undefined || v === null) || !t.depth) return undefined;
  const side = (levels: Tick['depth'] extends infer D ? (D extends { buy: infer L } ? L : never) : never) =>
    levels.map((l) => ({ price: l.price, quantity: l.quantity ?? 0, orders: l.orders ?? 0 }));
  return {
    open: t.open!,
    high: t.high!,
    low: t.low!,
    ltp: t.ltp,
    prevClose: t.close!,
    volume: t.volume!,
    // An absent open interest is the stream's zero (a protobuf 3 default; equities have none).
    oi: t.oi ?? 0,
    ltq: t.last_quantity!,
    totalBuyQty: t.total_buy_quantity!,
    totalSellQty: t.total_sell_quantity!,
    bids: side(t.depth.buy).slice(0, 5),
    asks: side(t.depth.sell).slice(0, 5),
    timestamp: t.timestamp,
  };
}

/** A tick as the sandbox's quote (best bid and ask from its book when it has one). */
export function tickToQuote(t: Tick): Quote {
  const bid = t.depth?.buy[0]?.price;
  const ask = t.depth?.sell[0]?.price;
  return {
    ltp: t.ltp,
    ...(bid ? { bid } : {}),
    ...(ask ? { ask } : {}),
    // A tick without the day's range (LTP mode) is ranged at its own price.
    high: t.high ?? t.ltp,
    low: t.low ?? t.ltp,
    timestamp: t.timestamp,
  };
}
