/**
 * Upstox's Market Data Feed V3 as a tick source (src/modules/feed/sources/upstox-feed.ts), against
 * a loopback stub written from Upstox's documentation (test/helpers/upstox-feed-stub.ts): the
 * authorize call, lazy connection, one binary JSON message per method and mode for the calls of one
 * turn, LTPC and full frames decoded into ticks (an equity, an index, an F&O contract with OI and
 * five levels), change_mode and unsub, a new authorization and a full resubscribe after a drop, a
 * wrong token (down, retrying, no crash), and no secret in the log.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type {
  FeedInstrument,
  FeedMode,
  SourceStatus,
  Tick,
  TickSource,
} from '../../src/modules/feed/feed.types.js';
import { UpstoxFeedSource } from '../../src/modules/feed/sources/upstox-feed.js';
import { createLogger } from '../../src/platform/logger.js';
import { captureStream } from '../helpers/test-app.js';
import {
  FEED_PATH,
  indexFullFeed,
  ltpcFeed,
  marketFullFeed,
  startUpstoxFeedStub,
  type UpstoxFeedStub,
} from '../helpers/upstox-feed-stub.js';

const TOKEN = 'upstox-access-token-7f3a9c2e51d8';
const WRONG = 'upstox-wrong-token-0b6e4d17aa93';

const SBIN: FeedInstrument = {
  symbol: 'SBIN',
  exchange: 'NSE',
  brsymbol: 'SBIN',
  brexchange: 'NSE_EQ',
  token: 'NSE_EQ|INE062A01020',
};
const RELIANCE: FeedInstrument = {
  symbol: 'RELIANCE',
  exchange: 'NSE',
  brsymbol: 'RELIANCE',
  brexchange: 'NSE_EQ',
  token: 'NSE_EQ|INE002A01018',
};
const NIFTY: FeedInstrument = {
  symbol: 'NIFTY',
  exchange: 'NSE_INDEX',
  brsymbol: 'Nifty 50',
  brexchange: 'NSE_INDEX',
  token: 'NSE_INDEX|Nifty 50',
};
const NIFTY_FUT: FeedInstrument = {
  symbol: 'NIFTY26FEB26FUT',
  exchange: 'NFO',
  brsymbol: 'NIFTY FUT 26 FEB 26',
  brexchange: 'NSE_FO',
  token: 'NSE_FO|49229',
};

const LTT = 1_770_266_698_000; // 2026-02-05 10:14:58 IST, epoch ms as Upstox sends it
const wait = { timeout: 3_000, interval: 10 };

describe('Upstox Market Data Feed V3 tick source', () => {
  let stub: UpstoxFeedStub;
  let source: UpstoxFeedSource;
  const logs = captureStream();
  const logger = createLogger('debug', logs.stream);
  const ticks: { key: string; mode: FeedMode; tick: Tick }[] = [];
  const statuses: SourceStatus[] = [];
  let skew = 0;
  const others: UpstoxFeedSource[] = [];

  const lastTick = (key: string) => [...ticks].reverse().find((t) => t.key === key);
  const sentAfter = (n: number) => stub.messages.slice(n).map((m) => ({ method: m.method, data: m.data }));

  beforeAll(async () => {
    stub = await startUpstoxFeedStub(TOKEN);
    source = new UpstoxFeedSource({
      accessToken: TOKEN,
      apiBaseUrl: stub.url,
      logger,
      backoff: { initialMs: 20, maxMs: 100, jitter: 0 },
      now: () => Date.now() + skew,
    });
    source.onTick((key, mode, tick) => ticks.push({ key, mode, tick }));
    source.onStatus((s) => statuses.push(s));
  });
  afterAll(async () => {
    await Promise.all([source, ...others].map((s) => s.stop()));
    await stub.close();
  });

  it('is a TickSource named upstox, bounded by the documented combined Full limit', () => {
    const s: TickSource = source;
    expect(s.name).toBe('upstox');
    // LTPC and Full used together: 2000 LTPC and 1500 Full keys at most; 1500 holds any mix.
    expect(s.maxSubscriptions).toBe(1500);
  });

  it('connects only once there is something to subscribe, then sends one binary message per mode for one turn', async () => {
    source.start();
    await sleep(50);
    expect(stub.authorizeCalls).toBe(0);
    expect(source.status).toBe('down');

    source.subscribe(SBIN, 1);
    source.subscribe(NIFTY, 2);
    source.subscribe(NIFTY_FUT, 3);
    await vi.waitFor(() => expect(stub.sent({ method: 'sub' })).toHaveLength(2), wait);

    expect(stub.authorizeCalls).toBe(1);
    const auth = stub.http.requests[0]!;
    expect(auth.authOk).toBe(true);
    expect(auth.headers.accept).toBe('application/json');
    expect(stub.sent({ method: 'sub', mode: 'ltpc' }).map((m) => m.data?.instrumentKeys)).toEqual([
      [SBIN.token],
    ]);
    expect(stub.sent({ method: 'sub', mode: 'full' }).map((m) => m.data?.instrumentKeys)).toEqual([
      [NIFTY.token, NIFTY_FUT.token],
    ]);
    expect(stub.messages.every((m) => m.binary)).toBe(true);
    const guids = stub.messages.map((m) => m.guid);
    expect(guids.every((g) => typeof g === 'string' && g.length > 0)).toBe(true);
    expect(new Set(guids).size).toBe(guids.length);
    expect(source.status).toBe('live');
    // The market_info frame Upstox sends on connect arrived (and made no tick).
    await vi.waitFor(() => expect(source.lastMessageAt).not.toBeNull(), wait);
    expect(ticks).toHaveLength(0);
  });

  it('decodes an LTPC frame of an equity into last price, time, quantity and previous close only', async () => {
    const at = LTT + 1_500;
    stub.send({
      type: 'live_feed',
      currentTs: at,
      feeds: { [SBIN.token]: ltpcFeed({ ltp: 812.35, ltt: LTT, ltq: 25, cp: 805.1 }) },
    });
    await vi.waitFor(() => expect(lastTick('NSE:SBIN')).toBeDefined(), wait);
    const t = lastTick('NSE:SBIN')!;
    expect(t.mode).toBe(1);
    expect(t.tick).toStrictEqual({ ltp: 812.35, ltt: LTT, timestamp: at, close: 805.1, last_quantity: 25 });
  });

  it('decodes a full frame of an F&O contract: day OHLC, volume, ATP, OI, totals and five levels', async () => {
    const at = LTT + 2_000;
    stub.send({
      type: 'initial_feed',
      currentTs: at,
      feeds: {
        [NIFTY_FUT.token]: marketFullFeed({
          ltpc: { ltp: 24_512.5, ltt: LTT, ltq: 75, cp: 24_390.25 },
          levels: [
            [1_500, 24_512.0, 750, 24_513.5],
            [2_250, 24_511.5, 1_125, 24_514.0],
            [3_000, 24_511.0, 1_500, 24_514.5],
            [3_750, 24_510.5, 1_875, 24_515.0],
            [4_500, 24_510.0, 2_250, 24_515.5],
          ],
          ohlc: [
            {
              interval: '1d',
              open: 24_400,
              high: 24_560.75,
              low: 24_380.5,
              close: 24_512.5,
              vol: 4_321_000,
              ts: LTT,
            },
            {
              interval: 'I1',
              open: 24_505,
              high: 24_514,
              low: 24_500,
              close: 24_512.5,
              vol: 12_000,
              ts: LTT,
            },
          ],
          atp: 24_471.33,
          vtt: 4_321_000,
          oi: 12_345_675,
          iv: 0.1325,
          tbq: 987_654,
          tsq: 876_543,
        }),
      },
    });
    await vi.waitFor(() => expect(lastTick('NFO:NIFTY26FEB26FUT')).toBeDefined(), wait);
    const t = lastTick('NFO:NIFTY26FEB26FUT')!;
    expect(t.mode).toBe(3);
    const level = (price: number, quantity: number) => ({ price, quantity, orders: null });
    expect(t.tick).toStrictEqual({
      ltp: 24_512.5,
      ltt: LTT,
      timestamp: at,
      close: 24_390.25,
      last_quantity: 75,
      open: 24_400,
      high: 24_560.75,
      low: 24_380.5,
      volume: 4_321_000,
      average_price: 24_471.33,
      total_buy_quantity: 987_654,
      total_sell_quantity: 876_543,
      oi: 12_345_675,
      depth: {
        buy: [
          level(24_512.0, 1_500),
          level(24_511.5, 2_250),
          level(24_511.0, 3_000),
          level(24_510.5, 3_750),
          level(24_510.0, 4_500),
        ],
        sell: [
          level(24_513.5, 750),
          level(24_514.0, 1_125),
          level(24_514.5, 1_500),
          level(24_515.0, 1_875),
          level(24_515.5, 2_250),
        ],
      },
    });
  });

  it('decodes an index full frame: OHLC and previous close, no volume, OI or book invented', async () => {
    const at = LTT + 2_500;
    stub.send({
      type: 'live_feed',
      currentTs: at,
      feeds: {
        [NIFTY.token]: indexFullFeed({
          ltpc: { ltp: 24_480.6, ltt: LTT, cp: 24_362.3 },
          ohlc: [
            { interval: '1d', open: 24_370.15, high: 24_521.9, low: 24_350.05, close: 24_480.6, ts: LTT },
          ],
        }),
      },
    });
    await vi.waitFor(() => expect(lastTick('NSE_INDEX:NIFTY')).toBeDefined(), wait);
    const t = lastTick('NSE_INDEX:NIFTY')!;
    expect(t.mode).toBe(2);
    expect(t.tick).toStrictEqual({
      ltp: 24_480.6,
      ltt: LTT,
      timestamp: at,
      close: 24_362.3,
      open: 24_370.15,
      high: 24_521.9,
      low: 24_350.05,
    });
  });

  it('ignores instruments it did not subscribe, market_info frames and a frame that does not decode', async () => {
    const before = ticks.length;
    stub.send({
      type: 'live_feed',
      currentTs: LTT,
      feeds: { 'NSE_EQ|INE467B01029': ltpcFeed({ ltp: 4_100, ltt: LTT }) },
    });
    stub.send({
      type: 'market_info',
      currentTs: LTT,
      marketInfo: { segmentStatus: { NSE_EQ: 'NORMAL_CLOSE' } },
    });
    stub.sendRaw(Uint8Array.from([0x12, 0xff, 0xff, 0xff, 0x0f, 0x01]));
    // A good frame after them still arrives: the socket survived.
    stub.send({ type: 'live_feed', currentTs: LTT + 3_000, feeds: { [SBIN.token]: ltpcFeed({ ltp: 813 }) } });
    await vi.waitFor(() => expect(ticks.length).toBe(before + 1), wait);
    expect(ticks.at(-1)).toStrictEqual({
      key: 'NSE:SBIN',
      mode: 1,
      tick: { ltp: 813, ltt: null, timestamp: LTT + 3_000 },
    });
    expect(logs.lines.some((l) => l.includes('feed: upstox frame not decoded'))).toBe(true);
    expect(source.status).toBe('live');
  });

  it('sends change_mode for a mode change, unsub for a removal, and nothing for a change within full', async () => {
    let n = stub.messages.length;
    // The hub's order: the new mode first, then the old one dropped.
    source.subscribe(SBIN, 2);
    source.unsubscribe(SBIN, 1);
    source.subscribe(NIFTY_FUT, 1);
    source.unsubscribe(NIFTY_FUT, 3);
    source.unsubscribe(NIFTY, 2);
    await vi.waitFor(() => expect(stub.messages.length).toBe(n + 3), wait);
    expect(sentAfter(n)).toEqual([
      { method: 'unsub', data: { instrumentKeys: [NIFTY.token] } },
      { method: 'change_mode', data: { mode: 'ltpc', instrumentKeys: [NIFTY_FUT.token] } },
      { method: 'change_mode', data: { mode: 'full', instrumentKeys: [SBIN.token] } },
    ]);

    n = stub.messages.length;
    source.subscribe(SBIN, 3); // Quote → Depth: full either way
    source.unsubscribe(SBIN, 2);
    source.unsubscribe(NIFTY_FUT, 3); // not the mode held: ignored
    await sleep(30);
    source.subscribe(RELIANCE, 1);
    await vi.waitFor(() => expect(stub.messages.length).toBe(n + 1), wait);
    expect(sentAfter(n)).toEqual([
      { method: 'sub', data: { mode: 'ltpc', instrumentKeys: [RELIANCE.token] } },
    ]);

    // SBIN is now held at Depth: its full frames are Depth ticks.
    stub.send({
      type: 'live_feed',
      currentTs: LTT + 4_000,
      feeds: {
        [SBIN.token]: marketFullFeed({
          ltpc: { ltp: 814.2, ltt: LTT, ltq: 10, cp: 805.1 },
          levels: [[120, 814.15, 0, 0]],
          vtt: 1_234_567,
        }),
      },
    });
    await vi.waitFor(() => expect(lastTick('NSE:SBIN')?.tick.ltp).toBe(814.2), wait);
    const t = lastTick('NSE:SBIN')!;
    expect(t.mode).toBe(3);
    // A level whose ask is zero (this encoder writes the zeros) is no sell row, not a row of zeros.
    expect(t.tick.depth).toStrictEqual({ buy: [{ price: 814.15, quantity: 120, orders: null }], sell: [] });
    expect(t.tick.oi).toBeUndefined();
    expect(t.tick.volume).toBe(1_234_567);
  });

  it('is stale when an open socket has been quiet past staleAfterMs', () => {
    expect(source.status).toBe('live');
    skew = 61_000;
    expect(source.status).toBe('stale');
    skew = 0;
    expect(source.status).toBe('live');
  });

  it('after a drop, authorizes again with a fresh code and subscribes everything again', async () => {
    const calls = stub.authorizeCalls;
    statuses.length = 0;
    stub.drop();
    await vi.waitFor(() => expect(stub.sent({ connection: 1 })).toHaveLength(2), wait);
    expect(stub.authorizeCalls).toBe(calls + 1);
    expect(stub.refusedUpgrades).toBe(0);
    expect(new Set(stub.issuedCodes).size).toBe(stub.issuedCodes.length);
    const again = stub.sent({ connection: 1 }).map((m) => ({ method: m.method, data: m.data }));
    expect(again).toEqual([
      { method: 'sub', data: { mode: 'ltpc', instrumentKeys: [NIFTY_FUT.token, RELIANCE.token] } },
      { method: 'sub', data: { mode: 'full', instrumentKeys: [SBIN.token] } },
    ]);
    expect(statuses).toEqual(['down', 'live']);
    expect(source.status).toBe('live');

    stub.send({
      type: 'live_feed',
      currentTs: LTT + 9_000,
      feeds: { [RELIANCE.token]: ltpcFeed({ ltp: 1_402.8, ltt: LTT, ltq: 3, cp: 1_398 }) },
    });
    await vi.waitFor(() => expect(lastTick('NSE:RELIANCE')?.tick.ltp).toBe(1_402.8), wait);
  });

  it('with a wrong token stays down and retries without crashing, and connects once the token is right', async () => {
    let token = WRONG;
    const calls = stub.authorizeCalls;
    const accepted = stub.accepted;
    const other = new UpstoxFeedSource({
      accessToken: () => token,
      apiBaseUrl: stub.url,
      logger,
      backoff: { initialMs: 20, maxMs: 60, jitter: 0 },
    });
    others.push(other);
    other.start();
    other.subscribe(SBIN, 1);
    await vi.waitFor(() => expect(stub.authorizeCalls).toBeGreaterThanOrEqual(calls + 3), wait);
    expect(other.status).toBe('down');
    expect(stub.accepted).toBe(accepted);
    const refusal = logs.lines.find((l) => l.includes('feed: upstox connection failed'));
    expect(refusal).toBeDefined();
    expect(JSON.parse(refusal!)).toMatchObject({
      status: 401,
      error: expect.stringContaining('UDAPI100050'),
    });

    // The token is read again at each attempt: a renewed session connects.
    token = TOKEN;
    await vi.waitFor(() => expect(other.status).toBe('live'), wait);
    await vi.waitFor(() => expect(stub.accepted).toBe(accepted + 1), wait);
    await other.stop();
    expect(other.status).toBe('down');
  });

  it('stop() closes the socket and does not reconnect', async () => {
    const calls = stub.authorizeCalls;
    const accepted = stub.accepted;
    await source.stop();
    expect(source.status).toBe('down');
    await vi.waitFor(() => expect(stub.openConnections).toBe(0), wait);
    await sleep(150);
    expect(stub.authorizeCalls).toBe(calls);
    expect(stub.accepted).toBe(accepted);
  });

  it('never logs the access token or the authorized URL’s query', () => {
    const all = logs.lines.join('');
    expect(all).toContain('feed: upstox connected');
    expect(all).toContain(FEED_PATH); // where it connected, without the query
    for (const secret of [TOKEN, WRONG, ...stub.issuedCodes]) expect(all).not.toContain(secret);
    expect(all).not.toContain('code=');
    expect(all).not.toContain('requestId');
  });
});
