/**
 * Angel One's SmartStream as a tick source (src/modules/feed/sources/angel-stream.ts) against a
 * loopback stub that speaks SmartAPI WebSocket 2.0's documented protocol
 * (smartapi.angelone.in/docs/WebSocket2; test/helpers/angel-stream-stub.ts): the handshake
 * headers, subscribe and unsubscribe requests per mode grouped by exchange type, LTP, Quote and
 * SnapQuote packets for a stock, an index, an option and a currency future, the heartbeat,
 * reconnecting, refused credentials, and what reaches the log. Each packet's fields are the
 * wire's integers; the rupees expected are written out here.
 */
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DepthLevel, FeedInstrument, FeedMode, Tick } from '../../src/modules/feed/feed.types.js';
import {
  AngelStreamSource,
  ANGEL_STREAM_MAX_TOKENS,
  ANGEL_STREAM_URL,
  type AngelStreamOptions,
} from '../../src/modules/feed/sources/angel-stream.js';
import {
  AngelStreamStub,
  type QuotePacket,
  type ReceivedRequest,
  type SnapQuotePacket,
} from '../helpers/angel-stream-stub.js';
import { captureStream } from '../helpers/test-app.js';

const CREDS = {
  ...{ apiKey: 'angapikey-Q7x3', clientCode: 'R5228871', feedToken: 'angfeedtoken-0x9f8e7d6c' },
  jwt: 'eyJhbGciOiJIUzUxMiJ9.angeljwt-payload.sig9z8y7',
};
const WRONG_FEED = 'angfeedtoken-stale-0000';
/** The source's clock (ticks without the exchange's timestamp are stamped with it). */
const now = Date.UTC(2026, 7, 18, 4, 45, 0);

/** Rows of Angel's OpenAPIScripMaster.json as the importer maps them. */
function inst(symbol: string, exchange: string, brsymbol: string, token: string): FeedInstrument {
  return { symbol, exchange, brsymbol, brexchange: exchange.replace(/_INDEX$/, ''), token };
}
const SBIN = inst('SBIN', 'NSE', 'SBIN-EQ', '3045');
const NIFTY = inst('NIFTY', 'NSE_INDEX', 'Nifty 50', '99926000');
const SENSEX = inst('SENSEX', 'BSE_INDEX', 'SENSEX', '99919000');
const NIFTY_CE = inst('NIFTY28NOV2624000CE', 'NFO', 'NIFTY28NOV2624000CE', '43650');
const USDINR = inst('USDINR26NOV26FUT', 'CDS', 'USDINR26NOV26FUT', '1147');

type Got = { key: string; mode: FeedMode; tick: Tick };
const lvl = (price: number, quantity: number, orders: number): DepthLevel => ({ price, quantity, orders });
/** A request in brief: `action/mode exchangeType:token,token …`. */
const brief = (r: Omit<ReceivedRequest, 'connection'>) =>
  `${String(r.action)}/${String(r.mode)} ${(r.tokenList as { exchangeType: number; tokens: string[] }[])
    .map((g) => `${g.exchangeType}:${g.tokens.join(',')}`)
    .join(' ')}`;

