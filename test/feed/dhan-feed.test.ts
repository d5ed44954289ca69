/**
 * Dhan's Live Market Feed as a tick source (src/modules/feed/sources/dhan-feed.ts) against a
 * loopback stub that speaks DhanHQ v2's documented protocol (test/helpers/dhan-feed-stub.ts,
 * dhanhq.co/docs/v2/live-market-feed): request batching, the ticker, quote, OI, prev close and full
 * packets for real rows of Dhan's scrip master, unsubscribing and re-moding, reconnecting, Feed
 * Disconnect, refused credentials, and what reaches the log. Each packet's fields are what the wire
 * carries (float32 rupees, epoch seconds); the ticks expected are written out here.
 */
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FeedInstrument, FeedMode, Tick } from '../../src/modules/feed/feed.types.js';
import { DhanFeedSource, type DhanFeedOptions } from '../../src/modules/feed/sources/dhan-feed.js';
import { loadDhanInstruments } from '../helpers/dhan-fixtures.js';
import { DhanFeedStub, type FullPacket, type QuotePacket } from '../helpers/dhan-feed-stub.js';
import { captureStream } from '../helpers/test-app.js';

const CREDS = { clientId: '1100063218', accessToken: 'eyJdhanFEEDtoken.Qx81mZ4w' };
const WRONG = 'eyJdhanFEEDtoken.stale000';
const now = Date.UTC(2026, 1, 10, 4, 45, 0);
const nowS = now / 1000;

type Got = { key: string; mode: FeedMode; tick: Tick };
const pick = ({ symbol, exchange, brsymbol, brexchange, token }: FeedInstrument): FeedInstrument => ({
  symbol,
  exchange,
  brsymbol,
  brexchange,
  token,
});

