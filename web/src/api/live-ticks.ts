/**
 * Live prices on the desk (docs/rules/web.md#live-prices): the page's instruments are subscribed on
 * the live socket it already holds (`GET /ws`, the session's socket also speaks the live feed's
 * protocol, docs/rules/market-data.md#feed-protocol) in LTP mode, once per instrument however many
 * components ask, again after every reconnect, and released when the last one leaves. Prices reach
 * React at most every 250 ms, so a busy feed does not redraw the page on every tick. A
 * `feed_status` of `stale` for any of them shows as a badge until they tick again.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { onFeed, sendFeed } from './live';

export interface InstrumentRef {
  symbol: string;
  exchange: string;
}

interface MarketData {
  type: 'market_data';
  symbol: string;
  exchange: string;
  data: { ltp: number };
}

interface FeedStatus {
  type: 'feed_status';
  status: 'stale' | 'live';
  symbols: InstrumentRef[];
}

const keyOf = (r: InstrumentRef) => `${r.exchange}:${r.symbol}`;
/** How often ticks reach React at most. */
const PAINT_MS = 250;

/** Instruments wanted, by key, with how many components want each. */
const wanted = new Map<string, { ref: InstrumentRef; count: number }>();
const latest = new Map<string, number>();
const stale = new Set<string>();
const painters = new Set<() => void>();
let unhook: (() => void) | undefined;

function subscribe(refs: InstrumentRef[]) {
  if (refs.length > 0) sendFeed({ action: 'subscribe', symbols: refs, mode: 'LTP' });
}

function hook() {
  unhook ??= onFeed(
    (m) => {
      if (m.type === 'market_data') {
        const d = m as MarketData;
        const key = keyOf(d);
        if (!wanted.has(key) || typeof d.data?.ltp !== 'number') return;
        latest.set(key, d.data.ltp);
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
    // A new socket has no subscriptions: everything wanted is asked for again.
    () => subscribe([...wanted.values()].map((w) => w.ref)),
  );
}

function want(refs: InstrumentRef[]) {
  hook();
  const fresh: InstrumentRef[] = [];
  for (const ref of refs) {
    const w = wanted.get(keyOf(ref));
    if (w) w.count += 1;
    else {
      wanted.set(keyOf(ref), { ref, count: 1 });
      fresh.push(ref);
    }
  }
  subscribe(fresh);
}

function release(refs: InstrumentRef[]) {
  const gone: (InstrumentRef & { mode: string })[] = [];
  for (const ref of refs) {
    const key = keyOf(ref);
    const w = wanted.get(key);
    if (!w) continue;
    w.count -= 1;
    if (w.count > 0) continue;
    wanted.delete(key);
    latest.delete(key);
    stale.delete(key);
    gone.push({ ...ref, mode: 'LTP' });
  }
  if (gone.length > 0) sendFeed({ action: 'unsubscribe', symbols: gone });
}

/**
 * The live LTP of each instrument asked for (absent until its first tick) and whether any of them
 * is stale. The page must hold the live socket (`useLive`).
 */
export function useLiveTicks(refs: readonly InstrumentRef[]): {
  ltp: ReadonlyMap<string, number>;
  stale: boolean;
} {
  // The set of instruments, order-free: a re-render with the same ones subscribes nothing new.
  const signature = useMemo(() => [...new Set(refs.map(keyOf))].sort().join('|'), [refs]);
  const [snapshot, setSnapshot] = useState<{ ltp: ReadonlyMap<string, number>; stale: boolean }>({
    ltp: new Map(),
    stale: false,
  });
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => {
    if (!signature) return;
    const mine = signature.split('|').map((k) => {
      const i = k.indexOf(':');
      return { exchange: k.slice(0, i), symbol: k.slice(i + 1) };
    });
    const keys = new Set(signature.split('|'));
    const paint = () => {
      if (timer.current !== undefined) return;
      timer.current = setTimeout(() => {
        timer.current = undefined;
        setSnapshot({
          ltp: new Map([...latest].filter(([k]) => keys.has(k))),
          stale: [...stale].some((k) => keys.has(k)),
        });
      }, PAINT_MS);
    };
    painters.add(paint);
    want(mine);
    paint();
    return () => {
      painters.delete(paint);
      clearTimeout(timer.current);
      timer.current = undefined;
      release(mine);
    };
  }, [signature]);

  return snapshot;
}

/** The key a tick is kept under (`EXCHANGE:SYMBOL`). */
export const tickKey = keyOf;