describe('Angel One SmartStream source against a stub of SmartAPI WebSocket 2.0', () => {
  let stub: AngelStreamStub;
  const { lines, stream } = captureStream();
  const logger = pino({ level: 'trace' }, stream);
  const sources: AngelStreamSource[] = [];

  const source = (over: Partial<AngelStreamOptions> = {}) => {
    const reconnect = { initialDelayMs: 20, maxDelayMs: 100 };
    const s = new AngelStreamSource({ ...CREDS, url: stub.url, logger, reconnect, now: () => now, ...over });
    sources.push(s);
    return s;
  };
  const subscribeAll = (s: AngelStreamSource, ...pairs: (readonly [FeedInstrument, FeedMode])[]) => {
    for (const [instrument, mode] of pairs) s.subscribe(instrument, mode);
  };
  const collect = (s: AngelStreamSource) => {
    const got: Got[] = [];
    s.onTick((key, mode, tick) => got.push({ key, mode, tick }));
    return got;
  };
  /** Lets pending socket traffic land (a round trip on loopback takes well under this). */
  const settle = () => new Promise((r) => setTimeout(r, 60));

  beforeAll(async () => {
    stub = await AngelStreamStub.start(CREDS);
  });
  afterEach(() => Promise.all(sources.splice(0).map((s) => s.stop())));
  afterAll(() => stub.close());

  const sbinQuote: QuotePacket = {
    ...{
      mode: 'QUOTE',
      exchangeType: 1,
      token: '3045',
      sequenceNumber: 10_100_759,
      exchangeTimestamp: now - 1000,
    },
    ...{ lastTradedPrice: 80125, lastTradedQuantity: 10, averageTradedPrice: 80050 },
    ...{ volumeTradedForTheDay: 1_234_567, totalBuyQuantity: 400_000, totalSellQuantity: 350_000 },
    ...{ openPriceOfTheDay: 79900, highPriceOfTheDay: 80300, lowPriceOfTheDay: 79810, closePrice: 79875 },
  };
  const sbinQuoteTick: Tick = {
    ...{ ltp: 801.25, ltt: null, timestamp: now - 1000, last_quantity: 10, average_price: 800.5 },
    ...{ volume: 1_234_567, total_buy_quantity: 400_000, total_sell_quantity: 350_000 },
    ...{ open: 799, high: 803, low: 798.1, close: 798.75 },
  };
  /** A Quote packet with SBIN's trade fields and these prices (paise): last, open, high, low, close. */
  const quote = (exchangeType: number, token: string, ...[ltp, open, high, low, close]: number[]) => ({
    ...sbinQuote,
    ...{ exchangeType, token, lastTradedPrice: ltp!, openPriceOfTheDay: open!, highPriceOfTheDay: high! },
    ...{ lowPriceOfTheDay: low!, closePrice: close! },
  });
  const NO_TRADES = {
    ...{ exchangeTimestamp: 0, lastTradedQuantity: 0, averageTradedPrice: 0, volumeTradedForTheDay: 0 },
    ...{ totalBuyQuantity: 0, totalSellQuantity: 0 },
  };
  /** `p` as a SnapQuote packet with nothing past the Quote fields (a test sets what it reads). */
  const snap = (p: QuotePacket): SnapQuotePacket => ({
    ...p,
    ...{ mode: 'SNAP_QUOTE', lastTradedTimestamp: 0, openInterest: 0, openInterestChangePercent: 0 },
    ...{
      bids: [],
      asks: [],
      upperCircuitLimit: 0,
      lowerCircuitLimit: 0,
      fiftyTwoWeekHigh: 0,
      fiftyTwoWeekLow: 0,
    },
  });

  it('names itself angel, takes 1000 tokens, connects on the first subscribe with the four headers', async () => {
    expect(ANGEL_STREAM_URL).toBe('wss://smartapisocket.angelone.in/smart-stream');
    const s = source();
    expect([s.name, s.maxSubscriptions, s.status, s.lastMessageAt]).toEqual(['angel', 1000, 'down', null]);
    const before = stub.accepted;
    s.start();
    await settle();
    expect(stub.accepted).toBe(before);
    s.subscribe(SBIN, 1);
    await stub.until(() => s.status === 'live', 3000, 'live');
    expect(stub.accepted).toBe(before + 1);
    expect(stub.authorizations.at(-1)).toBe(`Bearer ${CREDS.jwt}`);
    // A JWT that already says Bearer is not sent as `Bearer Bearer …`.
    const t = source({ jwt: `Bearer ${CREDS.jwt}` });
    t.subscribe(SBIN, 1);
    await stub.until(() => t.status === 'live', 3000, 'live');
    expect(stub.authorizations.at(-1)).toBe(`Bearer ${CREDS.jwt}`);
  });

  it('subscribes a turn in one request per mode, tokens grouped by exchange type, indices on the cash segment', async () => {
    const s = source();
    subscribeAll(s, [SBIN, 3], [NIFTY, 2], [NIFTY_CE, 2], [USDINR, 1], [SENSEX, 1]);
    await stub.until(() => stub.subscriptions().length === 5, 3000, 'five subscriptions');
    expect(stub.subscriptions()).toEqual([
      '1:13|1147',
      '1:3|99919000',
      '2:1|99926000',
      '2:2|43650',
      '3:1|3045',
    ]);
    const reqs = stub.requestsOf(stub.accepted);
    expect(reqs.map(brief)).toEqual(['1/1 3:99919000 13:1147', '1/2 1:99926000 2:43650', '1/3 1:3045']);
    expect(reqs[0]).toEqual({
      correlationID: 'ad00000001',
      action: 1,
      mode: 1,
      tokenList: [
        { exchangeType: 3, tokens: ['99919000'] },
        { exchangeType: 13, tokens: ['1147'] },
      ],
    });
    expect(reqs.map((r) => r.correlationID)).toEqual(['ad00000001', 'ad00000002', 'ad00000003']);
  });

  it('turns LTP, Quote and SnapQuote packets into ticks: paise to rupees, depth, OI, previous close', async () => {
    const s = source();
    const got = collect(s);
    subscribeAll(s, [SBIN, 3], [NIFTY, 2], [NIFTY_CE, 2], [USDINR, 1]);
    await stub.until(() => stub.subscriptions().length === 4);

    stub.send({
      ...snap(sbinQuote),
      lastTradedTimestamp: (now - 3000) / 1000,
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
      ],
      upperCircuitLimit: 88130,
    });
    // An index in Quote mode: Angel fills the trade fields with zeros; no exchange timestamp here.
    stub.send({
      ...quote(1, '99926000', 2_485_015, 2_475_000, 2_490_000, 2_470_550, 2_480_000),
      ...NO_TRADES,
    });
    stub.send({
      ...quote(2, '43650', 12_345, 11_000, 13_020, 10_505, 10_860),
      ...{ lastTradedQuantity: 75, averageTradedPrice: 11_990, volumeTradedForTheDay: 9_876_500 },
    });
    const usdinr = { exchangeType: 13, token: '1147', sequenceNumber: 7, exchangeTimestamp: now - 500 };
    stub.send({ mode: 'LTP', ...usdinr, lastTradedPrice: 862_512_500 });
    await stub.until(() => got.length === 4, 3000, 'four ticks');

    const depth = {
      buy: [
        lvl(801.2, 500, 3),
        lvl(801.15, 1200, 7),
        lvl(801.1, 80, 1),
        lvl(801.05, 4000, 12),
        lvl(801, 950, 9),
      ],
      // The empty fifth offer (all zeros on the wire) is no level at price 0.
      sell: [lvl(801.25, 300, 2), lvl(801.3, 60, 1), lvl(801.35, 2500, 11), lvl(801.4, 700, 4)],
    };
    expect(got[0]).toStrictEqual({
      key: 'NSE:SBIN',
      mode: 3,
      tick: { ...sbinQuoteTick, ltt: now - 3000, oi: 0, depth },
    });
    // The index's zeros are left out; stamped with the clock.
    expect(got[1]).toStrictEqual({
      key: 'NSE_INDEX:NIFTY',
      mode: 2,
      tick: {
        ltp: 24850.15,
        ltt: null,
        timestamp: now,
        open: 24750,
        high: 24900,
        low: 24705.5,
        close: 24800,
      },
    });
    // `close` is the previous session's close (below today's open and low here).
    expect(got[2]).toStrictEqual({
      key: 'NFO:NIFTY28NOV2624000CE',
      mode: 2,
      tick: {
        ...sbinQuoteTick,
        ...{ ltp: 123.45, last_quantity: 75, average_price: 119.9, volume: 9_876_500 },
        ...{ open: 110, high: 130.2, low: 105.05, close: 108.6 },
      },
    });
    // The currency segment's prices are in 1/10,000,000 of a rupee.
    expect(got[3]).toStrictEqual({
      key: 'CDS:USDINR26NOV26FUT',
      mode: 1,
      tick: { ltp: 86.25125, ltt: null, timestamp: now - 500 },
    });
    expect(s.lastMessageAt).toBe(now);
  });

  it('gives a derivative’s open interest in SnapQuote and emits a higher-mode packet at the held mode', async () => {
    const s = source();
    const got = collect(s);
    subscribeAll(s, [NIFTY_CE, 3], [SBIN, 1]);
    await stub.until(() => stub.subscriptions().length === 2);
    stub.send({
      ...snap(sbinQuote),
      ...{ exchangeType: 2, token: '43650', lastTradedTimestamp: now },
      ...{ openInterest: 4_567_800, openInterestChangePercent: 3.25 },
    });
    stub.send(sbinQuote, { unsolicited: true }); // a Quote packet while SBIN is held in LTP
    await stub.until(() => got.length === 2);
    expect(got[0]!.tick.oi).toBe(4_567_800);
    expect(got[0]!.tick.ltt).toBe(now); // given in ms
    expect(got[0]!.tick.depth).toEqual({ buy: [], sell: [] });
    expect([got[1]!.key, got[1]!.mode, got[1]!.tick.ltp]).toEqual(['NSE:SBIN', 1, 801.25]);
  });

  it('moves a re-mode (old mode unsubscribed, new subscribed) and unsubscribes with action 0', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(SBIN, 1);
    await stub.until(() => stub.subscriptions().join() === '1:1|3045');
    const conn = stub.accepted;
    s.subscribe(SBIN, 3);
    s.unsubscribe(SBIN, 1);
    await stub.until(() => stub.subscriptions().join() === '3:1|3045');
    s.unsubscribe(SBIN, 1); // not the mode held: nothing
    s.unsubscribe(SBIN, 3);
    await stub.until(() => stub.subscriptions().length === 0);
    await settle();
    expect(stub.requestsOf(conn).map(brief)).toEqual([
      '1/1 1:3045',
      '0/1 1:3045',
      '1/3 1:3045',
      '0/3 1:3045',
    ]);
    stub.send(sbinQuote, { unsolicited: true });
    await settle();
    expect(got).toHaveLength(0);
  });

  it('sends the text ping every heartbeatMs and takes the pong as a sign of life', async () => {
    let clock = now;
    const s = source({ heartbeatMs: 25, now: () => clock });
    s.subscribe(SBIN, 1);
    await stub.until(() => s.status === 'live');
    clock += 5000;
    await stub.until(() => stub.pings() >= 3, 3000, 'three pings');
    await stub.until(() => s.lastMessageAt === clock, 3000, 'a pong');
    expect(s.status).toBe('live');
  });

  it('reconnects after the connection drops and subscribes everything again at its mode', async () => {
    const s = source();
    const got = collect(s);
    subscribeAll(s, [SBIN, 3], [NIFTY, 1], [NIFTY_CE, 1]);
    await stub.until(() => stub.subscriptions().length === 3);
    const first = stub.accepted;
    const statuses: string[] = [];
    const watch = setInterval(() => statuses.push(s.status), 1);
    stub.drop();
    await stub.until(() => stub.accepted === first + 1 && s.status === 'live', 3000, 'the reconnect');
    clearInterval(watch);
    expect(statuses).toContain('down');
    await stub.until(() => stub.subscriptions().length === 3);
    expect(stub.subscriptions()).toEqual(['1:1|99926000', '1:2|43650', '3:1|3045']);
    expect(stub.requestsOf(first + 1).map(brief)).toEqual(['1/1 1:99926000 2:43650', '1/3 1:3045']);
    const nifty = { exchangeType: 1, token: '99926000', sequenceNumber: 1, exchangeTimestamp: now };
    stub.send({ mode: 'LTP', ...nifty, lastTradedPrice: 2_486_000 });
    await stub.until(() => got.length === 1);
    expect(got[0]).toStrictEqual({
      key: 'NSE_INDEX:NIFTY',
      mode: 1,
      tick: { ltp: 24860, ltt: null, timestamp: now },
    });
  });

  it('is down without retrying when Angel refuses the feed token (HTTP 401)', async () => {
    const refusedBefore = stub.refusals;
    const s = source({ feedToken: WRONG_FEED });
    s.subscribe(SBIN, 2);
    await stub.until(() => stub.refusals === refusedBefore + 1, 3000, 'the refusal');
    await stub.until(() => s.status === 'down');
    await new Promise((r) => setTimeout(r, 200)); // ten times the first backoff
    expect(stub.refusals).toBe(refusedBefore + 1);
    s.subscribe(NIFTY, 1); // a later subscription does not try again either
    await settle();
    expect(stub.refusals).toBe(refusedBefore + 1);
    expect(s.status).toBe('down');
    expect(lines.join('')).toMatch(/"httpStatus":401/);
  });

  it('holds at most 1000 tokens and leaves out exchanges SmartStream has no type for', async () => {
    const s = source();
    for (let i = 0; i <= ANGEL_STREAM_MAX_TOKENS; i++)
      s.subscribe(inst(`S${i}`, 'NSE', `S${i}-EQ`, `${10_000 + i}`), 1);
    s.subscribe(inst('EURINR26NOV26FUT', 'BCD', 'EURINR26NOV26FUT', '5555'), 1);
    await stub.until(() => stub.subscriptions().length === 1000, 3000, '1000 subscriptions');
    await settle();
    const reqs = stub.requestsOf(stub.accepted);
    expect(reqs).toHaveLength(1);
    expect((reqs[0]!.tokenList as { tokens: string[] }[])[0]!.tokens).toHaveLength(1000);
    const logged = lines.join('');
    expect(logged).toContain('token limit reached');
    expect(logged).toContain('"key":"BCD:EURINR26NOV26FUT"');
  });

  it('stops cleanly: no reconnect, status down', async () => {
    const s = source();
    s.subscribe(SBIN, 1);
    await stub.until(() => s.status === 'live' && stub.subscriptions().length === 1);
    const conn = stub.accepted;
    await s.stop();
    expect(s.status).toBe('down');
    s.subscribe(NIFTY, 1);
    await new Promise((r) => setTimeout(r, 100));
    expect(stub.accepted).toBe(conn);
  });

  it('logs error answers masked, and never the JWT, feed token, API key or client code', async () => {
    const s = source();
    s.subscribe(SBIN, 1);
    await stub.until(() => stub.subscriptions().length === 1);
    stub.text(
      JSON.stringify({
        correlationID: 'ad00000001',
        errorCode: 'E1002',
        errorMessage: `Limit exceeded for ${CREDS.clientCode} feed ${CREDS.feedToken}`,
      }),
    );
    await stub.until(() => lines.join('').includes('E1002'));
    const logged = lines.join('');
    expect(logged).toContain('Limit exceeded for *** feed ***');
    expect(logged).toContain(new URL(stub.url).host);
    for (const secret of [CREDS.jwt, CREDS.feedToken, CREDS.apiKey, CREDS.clientCode, WRONG_FEED])
      expect(logged).not.toContain(secret);
  });
});
