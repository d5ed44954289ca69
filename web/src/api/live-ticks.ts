/**
 * Live prices on the desk (docs/rules/web.md#live-prices): the page's instruments are subscribed on
 * the live socket it already holds (`GET /ws`, the session's socket also speaks the live feed's
 * protocol, docs/rules/market-data.md#feed-protocol), once per instrument however many components
 * ask, at the highest mode any of them asks (LTP by default; Quote adds the day's change, OHLC, volume and OI, Depth the
 * book's five levels), again after every reconnect, lowered when the last component asking for the
 * higher mode leaves and released when the last one leaves. Prices reach React at most every
 * 250 ms, so a busy feed does not redraw the page on every tick. A `feed_status` of `stale` for any
 * of them shows as a badge until they tick again.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { onFeed, sendFeed } from './live';

export interface InstrumentRef {
  symbol: string;
  exchange: string;
}

/** What a caller asks the feed for: the price only, the quote, or the quote and the book's top. */
export type TickMode = 'LTP' | 'Quote' | 'Depth';

/**
 * The newest prices of one instrument. `change`/`change_percent` (from the previous close) come
 * with Quote and Depth, `bid`/`ask` (the book's best) with Depth. `null` is a value the feed did
 * not have (shown as a dash, never 0); a field the mode does not carry is absent.
 */
export interface LiveQuote {
  ltp: number;
  /** When the tick was taken (epoch ms; absent when the message did not say). */
  timestamp?: number;
  bid?: number | null;
  ask?: number | null;
  change?: number | null;
  change_percent?: number | null;
  /** The day's open, high, low, the previous close, the day's volume and open interest (Quote and Depth). */
  open?: number | null;
  high?: number | null;
  low?: number | null;
  close?: number | null;
  volume?: number | null;
  oi?: number | null;
  /** The quantities bid and offered over the whole book (Quote and Depth). */
  total_buy_quantity?: number | null;
  total_sell_quantity?: number | null;
  /** The book's levels, best first, as the feed streams them (Depth). */
  depth?: { buy: DepthLevel[]; sell: DepthLevel[] };
}

/** One level of the book: `quantity`/`orders` are null when the source does not know them. */
export interface DepthLevel {
  price: number | null;
  quantity: number | null;
  orders: number | null;
}

interface MarketData {
  type: 'market_data';
  symbol: string;
  exchange: string;
  /** The subscription's mode this message is shaped for: 1 LTP, 2 Quote, 3 Depth. */
  mode?: number;
  data: {
    ltp: number;
    timestamp?: number;
    change?: number | null;
    change_percent?: number | null;
    open?: number | null;
    high?: number | null;
    low?: number | null;
    close?: number | null;
    volume?: number | null;
    oi?: number | null;
    total_buy_quantity?: number | null;
    total_sell_quantity?: number | null;
    depth?: { buy?: Partial<DepthLevel>[]; sell?: Partial<DepthLevel>[] };
  };
}

interface FeedStatus {
  type: 'feed_status';
  status: 'stale' | 'live';
  symbols: InstrumentRef[];
}

const keyOf = (r: InstrumentRef) => `${r.exchange}:${r.symbol}`;
/** How often ticks reach React at most. */
const PAINT_MS = 250;
/** The protocol's modes, lowest first (index + 1 is the mode's number). */
const MODES: readonly TickMode[] = ['LTP', 'Quote', 'Depth'];
const rank = (m: TickMode) => MODES.indexOf(m) + 1;
/** Levels of the book a Depth subscription asks for: the five every Indian exchange's feed carries. */
const DEPTH_LEVELS = 5;

/**
 * Instruments wanted, by key: how many components want each mode, and the one mode the socket is
 * subscribed at (the highest with a count).
 */
const wanted = new Map<string, { ref: InstrumentRef; counts: [number, number, number]; mode: number }>();
const latest = new Map<string, LiveQuote>();
const stale = new Set<string>();
const painters = new Set<() => void>();
let unhook: (() => void) | undefined;

