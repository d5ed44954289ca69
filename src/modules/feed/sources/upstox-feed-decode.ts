/**
 * Upstox Market Data Feed V3 frames as ticks (docs/rules/market-data.md#feed-sources): a server
 * frame decoded as the protobuf `FeedResponse` of ./upstox-feed-v3-proto.ts, and one instrument's
 * feed in it mapped to our {@link Tick}. Pure (no socket, no clock, no logger), apart from the
 * connection in ./upstox-feed.ts, so the wire format can be read, and changed with Upstox's file,
 * without the authorize and reconnect logic around it.
 *
 * An `ltpc` feed is an LTP tick; a `fullFeed` is a Quote or a Depth tick as subscribed (five
 * levels of the book for a tradable instrument; an index has none). A field the frame does not
 * carry stays unset (protobuf 3 omits zeros, so a true 0 reads as "not given", never the reverse).
 */
import protobuf from 'protobufjs';
import type { DepthLevel, FeedMode, Tick } from '../feed.types.js';
import { UPSTOX_FEED_V3_PACKAGE, UPSTOX_FEED_V3_PROTO } from './upstox-feed-v3-proto.js';

/** `FeedResponse` as decoded (int64 as numbers, enums as names, absent fields absent). */
interface LtpcMsg {
  ltp?: number;
  ltt?: number;
  ltq?: number;
  cp?: number;
}
interface QuoteMsg {
  bidQ?: number;
  bidP?: number;
  askQ?: number;
  askP?: number;
}
interface OhlcMsg {
  interval?: string;
  open?: number;
  high?: number;
  low?: number;
  close?: number;
}
interface MarketFullMsg {
  ltpc?: LtpcMsg;
  marketLevel?: { bidAskQuote?: QuoteMsg[] };
  marketOHLC?: { ohlc?: OhlcMsg[] };
  atp?: number;
  vtt?: number;
  oi?: number;
  tbq?: number;
  tsq?: number;
}
interface IndexFullMsg {
  ltpc?: LtpcMsg;
  marketOHLC?: { ohlc?: OhlcMsg[] };
}
export interface UpstoxFeed {
  ltpc?: LtpcMsg;
  fullFeed?: { marketFF?: MarketFullMsg; indexFF?: IndexFullMsg };
  firstLevelWithGreeks?: { ltpc?: LtpcMsg };
}
export interface UpstoxFeedResponse {
  type?: 'initial_feed' | 'live_feed' | 'market_info';
  feeds?: Record<string, UpstoxFeed>;
  currentTs?: number;
  marketInfo?: { segmentStatus?: Record<string, string> };
}

let feedResponseType: protobuf.Type | undefined;

/** Decodes one server frame (throws on a frame that is not a `FeedResponse`). */
export function decodeFeedResponse(frame: Uint8Array): UpstoxFeedResponse {
  feedResponseType ??= protobuf
    .parse(UPSTOX_FEED_V3_PROTO, { keepCase: true })
    .root.lookupType(`${UPSTOX_FEED_V3_PACKAGE}.FeedResponse`);
  const message = feedResponseType.decode(frame);
  return feedResponseType.toObject(message, {
    longs: Number,
    enums: String,
    defaults: false,
  }) as UpstoxFeedResponse;
}

/**
 * One instrument's feed as a tick and the mode it carries (undefined without a last price).
 * `subscribed` is the mode we hold for it: a full frame is a Quote or a Depth tick as asked
 * (an index's full frame has no book).
 */
export function feedToTick(
  feed: UpstoxFeed,
  timestamp: number,
  subscribed: FeedMode | undefined,
): { mode: FeedMode; tick: Tick } | undefined {
  const market = feed.fullFeed?.marketFF;
  const index = feed.fullFeed?.indexFF;
  const ltpc = market?.ltpc ?? index?.ltpc ?? feed.ltpc ?? feed.firstLevelWithGreeks?.ltpc;
  const ltp = price(ltpc?.ltp);
  if (ltp === undefined) return undefined;
  const tick: Tick = { ltp, ltt: ltpc?.ltt || null, timestamp };
  set(tick, 'close', price(ltpc?.cp));
  set(tick, 'last_quantity', ltpc?.ltq);
  if (!market && !index) return { mode: 1, tick };

  const day = (market ?? index)!.marketOHLC?.ohlc?.find((c) => c.interval === '1d');
  set(tick, 'open', price(day?.open));
  set(tick, 'high', price(day?.high));
  set(tick, 'low', price(day?.low));
  if (market) {
    set(tick, 'volume', market.vtt);
    set(tick, 'average_price', price(market.atp));
    set(tick, 'total_buy_quantity', market.tbq);
    set(tick, 'total_sell_quantity', market.tsq);
    set(tick, 'oi', market.oi);
    const buy: DepthLevel[] = [];
    const sell: DepthLevel[] = [];
    // Upstox sends no order counts; a row without a price is an empty one (the side ends there).
    for (const q of market.marketLevel?.bidAskQuote ?? []) {
      const bid = price(q.bidP);
      const ask = price(q.askP);
      if (bid !== undefined) buy.push({ price: bid, quantity: q.bidQ ?? null, orders: null });
      if (ask !== undefined) sell.push({ price: ask, quantity: q.askQ ?? null, orders: null });
    }
    tick.depth = { buy, sell };
  }
  const mode: FeedMode = subscribed === 2 || subscribed === 3 ? subscribed : market ? 3 : 2;
  return { mode, tick };
}

/**
 * A price as given: protobuf 3 leaves a zero off the wire, and an encoder that writes one anyway
 * means "none" too (no instrument trades at 0), so 0 is absent. Quantities keep a 0 they are given.
 */
const price = (v: number | undefined): number | undefined => (v ? v : undefined);

function set<K extends keyof Tick>(tick: Tick, key: K, value: Tick[K] | undefined): void {
  if (value !== undefined) tick[key] = value;
}
