/**
 * Zerodha's Kite Ticker as a tick source (src/modules/feed/sources/kite-ticker.ts) against a
 * loopback stub that speaks Kite Connect v3's documented WebSocket protocol
 * (test/helpers/kite-ticker-stub.ts): requests, the three modes' packets for an equity, an index
 * and a currency option (real rows of Kite's instrument master), reconnecting, heartbeats, text
 * updates, refused credentials, and what reaches the log. Each packet's fields are the wire's
 * integers; the rupees expected are written out here.
 */
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FeedInstrument, FeedMode, Tick } from '../../src/modules/feed/feed.types.js';
import { KiteTickerSource, type KiteTickerOptions } from '../../src/modules/feed/sources/kite-ticker.js';
import type { Instrument } from '../../src/modules/market/instrument.js';
import { HEADER, NSE_FILE, parseText } from '../helpers/kite-instruments.js';
import { KiteTickerStub, type FullPacket, type QuotePacket } from '../helpers/kite-ticker-stub.js';
import { captureStream } from '../helpers/test-app.js';

const CREDS = { apiKey: 'kapikey-q7x3m2', accessToken: 'kaccesstoken-9zr8y7w6v5' };
const WRONG = 'kaccesstoken-stale-0000';
/** The source's clock (ticks without the exchange's timestamp are stamped with it). */
let now = Date.UTC(2026, 7, 18, 4, 45, 0);
/** A CDS option row of Kite's instrument master (the importer's tests use it too). */
const USDINR_ROW = '268502275,1048837,USDINR25N1486.25CE,"USDINR",0,2025-11-14,86.25,0.0025,1,CE,CDS-OPT,CDS';

const feedInstrument = (r: Instrument): FeedInstrument => ({
  symbol: r.symbol,
  exchange: r.exchange,
  brsymbol: r.brsymbol,
  brexchange: r.brexchange,
  token: r.token,
});

type Got = { key: string; mode: FeedMode; tick: Tick };