describe('Dhan Live Market Feed source against a stub of DhanHQ v2', () => {
  let stub: DhanFeedStub;
  let SBIN: FeedInstrument;
  let NIFTY: FeedInstrument;
  let CE: FeedInstrument;
  let FUT: FeedInstrument;
  /** A currency future (4 decimals); no unexpired row is in the fixture, so built by hand. */
  const USDINR: FeedInstrument = {
    symbol: 'USDINR25FEB26FUT',
    exchange: 'CDS',
    brsymbol: 'USDINR-Feb2026-FUT',
    brexchange: 'NSE_CURRENCY',
    token: '1065',
  };
  const { lines, stream } = captureStream();
  const logger = pino({ level: 'trace' }, stream);
  const sources: DhanFeedSource[] = [];

  const source = (over: Partial<DhanFeedOptions> = {}) => {
    const s = new DhanFeedSource({
      ...CREDS,
      url: stub.url,
      logger,
      reconnect: { initialDelayMs: 20, maxDelayMs: 100 },
      now: () => now,
      ...over,
    });
    sources.push(s);
    return s;
  };
  const collect = (s: DhanFeedSource) => {
    const got: Got[] = [];
    s.onTick((key, mode, tick) => got.push({ key, mode, tick }));
    return got;
  };
  const settle = () => new Promise((r) => setTimeout(r, 60));
  const ref = (i: FeedInstrument, segment: string) => ({ ExchangeSegment: segment, SecurityId: i.token });

  beforeAll(async () => {
    const set = await loadDhanInstruments();
    SBIN = pick(set.sbin);
    NIFTY = pick(set.nifty);
    CE = pick(set.ce);
    FUT = pick(set.fut);
    expect([SBIN, NIFTY, CE, FUT].map((i) => `${i.exchange}:${i.symbol}:${i.token}`)).toEqual([
      'NSE:SBIN:3045',
      'NSE_INDEX:NIFTY:13',
      expect.stringMatching(/^NFO:NIFTY10FEB2625000CE:\d+$/),
      expect.stringMatching(/^NFO:BANKNIFTY30MAR26FUT:\d+$/),
    ]);
    stub = await DhanFeedStub.start(CREDS);
  });
  afterEach(async () => {
    await Promise.all(sources.splice(0).map((s) => s.stop()));
    expect(stub.violations).toEqual([]);
  });
  afterAll(async () => {
    await stub.close();
  });

  const ceQuote = (): QuotePacket => ({
    type: 'quote',
    segment: 'NSE_FNO',
    securityId: Number(CE.token),
    ltp: 112.35,
    ltq: 75,
    ltt: nowS - 2,
    atp: 110.8,
    volume: 4_512_300,
    totalSellQty: 812_250,
    totalBuyQty: 640_875,
    open: 98.5,
    close: 0,
    high: 121.4,
    low: 95.05,
  });

  it('names itself dhan, takes 5000 instruments, and connects only on the first subscribe', async () => {
    const s = source();
    expect([s.name, s.maxSubscriptions, s.status, s.lastMessageAt]).toEqual(['dhan', 5000, 'down', null]);
    const before = stub.accepted;
    s.start();
    await settle();
    expect(stub.accepted).toBe(before);
    s.subscribe(SBIN, 1);
    await stub.until(() => s.status === 'live', 3000, 'live');
    expect(stub.accepted).toBe(before + 1);
  });

  it('sends one request per request code for a turn’s subscriptions, at most 100 instruments each', async () => {
    const s = source();
    s.subscribe(SBIN, 1);
    s.subscribe(CE, 2);
    s.subscribe(FUT, 3);
    s.subscribe(NIFTY, 1);
    s.subscribe(USDINR, 2);
    // 150 more equities in LTP mode: 152 Ticker instruments in two messages.
    const many = Array.from({ length: 150 }, (_, n) => ({
      ...SBIN,
      symbol: `EQ${n}`,
      token: `${500_000 + n}`,
    }));
    for (const i of many) s.subscribe(i, 1);
    await stub.until(() => stub.subscriptions().size === 155, 3000, 'all subscriptions');
    const reqs = stub.requestsOf(stub.accepted);
    expect(reqs.map((r) => [r.RequestCode, r.InstrumentCount])).toEqual([
      [15, 100],
      [15, 52],
      [17, 2],
      [21, 1],
    ]);
    expect(reqs[0]!.InstrumentList!.slice(0, 2)).toEqual([ref(SBIN, 'NSE_EQ'), ref(NIFTY, 'IDX_I')]);
    expect(reqs[2]!.InstrumentList).toEqual([ref(CE, 'NSE_FNO'), ref(USDINR, 'NSE_CURRENCY')]);
    expect(reqs[3]!.InstrumentList).toEqual([ref(FUT, 'NSE_FNO')]);
  });

  it('turns ticker, quote (with prev close and OI) and full packets into ticks', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(NIFTY, 1);
    s.subscribe(CE, 2);
    s.subscribe(FUT, 3);
    s.subscribe(USDINR, 2);
    await stub.until(() => stub.subscriptions().size === 4);
    const ce = Number(CE.token);
    const fut = Number(FUT.token);
    const full: FullPacket = {
      ...ceQuote(),
      type: 'full',
      securityId: fut,
      ltp: 60125.5,
      ltq: 30,
      atp: 60090.25,
      oi: 2_345_670,
      oiHigh: 2_400_000,
      oiLow: 2_300_000,
      open: 59900,
      close: 0,
      high: 60200.75,
      low: 59850.1,
      depth: [
        { bidQty: 60, askQty: 90, bidOrders: 2, askOrders: 3, bidPrice: 60125.2, askPrice: 60126 },
        { bidQty: 150, askQty: 30, bidOrders: 4, askOrders: 1, bidPrice: 60125, askPrice: 60127.4 },
        { bidQty: 30, askQty: 0, bidOrders: 1, askOrders: 0, bidPrice: 60124.55, askPrice: 0 },
      ],
    };
    // Prev close and OI come first and make no tick; one frame carries four packets.
    stub.send([
      { type: 'prevClose', segment: 'NSE_FNO', securityId: ce, prevClose: 104.2, prevOi: 5_100_000 },
      { type: 'oi', segment: 'NSE_FNO', securityId: ce, oi: 5_234_500 },
      { type: 'prevClose', segment: 'NSE_FNO', securityId: fut, prevClose: 59875.45, prevOi: 2_300_000 },
      { type: 'ticker', segment: 'IDX_I', securityId: 13, ltp: 25123.45, ltt: nowS - 1 },
    ]);
    stub.send([ceQuote(), full]);
    stub.send([
      {
        ...ceQuote(),
        segment: 'NSE_CURRENCY',
        securityId: 1065,
        ltp: 86.7425,
        open: 86.5,
        high: 86.8025,
        low: 86.4975,
        atp: 86.65,
      },
    ]);
    await stub.until(() => got.length === 4, 3000, 'four ticks');

    expect(got[0]).toStrictEqual({
      key: 'NSE_INDEX:NIFTY',
      mode: 1,
      tick: { ltp: 25123.45, ltt: now - 1000, timestamp: now },
    });
    const ceTick: Tick = {
      ltp: 112.35,
      ltt: now - 2000,
      timestamp: now,
      open: 98.5,
      high: 121.4,
      low: 95.05,
      close: 104.2, // the prev close packet's, not the quote's day close
      volume: 4_512_300,
      average_price: 110.8,
      last_quantity: 75,
      total_buy_quantity: 640_875,
      total_sell_quantity: 812_250,
      oi: 5_234_500,
    };
    expect(got[1]).toStrictEqual({ key: `NFO:${CE.symbol}`, mode: 2, tick: ceTick });
    expect(got[2]).toStrictEqual({
      key: `NFO:${FUT.symbol}`,
      mode: 3,
      tick: {
        ltp: 60125.5,
        ltt: now - 2000,
        timestamp: now,
        open: 59900,
        high: 60200.75,
        low: 59850.1,
        close: 59875.45,
        volume: 4_512_300,
        average_price: 60090.25,
        last_quantity: 30,
        total_buy_quantity: 640_875,
        total_sell_quantity: 812_250,
        oi: 2_345_670,
        depth: {
          buy: [
            { price: 60125.2, quantity: 60, orders: 2 },
            { price: 60125, quantity: 150, orders: 4 },
            { price: 60124.55, quantity: 30, orders: 1 },
          ],
          // The empty ask of level 3 and the two all-zero levels are no levels at price 0.
          sell: [
            { price: 60126, quantity: 90, orders: 3 },
            { price: 60127.4, quantity: 30, orders: 1 },
          ],
        },
      },
    });
    // A currency price keeps four decimals; no prev close yet: null, not 0; no OI packet: absent.
    expect(got[3]!.key).toBe('CDS:USDINR25FEB26FUT');
    expect(got[3]!.tick).toMatchObject({
      ltp: 86.7425,
      high: 86.8025,
      low: 86.4975,
      average_price: 86.65,
      close: null,
    });
    expect(got[3]!.tick).not.toHaveProperty('oi');
    expect(s.lastMessageAt).toBe(now);
  });

  it('unsubscribes with the mode’s code, re-modes as unsubscribe-then-subscribe, and emits at the held mode', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(CE, 1);
    await stub.until(() => stub.subscriptions().get(`NSE_FNO:${CE.token}`)?.[0] === 15);
    const conn = stub.accepted;
    s.subscribe(CE, 3);
    s.unsubscribe(CE, 1);
    await stub.until(() => stub.subscriptions().get(`NSE_FNO:${CE.token}`)?.[0] === 21);
    // A quote packet while held at Depth is a Quote tick; a second key held at LTP gets it as LTP.
    s.subscribe({ ...CE, symbol: 'ALIAS' }, 1);
    await settle();
    stub.send([ceQuote()]);
    await stub.until(() => got.length === 2);
    expect(got.map((g) => [g.key, g.mode])).toEqual([
      [`NFO:${CE.symbol}`, 2],
      ['NFO:ALIAS', 1],
    ]);
    s.unsubscribe(CE, 1); // not the mode held: nothing
    s.unsubscribe(CE, 3);
    s.unsubscribe({ ...CE, symbol: 'ALIAS' }, 1);
    await stub.until(() => stub.subscriptions().size === 0);
    await settle();
    const list = [ref(CE, 'NSE_FNO')];
    expect(stub.requestsOf(conn)).toEqual([
      { RequestCode: 15, InstrumentCount: 1, InstrumentList: list },
      { RequestCode: 16, InstrumentCount: 1, InstrumentList: list },
      { RequestCode: 21, InstrumentCount: 1, InstrumentList: list },
      { RequestCode: 22, InstrumentCount: 1, InstrumentList: list },
    ]);
    stub.send([ceQuote()]);
    await settle();
    expect(got).toHaveLength(2);
  });

  it('reconnects after the connection drops and subscribes everything again', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(SBIN, 2);
    s.subscribe(NIFTY, 1);
    s.subscribe(FUT, 3);
    await stub.until(() => stub.subscriptions().size === 3);
    const first = stub.accepted;
    const statuses: string[] = [];
    const watch = setInterval(() => statuses.push(s.status), 1);
    stub.drop();
    await stub.until(
      () => stub.accepted === first + 1 && stub.subscriptions().size === 3,
      3000,
      'the reconnect',
    );
    clearInterval(watch);
    expect(statuses).toContain('down');
    expect(s.status).toBe('live');
    expect(stub.requestsOf(first + 1).map((r) => [r.RequestCode, r.InstrumentList])).toEqual([
      [15, [ref(NIFTY, 'IDX_I')]],
      [17, [ref(SBIN, 'NSE_EQ')]],
      [21, [ref(FUT, 'NSE_FNO')]],
    ]);
    stub.send([{ type: 'ticker', segment: 'IDX_I', securityId: 13, ltp: 25130, ltt: nowS }]);
    await stub.until(() => got.length === 1);
    expect(got[0]).toStrictEqual({
      key: 'NSE_INDEX:NIFTY',
      mode: 1,
      tick: { ltp: 25130, ltt: now, timestamp: now },
    });
  });

  it('on Feed Disconnect logs the reason and reconnects, unless the reason is fatal', async () => {
    const s = source();
    s.subscribe(SBIN, 1);
    await stub.until(() => stub.subscriptions().size === 1);
    const first = stub.accepted;
    stub.disconnect(805); // the stub leaves the socket open: the client closes it
    await stub.until(
      () => stub.accepted === first + 1 && stub.subscriptions().size === 1,
      3000,
      'the reconnect',
    );
    expect(stub.closeCodes.has(first)).toBe(true);
    expect(lines.join('')).toMatch(
      /"reason":805,"reasonText":"too many requests or connections","retrying":true/,
    );

    stub.disconnect(807);
    await stub.until(() => s.status === 'down' && stub.connections === 0, 3000, 'the close');
    await new Promise((r) => setTimeout(r, 200)); // ten times the first backoff
    expect(stub.accepted).toBe(first + 1);
    expect(lines.join('')).toMatch(/"reason":807,"reasonText":"access token expired","retrying":false/);
  });

  it('is down without retrying when Dhan refuses the credentials (HTTP 401)', async () => {
    const refusedBefore = stub.refusals;
    const s = source({ accessToken: WRONG });
    s.subscribe(SBIN, 2);
    await stub.until(() => stub.refusals === refusedBefore + 1, 3000, 'the refusal');
    await stub.until(() => s.status === 'down');
    await new Promise((r) => setTimeout(r, 200));
    expect(stub.refusals).toBe(refusedBefore + 1);
    s.subscribe(NIFTY, 1); // a later subscription does not try again either
    await settle();
    expect(stub.refusals).toBe(refusedBefore + 1);
    expect(s.status).toBe('down');
    expect(lines.join('')).toMatch(/"httpStatus":401/);
  });

  it('stops cleanly: a Disconnect Feed request, a normal close, no reconnect', async () => {
    const s = source();
    s.subscribe(SBIN, 1);
    await stub.until(() => s.status === 'live' && stub.subscriptions().size === 1);
    const conn = stub.accepted;
    await s.stop();
    expect(s.status).toBe('down');
    await stub.until(() => stub.closeCodes.has(conn));
    expect(stub.closeCodes.get(conn)).toBe(1000);
    expect(stub.requestsOf(conn).at(-1)).toEqual({ RequestCode: 12 });
    s.subscribe(NIFTY, 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(stub.accepted).toBe(conn);
  });

  it('never logs the access token, only the host', async () => {
    const s = source();
    s.subscribe(SBIN, 1);
    await stub.until(() => stub.subscriptions().size === 1);
    stub.drop();
    await stub.until(() => lines.join('').includes('dhan feed disconnected; reconnecting'));
    const logged = lines.join('');
    expect(logged).toContain(new URL(stub.url).host);
    for (const secret of [CREDS.accessToken, WRONG]) expect(logged).not.toContain(secret);
    expect(logged).not.toContain('token=');
  });
});
