import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FeedConnection, FEED_CLOSE, type FeedConnectionLimits, type FeedSocket } from './feed-connection.js';
import { FeedHub } from './feed-hub.js';
import type { FeedInstrument, FeedMode, Tick, TickListener, TickSource } from './feed.types.js';

/** A socket whose send buffer the test sets; records what was sent and how it closed. */
class FakeSocket implements FeedSocket {
  readyState = 1;
  bufferedAmount = 0;
  sent: Record<string, unknown>[] = [];
  closedWith: [number | undefined, string | undefined] | undefined;
  pings = 0;
  send(data: string) {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }
  close(code?: number, reason?: string) {
    this.closedWith = [code, reason];
    this.readyState = 3;
  }
  terminate() {
    this.closedWith = [undefined, 'terminated'];
    this.readyState = 3;
  }
  ping() {
    this.pings++;
  }
}

/** A source the test drives: it records subscriptions and emits what the test says. */
class FakeSource implements TickSource {
  readonly name = 'stub';
  readonly maxSubscriptions = 2;
  readonly calls: string[] = [];
  private listener: TickListener | undefined;
  subscribe(i: FeedInstrument, m: FeedMode) {
    this.calls.push(`+${i.symbol}/${m}`);
  }
  unsubscribe(i: FeedInstrument, m: FeedMode) {
    this.calls.push(`-${i.symbol}/${m}`);
  }
  onTick(l: TickListener) {
    this.listener = l;
    return () => (this.listener = undefined);
  }
  emit(symbol: string, mode: FeedMode, tick: Tick) {
    this.listener?.(`NSE:${symbol}`, mode, tick);
  }
  start() {}
  async stop() {}
}

const LIMITS: FeedConnectionLimits = {
  authTimeoutMs: 15_000,
  messagesPerSecond: 5,
  highWaterBytes: 1000,
  slowCloseMs: 30_000,
};
const inst = (symbol: string): FeedInstrument => ({
  symbol,
  exchange: 'NSE',
  brsymbol: symbol,
  brexchange: 'NSE',
  token: '1',
});
const tick = (ltp: number, at: number): Tick => ({ ltp, ltt: at, timestamp: at });