const topMode = (counts: readonly number[]) => {
  for (let i = counts.length - 1; i >= 0; i--) if (counts[i]! > 0) return i + 1;
  return 0;
};

function subscribe(refs: InstrumentRef[], mode: number) {
  if (refs.length === 0) return;
  const name = MODES[mode - 1]!;
  sendFeed({
    action: 'subscribe',
    symbols: refs,
    mode: name,
    ...(name === 'Depth' ? { depth: DEPTH_LEVELS } : {}),
  });
}

function unsubscribe(gone: (InstrumentRef & { mode: number })[]) {
  if (gone.length === 0) return;
  sendFeed({
    action: 'unsubscribe',
    symbols: gone.map((g) => ({ symbol: g.symbol, exchange: g.exchange, mode: MODES[g.mode - 1]! })),
  });
}

/** Sends the subscribes grouped by mode (one message each). */
function subscribeAll(list: { ref: InstrumentRef; mode: number }[]) {
  for (let mode = 1; mode <= MODES.length; mode++)
    subscribe(
      list.filter((w) => w.mode === mode).map((w) => w.ref),
      mode,
    );
}

/** The best price of one side of the book: null when the side is empty or the feed had none. */
const best = (side: Partial<DepthLevel>[] | undefined): number | null => {
  const p = side?.[0]?.price;
  return typeof p === 'number' ? p : null;
};
const orNull = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const QUOTE_FIELDS = [
  'open',
  'high',
  'low',
  'close',
  'volume',
  'oi',
  'total_buy_quantity',
  'total_sell_quantity',
] as const;
const levels = (side: Partial<DepthLevel>[] | undefined): DepthLevel[] =>
  (side ?? []).map((l) => ({
    price: orNull(l.price),
    quantity: orNull(l.quantity),
    orders: orNull(l.orders),
  }));

/** The prices a `market_data` message carries, by its shape. */
function quoteOf(d: MarketData): LiveQuote {
  const q: LiveQuote = { ltp: d.data.ltp };
  if (typeof d.data.timestamp === 'number') q.timestamp = d.data.timestamp;
  const mode = d.mode ?? 1;
  if (mode >= 2) {
    q.change = orNull(d.data.change);
    q.change_percent = orNull(d.data.change_percent);
    for (const f of QUOTE_FIELDS) q[f] = orNull(d.data[f]);
  }
  if (mode >= 3) {
    q.bid = best(d.data.depth?.buy);
    q.ask = best(d.data.depth?.sell);
    q.depth = { buy: levels(d.data.depth?.buy), sell: levels(d.data.depth?.sell) };
  }
  return q;
}

function hook() {
  unhook ??= onFeed(
    (m) => {
      if (m.type === 'market_data') {
        const d = m as MarketData;
        const key = keyOf(d);
        const w = wanted.get(key);
        if (!w || typeof d.data?.ltp !== 'number') return;
        // While a subscription moves to a higher mode the lower one may still tick: its shape lacks
        // what the higher mode's callers show, so only the subscribed mode's (or a higher) counts.
        if ((d.mode ?? 1) < w.mode) return;
        latest.set(key, quoteOf(d));
        stale.delete(key);
        for (const p of painters) p();
      } else if (m.type === 'feed_status') {
        const s = m as FeedStatus;
        for (const r of s.symbols ?? []) {
          if (s.status === 'stale') stale.add(keyOf(r));
          else stale.delete(keyOf(r));
        }
        for (const p of painters) p();
      }
    },
    // A new socket has no subscriptions: everything wanted is asked for again, at its mode.
    () => subscribeAll([...wanted.values()]),
  );
}

