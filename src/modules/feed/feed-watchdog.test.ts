import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FeedWatchdog } from './feed-watchdog.js';
import { SourceSwitch } from './source-switch.js';
import type { FeedInstrument, FeedMode, Tick, TickListener, TickSource } from './feed.types.js';

const logger = pino({ level: 'silent' });
const SBIN: FeedInstrument = {
  symbol: 'SBIN',
  exchange: 'NSE',
  brsymbol: 'SBIN',
  brexchange: 'NSE',
  token: '779521',
};
const MCX: FeedInstrument = {
  symbol: 'GOLD',
  exchange: 'MCX',
  brsymbol: 'GOLD',
  brexchange: 'MCX',
  token: '1',
};

/** An upstream that records what it was asked and emits what the test says. */
class Upstream implements TickSource {
  readonly maxSubscriptions = 100;
  readonly subs = new Map<string, FeedMode>();
  stopped = false;
  private listener: TickListener | undefined;
  constructor(readonly name: string) {}
  subscribe(i: FeedInstrument, m: FeedMode) {
    this.subs.set(i.symbol, m);
  }
  unsubscribe(i: FeedInstrument, m: FeedMode) {
    if (this.subs.get(i.symbol) === m) this.subs.delete(i.symbol);
  }
  onTick(l: TickListener) {
    this.listener = l;
    return () => (this.listener = undefined);
  }
  emit(key: string, t: Tick) {
    this.listener?.(key, 2, t);
  }
  start() {}
  async stop() {
    this.stopped = true;
  }
}

describe('the upstream switch (docs/rules/market-data.md#feed-sources)', () => {
  it('moves every subscription to the new upstream when the choice changes, and stops the old one', () => {
    let token = 'a';
    const made: Upstream[] = [];
    const sw = new SourceSwitch({
      choose: () => ({
        key: `zerodha:${token}`,
        make: () => (made.push(new Upstream(`kite-${token}`)), made.at(-1)!),
      }),
      checkEveryMs: 60_000,
      logger,
    });
    const ticks: string[] = [];
    sw.onTick((key, _m, t) => ticks.push(`${key}@${t.ltp}`));
    sw.subscribe(SBIN, 2);
    sw.subscribe(MCX, 1);
    sw.unsubscribe(MCX, 1);
    sw.reselect();
    expect(made).toHaveLength(1); // the same choice: nothing rebuilt
    token = 'b'; // the overnight token renewed
    sw.reselect();
    expect(made).toHaveLength(2);
    expect(made[0]!.stopped).toBe(true);
    expect([...made[1]!.subs]).toEqual([['SBIN', 2]]);
    made[0]!.emit('NSE:SBIN', { ltp: 1, ltt: null, timestamp: 1 }); // the old one is no longer heard
    made[1]!.emit('NSE:SBIN', { ltp: 2, ltt: null, timestamp: 2 });
    expect(ticks).toEqual(['NSE:SBIN@2']);
    expect(sw.name).toBe('kite-b');
    sw.reselect(true); // a stalled upstream: rebuilt under the same choice
    expect(made).toHaveLength(3);
    expect([...made[2]!.subs]).toEqual([['SBIN', 2]]);
  });
});

describe('the feed watchdog (docs/rules/market-data.md#feed-watchdog)', () => {
  const world = (open = true) => {
    let now = 0;
    const events: string[] = [];
    const dog = new FeedWatchdog({
      staleMs: 30_000,
      inSession: (exchange) => open && exchange === 'NSE',
      now: () => now,
      onStall: (keys) => events.push(`stall ${keys.join(',')}`),
      onRecover: (keys) => events.push(`recover ${keys.join(',')}`),
      logger,
    });
    return { dog, events, at: (t: number) => (now = t) };
  };

  it('an instrument in session without a tick for the stale window is a stall: restarted once per window, recovered on its tick', () => {
    const { dog, events, at } = world();
    dog.watch('NSE:SBIN', 'NSE');
    dog.watch('MCX:GOLD', 'MCX'); // its market is closed: never a stall
    at(29_000);
    dog.check();
    expect(events).toEqual([]);
    at(30_000);
    dog.check();
    expect(events).toEqual(['stall NSE:SBIN']);
    expect([dog.status, dog.stalls]).toEqual(['stale', 1]);
    at(45_000);
    dog.check(); // still silent, but the last restart was 15 s ago
    expect(events).toHaveLength(1);
    at(60_000);
    dog.check();
    expect(events).toEqual(['stall NSE:SBIN', 'stall NSE:SBIN']);
    dog.tick('NSE:SBIN');
    expect(events.at(-1)).toBe('recover NSE:SBIN');
    expect([dog.status, dog.recoveries]).toEqual(['live', 1]);
  });

  it('a ticking instrument and a closed market are never stalls', () => {
    const { dog, events, at } = world(false);
    dog.watch('NSE:SBIN', 'NSE');
    at(120_000);
    dog.check();
    expect(events).toEqual([]);
    const live = world();
    live.dog.watch('NSE:SBIN', 'NSE');
    for (let t = 10_000; t <= 120_000; t += 10_000) {
      live.at(t);
      live.dog.tick('NSE:SBIN');
      live.dog.check();
    }
    expect(live.events).toEqual([]);
  });
});