describe('a feed connection (docs/rules/market-data.md#feed-protocol)', () => {
  let now = 0;
  let source: FakeSource;
  let hub: FeedHub;
  const open = (limits = LIMITS) => {
    const socket = new FakeSocket();
    const conn = new FeedConnection(socket, '198.51.100.7', {
      hub,
      authenticate: async (key) => (key === 'good' ? { userId: 3 } : undefined),
      supportedBrokers: () => ['stub'],
      now: () => now,
      limits,
    });
    return { socket, conn };
  };
  const settle = () => vi.advanceTimersByTimeAsync(0);

  beforeEach(() => {
    vi.useFakeTimers();
    now = 1_000_000;
    source = new FakeSource();
    hub = new FeedHub({
      source,
      lookup: (s) => (['SBIN', 'TCS', 'INFY'].includes(s) ? inst(s) : undefined),
      maxPerSocket: 3,
    });
    hub.start();
  });
  afterEach(() => vi.useRealTimers());

  it('closes with 4401 "auth timeout" 15 s after opening without authenticating', async () => {
    const { socket } = open();
    await vi.advanceTimersByTimeAsync(14_999);
    expect(socket.closedWith).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(socket.closedWith).toEqual([FEED_CLOSE.authTimeout, 'auth timeout']);
  });

  it('an authenticated socket is not timed out', async () => {
    const { socket, conn } = open();
    conn.onMessage(JSON.stringify({ action: 'authenticate', api_key: 'good' }));
    await settle();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(socket.closedWith).toBeUndefined();
    expect(socket.sent[0]).toMatchObject({ type: 'auth', status: 'success', user_id: 3 });
  });

  it('a flood is refused with RATE_LIMITED once a second, and closed with 1008 after ten seconds of it', async () => {
    const { socket, conn } = open();
    for (let i = 0; i < 8; i++) conn.onMessage('{"action":"ping"}');
    await settle();
    expect(socket.sent.filter((m) => m.type === 'pong')).toHaveLength(5);
    expect(socket.sent.filter((m) => m.code === 'RATE_LIMITED')).toHaveLength(1);
    for (let s = 1; s <= 11 && !socket.closedWith; s++) {
      now += 1000;
      for (let i = 0; i < 8; i++) conn.onMessage('{"action":"ping"}');
    }
    expect(socket.closedWith).toEqual([FEED_CLOSE.policy, 'message rate limit']);
  });

  it('the source is subscribed once per instrument at the highest mode asked, and released with the last', async () => {
    const a = open();
    const b = open();
    for (const c of [a, b]) c.conn.onMessage(JSON.stringify({ action: 'authenticate', api_key: 'good' }));
    await settle();
    a.conn.onMessage(
      JSON.stringify({ action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }], mode: 1 }),
    );
    await settle();
    b.conn.onMessage(
      JSON.stringify({ action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }], mode: 3 }),
    );
    await settle();
    expect(source.calls).toEqual(['+SBIN/1', '+SBIN/3', '-SBIN/1']);
    // A Depth tick reaches the LTP subscriber too, in its own mode's shape.
    source.emit('SBIN', 3, { ...tick(801, now), depth: { buy: [], sell: [] } });
    expect(a.socket.sent.at(-1)).toMatchObject({
      type: 'market_data',
      mode: 1,
      data: { ltp: 801, ltt: now, timestamp: now },
    });
    expect(b.socket.sent.at(-1)).toMatchObject({
      type: 'market_data',
      mode: 3,
      data: { depth: { buy: [], sell: [] } },
    });
    b.conn.onClose();
    expect(source.calls.slice(3)).toEqual(['+SBIN/1', '-SBIN/3']);
    a.conn.onMessage(JSON.stringify({ action: 'unsubscribe_all' }));
    await settle();
    expect(source.calls.slice(5)).toEqual(['-SBIN/1']);
    expect(hub.upstreamCount).toBe(0);
  });

  it('past the source limit or the per-socket limit, the entry is refused with a reason; the others succeed', async () => {
    const { socket, conn } = open();
    conn.onMessage(JSON.stringify({ action: 'authenticate', api_key: 'good' }));
    await settle();
    const symbols = ['SBIN', 'TCS', 'INFY'].map((symbol) => ({ symbol, exchange: 'NSE' }));
    conn.onMessage(JSON.stringify({ action: 'subscribe', symbols, mode: 2 }));
    await settle();
    const ack = socket.sent.at(-1) as {
      status: string;
      subscriptions: { status: string; message?: string }[];
    };
    expect(ack.status).toBe('partial');
    expect(ack.subscriptions.map((s) => s.status)).toEqual(['success', 'success', 'error']);
    expect(ack.subscriptions[2]!.message).toMatch(/stub feed takes at most 2 instruments/);
    conn.onMessage(JSON.stringify({ action: 'subscribe', symbols: symbols.slice(0, 2), mode: 1 }));
    await settle();
    const second = socket.sent.at(-1) as { subscriptions: { status: string; message?: string }[] };
    expect(second.subscriptions.map((s) => s.status)).toEqual(['success', 'error']);
    expect(second.subscriptions[1]!.message).toMatch(/most subscriptions allowed \(3\)/);
  });

  it('a slow reader gets only the newest tick per instrument while its buffer is full, and is closed after 30 s', async () => {
    const { socket, conn } = open();
    conn.onMessage(JSON.stringify({ action: 'authenticate', api_key: 'good' }));
    await settle();
    conn.onMessage(
      JSON.stringify({
        action: 'subscribe',
        symbols: [
          { symbol: 'SBIN', exchange: 'NSE' },
          { symbol: 'TCS', exchange: 'NSE' },
        ],
        mode: 1,
      }),
    );
    await settle();
    const before = socket.sent.length;
    socket.bufferedAmount = 5000;
    for (let i = 1; i <= 100; i++) {
      source.emit('SBIN', 1, tick(800 + i, now + i));
      source.emit('TCS', 1, tick(3000 + i, now + i));
    }
    expect(socket.sent.length).toBe(before);
    socket.bufferedAmount = 0;
    await vi.advanceTimersByTimeAsync(50);
    const delivered = socket.sent.slice(before).map((m) => [m.symbol, (m.data as { ltp: number }).ltp]);
    expect(delivered).toEqual([
      ['SBIN', 900],
      ['TCS', 3100],
    ]);
    socket.bufferedAmount = 5000;
    source.emit('SBIN', 1, tick(901, now + 200));
    now += 30_000;
    await vi.advanceTimersByTimeAsync(50);
    expect(socket.closedWith).toEqual([FEED_CLOSE.tooSlow, 'too slow: could not keep up with the feed']);
  });

  it('the keep-alive drops a socket that did not answer the previous ping', () => {
    const { socket, conn } = open();
    conn.keepAlive();
    expect(socket.pings).toBe(1);
    conn.alive = true; // the pong
    conn.keepAlive();
    expect(socket.pings).toBe(2);
    conn.keepAlive(); // no pong since
    expect(socket.closedWith).toEqual([undefined, 'terminated']);
  });
});