function want(refs: InstrumentRef[], mode: number) {
  hook();
  const fresh: InstrumentRef[] = [];
  const raised: { ref: InstrumentRef; mode: number }[] = [];
  const lowered: (InstrumentRef & { mode: number })[] = [];
  for (const ref of refs) {
    const key = keyOf(ref);
    const w = wanted.get(key);
    if (!w) {
      const counts: [number, number, number] = [0, 0, 0];
      counts[mode - 1] = 1;
      wanted.set(key, { ref, counts, mode });
      fresh.push(ref);
      continue;
    }
    w.counts[mode - 1]! += 1;
    if (mode > w.mode) {
      // The higher mode first, so no tick is missed in between; then the lower one goes.
      raised.push({ ref, mode });
      lowered.push({ ...ref, mode: w.mode });
      w.mode = mode;
    }
  }
  subscribe(fresh, mode);
  subscribeAll(raised);
  unsubscribe(lowered);
}

function release(refs: InstrumentRef[], mode: number) {
  const gone: (InstrumentRef & { mode: number })[] = [];
  const lowered: { ref: InstrumentRef; mode: number }[] = [];
  for (const ref of refs) {
    const key = keyOf(ref);
    const w = wanted.get(key);
    if (!w || w.counts[mode - 1]! === 0) continue;
    w.counts[mode - 1]! -= 1;
    const top = topMode(w.counts);
    if (top === 0) {
      wanted.delete(key);
      latest.delete(key);
      stale.delete(key);
      gone.push({ ...ref, mode: w.mode });
    } else if (top < w.mode) {
      // Down to the highest mode still asked for: subscribed at it first, the higher one let go.
      lowered.push({ ref, mode: top });
      gone.push({ ...ref, mode: w.mode });
      w.mode = top;
    }
  }
  subscribeAll(lowered);
  unsubscribe(gone);
}

/** What {@link useLiveTicks} gives: the prices of the instruments asked for, and their staleness. */
export interface LiveTicks {
  /** Each instrument's LTP, by `EXCHANGE:SYMBOL` (absent until its first tick). */
  ltp: ReadonlyMap<string, number>;
  /** Each instrument's prices, by `EXCHANGE:SYMBOL` (absent until its first tick). */
  quotes: ReadonlyMap<string, LiveQuote>;
  /** The server says the feed is stale for one of them. */
  stale: boolean;
}

/**
 * The live prices of each instrument asked for (absent until its first tick), in `mode` (LTP by
 * default: the price only; Quote adds the day's change, Depth the best bid and ask too), and
 * whether any of them is stale. The page must hold the live socket (`useLive`).
 */
export function useLiveTicks(refs: readonly InstrumentRef[], mode: TickMode = 'LTP'): LiveTicks {
  // The set of instruments, order-free: a re-render with the same ones subscribes nothing new.
  const signature = useMemo(() => [...new Set(refs.map(keyOf))].sort().join('|'), [refs]);
  const [snapshot, setSnapshot] = useState<LiveTicks>({ ltp: new Map(), quotes: new Map(), stale: false });
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => {
    if (!signature) return;
    const level = rank(mode);
    const mine = signature.split('|').map((k) => {
      const i = k.indexOf(':');
      return { exchange: k.slice(0, i), symbol: k.slice(i + 1) };
    });
    const keys = new Set(signature.split('|'));
    const paint = () => {
      if (timer.current !== undefined) return;
      timer.current = setTimeout(() => {
        timer.current = undefined;
        const quotes = new Map([...latest].filter(([k]) => keys.has(k)));
        setSnapshot({
          ltp: new Map([...quotes].map(([k, q]) => [k, q.ltp])),
          quotes,
          stale: [...stale].some((k) => keys.has(k)),
        });
      }, PAINT_MS);
    };
    painters.add(paint);
    want(mine, level);
    paint();
    return () => {
      painters.delete(paint);
      clearTimeout(timer.current);
      timer.current = undefined;
      release(mine, level);
    };
  }, [signature, mode]);

  return snapshot;
}

/** The key a tick is kept under (`EXCHANGE:SYMBOL`). */
export const tickKey = keyOf;