describe('Kite Ticker source against a stub of Kite Connect v3 WebSocket streaming', () => {
  let stub: KiteTickerStub;
  let SBIN: FeedInstrument;
  let NIFTY: FeedInstrument;
  let USDINR: FeedInstrument;
  const { lines, stream } = captureStream();
  const logger = pino({ level: 'trace' }, stream);
  const sources: KiteTickerSource[] = [];

  const source = (over: Partial<KiteTickerOptions> = {}) => {
    const s = new KiteTickerSource({
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
  const collect = (s: KiteTickerSource) => {
    const got: Got[] = [];
    s.onTick((key, mode, tick) => got.push({ key, mode, tick }));
    return got;
  };
  /** Lets pending socket traffic land (a round trip on loopback takes well under this). */
  const settle = () => new Promise((r) => setTimeout(r, 60));

  beforeAll(async () => {
    const nse = await parseText(readFileSync(NSE_FILE, 'utf8'));
    const byToken = (t: string) => nse.rows.find((r) => r.token === t)!;
    SBIN = feedInstrument(byToken('779521'));
    NIFTY = feedInstrument(byToken('256265'));
    USDINR = feedInstrument((await parseText(`${HEADER}\n${USDINR_ROW}`)).rows[0]!);
    expect([SBIN, NIFTY, USDINR].map((i) => `${i.exchange}:${i.symbol}`)).toEqual([
      'NSE:SBIN',
      'NSE_INDEX:NIFTY',
      'CDS:USDINR14NOV2586.25CE',
    ]);
    stub = await KiteTickerStub.start(CREDS);
  });
  afterEach(async () => {
    await Promise.all(sources.splice(0).map((s) => s.stop()));
  });
  afterAll(async () => {
    await stub.close();
  });

  const sbinQuote: QuotePacket = {
    mode: 'quote',
    token: 779521,
    lastPrice: 80125,
    lastQuantity: 10,
    averagePrice: 80050,
    volume: 1_234_567,
    buyQuantity: 400_000,
    sellQuantity: 350_000,
    open: 79900,
    high: 80300,
    low: 79810,
    close: 79875,
  };
  const sbinQuoteTick: Tick = {
    ltp: 801.25,
    ltt: null,
    timestamp: now,
    last_quantity: 10,
    average_price: 800.5,
    volume: 1_234_567,
    total_buy_quantity: 400_000,
    total_sell_quantity: 350_000,
    open: 799,
    high: 803,
    low: 798.1,
    close: 798.75,
  };

  it('names itself zerodha, takes 3000 instruments, and connects only on the first subscribe', async () => {
    const s = source();
    expect([s.name, s.maxSubscriptions, s.status, s.lastMessageAt]).toEqual(['zerodha', 3000, 'down', null]);
    const before = stub.accepted;
    s.start();
    await settle();
    expect(stub.accepted).toBe(before);
    s.subscribe(SBIN, 1);
    await stub.until(() => s.status === 'live', 3000, 'live');
    expect(stub.accepted).toBe(before + 1);
  });

  it('sends one subscribe and one mode message per mode for a turn’s subscriptions, and decodes each mode', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(SBIN, 3);
    s.subscribe(NIFTY, 2);
    s.subscribe(USDINR, 1);
    await stub.until(() => stub.subscriptions().size === 3 && stub.subscriptions().get(268502275) === 'ltp');
    const conn = stub.accepted;
    expect(stub.messagesOf(conn)).toEqual([
      { a: 'subscribe', v: [779521, 256265, 268502275] },
      { a: 'mode', v: ['ltp', [268502275]] },
      { a: 'mode', v: ['quote', [256265]] },
      { a: 'mode', v: ['full', [779521]] },
    ]);

    const sbinFull: FullPacket = {
      ...sbinQuote,
      mode: 'full',
      lastTradeTime: now / 1000 - 3,
      oi: 0,
      oiDayHigh: 0,
      oiDayLow: 0,
      exchangeTimestamp: now / 1000 - 1,
      bids: [
        [500, 80120, 3],
        [1200, 80115, 7],
        [80, 80110, 1],
        [4000, 80105, 12],
        [950, 80100, 9],
      ],
      asks: [
        [300, 80125, 2],
        [60, 80130, 1],
        [2500, 80135, 11],
        [700, 80140, 4],
        [0, 0, 0],
      ],
    };
    // One frame, three packets: SBIN full, NIFTY 50 index quote, USDINR option LTP.
    expect(
      stub.send([
        sbinFull,
        {
          mode: 'index-quote',
          token: 256265,
          lastPrice: 2_485_015,
          high: 2_490_000,
          low: 2_470_550,
          open: 2_475_000,
          close: 2_480_000,
          change: 25_000,
        },
        { mode: 'ltp', token: 268502275, lastPrice: 862_512_500 },
      ]),
    ).toBe(1);
    await stub.until(() => got.length === 3, 3000, 'three ticks');

    expect(got[0]).toStrictEqual({
      key: 'NSE:SBIN',
      mode: 3,
      tick: {
        ...sbinQuoteTick,
        ltt: now - 3000,
        timestamp: now - 1000,
        oi: 0,
        depth: {
          buy: [
            { price: 801.2, quantity: 500, orders: 3 },
            { price: 801.15, quantity: 1200, orders: 7 },
            { price: 801.1, quantity: 80, orders: 1 },
            { price: 801.05, quantity: 4000, orders: 12 },
            { price: 801, quantity: 950, orders: 9 },
          ],
          // The empty fifth offer (all zeros on the wire) is no level at price 0.
          sell: [
            { price: 801.25, quantity: 300, orders: 2 },
            { price: 801.3, quantity: 60, orders: 1 },
            { price: 801.35, quantity: 2500, orders: 11 },
            { price: 801.4, quantity: 700, orders: 4 },
          ],
        },
      },
    });
    // An index quote has no volume, quantities or OI: they stay absent, not 0.
    expect(got[1]).toStrictEqual({
      key: 'NSE_INDEX:NIFTY',
      mode: 2,
      tick: {
        ltp: 24850.15,
        ltt: null,
        timestamp: now,
        high: 24900,
        low: 24705.5,
        open: 24750,
        close: 24800,
      },
    });
    // A CDS price is in 1/10,000,000 of a rupee; LTP mode carries the price alone.
    expect(got[2]).toStrictEqual({
      key: 'CDS:USDINR14NOV2586.25CE',
      mode: 1,
      tick: { ltp: 86.25125, ltt: null, timestamp: now },
    });
    expect(s.lastMessageAt).toBe(now);
  });

  it('decodes an index in full mode (the exchange’s timestamp) and CDS quote prices in their unit', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(NIFTY, 3);
    s.subscribe(USDINR, 2);
    await stub.until(() => stub.subscriptions().get(256265) === 'full' && stub.subscriptions().size === 2);
    stub.send([
      {
        mode: 'index-full',
        token: 256265,
        lastPrice: 2_485_015,
        high: 2_490_000,
        low: 2_470_550,
        open: 2_475_000,
        close: 2_480_000,
        change: 25_000,
        exchangeTimestamp: now / 1000 - 2,
      },
      {
        mode: 'quote',
        token: 268502275,
        lastPrice: 862_500_000,
        lastQuantity: 1,
        averagePrice: 862_250_000,
        volume: 12_000,
        buyQuantity: 3_000,
        sellQuantity: 4_000,
        open: 861_000_000,
        high: 865_000_000,
        low: 860_025_000,
        close: 861_500_000,
      },
    ]);
    await stub.until(() => got.length === 2, 3000, 'two ticks');
    expect(got).toStrictEqual([
      {
        key: 'NSE_INDEX:NIFTY',
        mode: 3,
        tick: {
          ltp: 24850.15,
          ltt: null,
          timestamp: now - 2000,
          high: 24900,
          low: 24705.5,
          open: 24750,
          close: 24800,
        },
      },
      {
        key: 'CDS:USDINR14NOV2586.25CE',
        mode: 2,
        tick: {
          ltp: 86.25,
          ltt: null,
          timestamp: now,
          last_quantity: 1,
          average_price: 86.225,
          volume: 12_000,
          total_buy_quantity: 3_000,
          total_sell_quantity: 4_000,
          open: 86.1,
          high: 86.5,
          low: 86.0025,
          close: 86.15,
        },
      },
    ]);
  });

  it('divides BCD prices by 10,000 (the segment in the token’s low byte)', async () => {
    // No BCD row is in the fixtures: a token of exchange_token 7876 on segment 6 (BCD).
    const bcdToken = (7876 << 8) | 6;
    const s = source();
    const got = collect(s);
    s.subscribe(
      { symbol: 'EURINR26NOV25FUT', exchange: 'BCD', brsymbol: 'x', brexchange: 'BCD', token: `${bcdToken}` },
      1,
    );
    await stub.until(() => stub.subscriptions().get(bcdToken) === 'ltp');
    stub.send([{ mode: 'ltp', token: bcdToken, lastPrice: 902_512 }]);
    await stub.until(() => got.length === 1);
    expect(got[0]!.tick.ltp).toBe(90.2512);
  });

  it('makes the hub’s re-mode (subscribe new, unsubscribe old) one mode message, and unsubscribes', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(SBIN, 1);
    await stub.until(() => stub.subscriptions().get(779521) === 'ltp');
    const conn = stub.accepted;
    const seen = stub.messagesOf(conn).length;

    s.subscribe(SBIN, 3);
    s.unsubscribe(SBIN, 1);
    await stub.until(() => stub.subscriptions().get(779521) === 'full');
    await settle();
    expect(stub.messagesOf(conn).slice(seen)).toEqual([{ a: 'mode', v: ['full', [779521]] }]);

    // A quote packet while subscribed in full (Kite's default before a mode lands) is a Quote tick.
    stub.send([sbinQuote]);
    await stub.until(() => got.length === 1);
    expect(got[0]).toStrictEqual({ key: 'NSE:SBIN', mode: 2, tick: sbinQuoteTick });

    s.subscribe(SBIN, 2);
    s.unsubscribe(SBIN, 3);
    await stub.until(() => stub.subscriptions().get(779521) === 'quote');
    s.unsubscribe(SBIN, 3); // not the mode held: nothing
    s.unsubscribe(SBIN, 2);
    await stub.until(() => stub.subscriptions().size === 0);
    expect(stub.messagesOf(conn).slice(seen)).toEqual([
      { a: 'mode', v: ['full', [779521]] },
      { a: 'mode', v: ['quote', [779521]] },
      { a: 'unsubscribe', v: [779521] },
    ]);
    stub.send([sbinQuote], { unsolicited: true });
    await settle();
    expect(got).toHaveLength(1);
  });

  it('batches a turn’s subscribes and unsubscribes on a live connection into one message each', async () => {
    const s = source();
    s.subscribe(SBIN, 1);
    await stub.until(() => s.status === 'live' && stub.subscriptions().get(779521) === 'ltp');
    const conn = stub.accepted;
    const seen = stub.messagesOf(conn).length;
    s.subscribe(NIFTY, 2);
    s.subscribe(USDINR, 2);
    await stub.until(() => stub.subscriptions().get(268502275) === 'full' && stub.subscriptions().size === 3);
    s.unsubscribe(NIFTY, 2);
    s.unsubscribe(USDINR, 2);
    await stub.until(() => stub.subscriptions().size === 1);
    await settle();
    // The index's Quote in Kite's quote mode; the option's in full, the packet with open interest.
    expect(stub.messagesOf(conn).slice(seen)).toEqual([
      { a: 'subscribe', v: [256265, 268502275] },
      { a: 'mode', v: ['quote', [256265]] },
      { a: 'mode', v: ['full', [268502275]] },
      { a: 'unsubscribe', v: [256265, 268502275] },
    ]);
  });

  it('emits a packet above the subscribed mode at the subscribed mode', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(SBIN, 1);
    await stub.until(() => stub.subscriptions().get(779521) === 'ltp');
    stub.send([sbinQuote]);
    await stub.until(() => got.length === 1);
    expect(got[0]!.mode).toBe(1);
    expect(got[0]!.tick.ltp).toBe(801.25);
  });

  it('asks a derivative’s Quote in full, so its ticks carry the open interest Kite’s quote packet lacks', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(USDINR, 2);
    await stub.until(() => stub.subscriptions().get(268502275) === 'full');
    stub.send([
      {
        mode: 'full',
        token: 268502275,
        lastPrice: 862_500_000,
        lastQuantity: 1,
        averagePrice: 862_250_000,
        volume: 12_000,
        buyQuantity: 3_000,
        sellQuantity: 4_000,
        open: 861_000_000,
        high: 865_000_000,
        low: 860_000_000,
        close: 860_500_000,
        lastTradeTime: now / 1000,
        oi: 45_500,
        oiDayHigh: 46_000,
        oiDayLow: 44_000,
        exchangeTimestamp: now / 1000,
        bids: [[10, 862_000_000, 2] as const],
        asks: [[20, 863_000_000, 3] as const],
      },
    ]);
    await stub.until(() => got.length === 1);
    expect(got[0]!.key).toBe('CDS:USDINR14NOV2586.25CE');
    // Emitted at the held mode, Quote, with the open interest.
    expect(got[0]!.mode).toBe(2);
    expect(got[0]!.tick.oi).toBe(45_500);
  });

  it('reconnects after the connection drops and subscribes everything again at its mode', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(SBIN, 3);
    s.subscribe(NIFTY, 1);
    await stub.until(() => stub.subscriptions().get(779521) === 'full' && stub.subscriptions().size === 2);
    const first = stub.accepted;
    const statuses: string[] = [];
    const watch = setInterval(() => statuses.push(s.status), 1);
    stub.drop();
    await stub.until(() => stub.accepted === first + 1 && s.status === 'live', 3000, 'the reconnect');
    clearInterval(watch);
    expect(statuses).toContain('down');
    await stub.until(() => stub.subscriptions().size === 2 && stub.subscriptions().get(779521) === 'full');
    expect(stub.messagesOf(first + 1)).toEqual([
      { a: 'subscribe', v: [779521, 256265] },
      { a: 'mode', v: ['ltp', [256265]] },
      { a: 'mode', v: ['full', [779521]] },
    ]);
    stub.send([{ mode: 'ltp', token: 256265, lastPrice: 2_486_000 }]);
    await stub.until(() => got.length === 1);
    expect(got[0]).toStrictEqual({
      key: 'NSE_INDEX:NIFTY',
      mode: 1,
      tick: { ltp: 24860, ltt: null, timestamp: now },
    });
  });

  it('takes heartbeats and text updates as signs of life, not ticks', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(USDINR, 1);
    await stub.until(() => stub.subscriptions().get(268502275) === 'ltp');
    const t0 = (now += 1000);
    stub.heartbeat();
    await stub.until(() => s.lastMessageAt === t0, 3000, 'the heartbeat');
    stub.text({ type: 'order', data: { order_id: '151220000000000', status: 'COMPLETE' } });
    stub.text({ type: 'message', data: 'Scheduled maintenance at 23:00' });
    stub.text({ type: 'error', data: 'Invalid instrument' });
    stub.raw(Buffer.from([0, 3, 0, 8, 0, 0])); // three packets announced, one cut short
    stub.send([{ mode: 'ltp', token: 268502275, lastPrice: 862_500_000 }]);
    await stub.until(() => got.length === 1);
    await settle();
    expect(got).toHaveLength(1);
    expect(got[0]!.tick.ltp).toBe(86.25);
    expect(s.status).toBe('live');
    const logged = lines.join('');
    expect(logged).toContain('Invalid instrument');
    expect(logged).toContain('Scheduled maintenance');
  });

  it('is down without retrying when Kite refuses the credentials (HTTP 403)', async () => {
    const refusedBefore = stub.refusals;
    const s = source({ accessToken: WRONG });
    s.subscribe(SBIN, 2);
    await stub.until(() => stub.refusals === refusedBefore + 1, 3000, 'the refusal');
    await stub.until(() => s.status === 'down');
    await new Promise((r) => setTimeout(r, 200)); // ten times the first backoff
    expect(stub.refusals).toBe(refusedBefore + 1);
    expect(s.status).toBe('down');
    s.subscribe(NIFTY, 1); // a later subscription does not try again either
    await settle();
    expect(stub.refusals).toBe(refusedBefore + 1);
    expect(lines.join('')).toMatch(/"httpStatus":403/);
  });

  it('stops cleanly: a normal close, no reconnect, status down', async () => {
    const s = source();
    s.subscribe(SBIN, 1);
    await stub.until(() => s.status === 'live' && stub.subscriptions().size === 1);
    const conn = stub.accepted;
    await s.stop();
    expect(s.status).toBe('down');
    await stub.until(() => stub.closeCodes.has(conn));
    expect(stub.closeCodes.get(conn)).toBe(1000);
    s.subscribe(NIFTY, 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(stub.accepted).toBe(conn);
  });

  it('never logs the API key or the access token, only the host', async () => {
    // A Kite error text that echoes the token is masked too.
    const s = source();
    s.subscribe(SBIN, 1);
    await stub.until(() => stub.subscriptions().size === 1);
    stub.text({ type: 'error', data: `Token ${CREDS.accessToken} expired` });
    await stub.until(() => lines.join('').includes('expired'));
    const logged = lines.join('');
    expect(logged).toContain(new URL(stub.url).host);
    expect(logged).toContain('Token *** expired');
    for (const secret of [CREDS.apiKey, CREDS.accessToken, WRONG]) expect(logged).not.toContain(secret);
    expect(logged).not.toContain('access_token=');
  });
});
