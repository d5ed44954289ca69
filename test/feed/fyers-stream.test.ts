/**
 * The confirmed parts of Fyers' data socket v3 (src/modules/feed/sources/fyers-stream-decode.ts):
 * the request frames byte for byte as fyers-apiv3's `data_ws.py` packs them (each expected frame
 * is written out here from the SDK's `struct.pack` calls, not from the encoder), the `hsm_key` of
 * the access token, the authentication answer, fytoken → HSM topic, and data messages (written out
 * byte for byte as `__datafeed_resp` reads them); then the tick source (src/modules/feed/sources/
 * fyers-stream.ts) against a loopback stub whose encoder follows the SDK's reading
 * (test/helpers/fyers-stream-stub.ts): login, topics per mode, snapshot and update ticks with the
 * price scale, depth, acknowledgements, reconnecting, a refused login, and the log.
 */
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FeedInstrument, FeedMode, Tick } from '../../src/modules/feed/feed.types.js';
import { FyersStreamSource } from '../../src/modules/feed/sources/fyers-stream.js';
import { FyersStreamStub } from '../helpers/fyers-stream-stub.js';
import {
  FYERS_HSM_URL,
  hsmDepth,
  hsmScripTick,
  readHsmData,
  FYERS_SYMBOL_TOKEN_URL,
  hsmAck,
  hsmAuth,
  hsmFrameType,
  hsmFullMode,
  hsmKeyOf,
  hsmResume,
  hsmTopic,
  hsmTopics,
  readHsmAuth,
} from '../../src/modules/feed/sources/fyers-stream-decode.js';
import { captureStream } from '../helpers/test-app.js';

const ascii = (s: string) => [...Buffer.from(s, 'ascii')];
const now = Date.UTC(2026, 7, 18, 4, 45, 0);
const jwt = (payload: object) =>
  ['eyJhbGciOiJIUzI1NiJ9', Buffer.from(JSON.stringify(payload)).toString('base64url'), 'sig'].join('.');

describe('Fyers data socket v3 (HSM): the confirmed frames', () => {
  it('names the SDK’s endpoints', () => {
    expect(FYERS_HSM_URL).toBe('wss://socket.fyers.in/hsm/v1-5/prod');
    expect(FYERS_SYMBOL_TOKEN_URL).toBe('https://api-t1.fyers.in/data/symbol-token');
  });

  it('authenticates with the hsm_key claim, not the token, and refuses an expired token', () => {
    const token = `XC4EOD67IM-100:${jwt({ hsm_key: 'f1e2d3c4b5a6', exp: now / 1000 + 3600 })}`;
    expect(hsmKeyOf(token, now)).toEqual({ key: 'f1e2d3c4b5a6' });
    expect(hsmKeyOf(jwt({ hsm_key: 'k', exp: now / 1000 - 1 }), now)).toEqual({
      error: 'access token expired',
    });
    expect(hsmKeyOf(jwt({ exp: now / 1000 + 1 }), now)).toEqual({ error: 'no hsm_key claim' });
    expect(hsmKeyOf('XC4EOD67IM-100:opaque', now)).toEqual({ error: 'not a JWT' });
    // buffer_size - 2 = 18 + len(key) + len(source) - 2; ReqType 1; FieldCount 4.
    expect([...hsmAuth('abc', 'algodesk')]).toEqual([
      ...[0, 27, 1, 4],
      ...[1, 0, 3, ...ascii('abc')],
      ...[2, 0, 1, ...ascii('P')],
      ...[3, 0, 1, 1],
      ...[4, 0, 8, ...ascii('algodesk')],
    ]);
  });

  it('packs full mode and channel resume for channel 11 as the SDK does (length 0)', () => {
    const bits = [0, 0, 0, 0, 0, 0, 0x08, 0x00]; // 1 << 11, uint64 BE
    expect([...hsmFullMode()]).toEqual([0, 0, 12, 2, 1, 0, 8, ...bits, 2, 0, 1, 70]);
    expect([...hsmResume()]).toEqual([0, 0, 8, 1, 1, 0, 8, ...bits]);
  });

  it('subscribes and unsubscribes topics: count, then length-prefixed ASCII names, then the channel', () => {
    const a = 'sf|nse_cm|3045';
    const b = 'dp|nse_fo|43651';
    const list = [0, 2, a.length, ...ascii(a), b.length, ...ascii(b)];
    expect([...hsmTopics(4, [a, b])]).toEqual([
      0,
      2 + 3 + list.length + 4,
      4,
      2,
      1,
      0,
      list.length,
      ...list,
      2,
      0,
      1,
      11,
    ]);
    expect(hsmTopics(5, [a])[2]).toBe(5);
    expect([...hsmAck(300)]).toEqual([0, 9, 3, 1, 1, 0, 4, 0, 0, 1, 44]);
  });

  it('reads the authentication answer: K and the ack count', () => {
    // As __auth_resp reads it: [len][type 1][count] field 1 `K`, field 2 uint32 ack_count.
    const answer = Buffer.from([0, 13, 1, 2, 1, 0, 1, ...ascii('K'), 2, 0, 4, 0, 0, 0, 25]);
    expect(hsmFrameType(answer)).toBe(1);
    expect(readHsmAuth(answer)).toEqual({ ok: true, ackCount: 25 });
    expect(readHsmAuth(Buffer.from([0, 6, 1, 1, 1, 0, 1, ...ascii('E')]))).toEqual({
      ok: false,
      ackCount: 0,
    });
    expect(readHsmAuth(Buffer.from([0, 1, 1]))).toBeUndefined();
  });

  it('derives SymbolUpdate and DepthUpdate topics from a fytoken (segment, then the exchange token)', () => {
    expect(hsmTopic('sf', '10100000003045')).toBe('sf|nse_cm|3045');
    expect(hsmTopic('dp', '101126112943651')).toBe('dp|nse_fo|43651');
    expect(hsmTopic('sf', '1120260130444208')).toBe('sf|mcx_fo|444208');
    expect(hsmTopic('sf', '99990000001')).toBeUndefined();
    expect(hsmTopic('sf', 'NSE:SBIN-EQ')).toBeUndefined();
  });
});

const i32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n, 0);
  return [...b];
};
const NONE = -2147483648;

describe('Fyers data socket v3 (HSM): data messages', () => {
  it('reads a snapshot (83) and an update (85) as __datafeed_resp does, and scales prices', () => {
    const topic = 'sf|nse_cm|3045';
    // 21 data_val fields: ltp 81235 (precision 2, multiplier 1), volume, ltt, feed time, …
    const values = [81235, 123456, 1787114100, 1787114101, 500, 300, 81230, 81240, 10, 400000, 350000];
    values.push(81020, NONE, 80450, 81500, NONE, NONE, 89000, 72000, 80600, 80510);
    const snap = [83, 0x02, 0x01, topic.length, ...ascii(topic), 21, ...values.flatMap(i32)];
    const trailer = [0, 0, 0, 1, 2, 6, ...ascii('nse_cm'), 4, ...ascii('3045'), 7, ...ascii('SBIN-EQ')];
    const body = [6, 0, 0, 0, 9, 0, 1, ...snap, ...trailer];
    const data = readHsmData(Buffer.from([0, body.length, ...body]));
    expect(data?.messageNumber).toBe(9);
    const p = data!.packets[0]!;
    expect(p).toMatchObject({ kind: 'snapshot', topicId: 0x0102, topic, multiplier: 1, precision: 2 });
    if (p.kind !== 'snapshot') throw new Error('not a snapshot');
    expect(p.values[12]).toBeUndefined();
    const state = { topic, values: p.values, multiplier: 1, precision: 2 };
    expect(hsmScripTick(state, 0)).toEqual({
      ...{ ltp: 812.35, ltt: 1787114100_000, timestamp: 1787114101_000, open: 806, high: 815, low: 804.5 },
      ...{ close: 805.1, volume: 123456, average_price: 810.2, last_quantity: 10 },
      ...{ total_buy_quantity: 400000, total_sell_quantity: 350000 },
    });
    // An update: the ltp and volume changed, the rest "no value"; two packets in one message.
    const upd = [85, 0x02, 0x01, 2, ...i32(81300), ...i32(124000)];
    const body2 = [6, 0, 0, 1, 0, 0, 2, ...upd, 85, 9, 9, 1, ...i32(NONE)];
    const two = readHsmData(Buffer.from([0, body2.length, ...body2]));
    expect(two?.messageNumber).toBe(256);
    expect(two?.packets).toEqual([
      { kind: 'update', topicId: 0x0102, values: [81300, 124000] },
      { kind: 'update', topicId: 0x0909, values: [undefined] },
    ]);
    // A multiplier other than 1 divides too (currency: precision 4, multiplier 100 in the SDK's formula).
    expect(hsmScripTick({ topic, values: [8_345_250_000], multiplier: 100, precision: 4 }, 5)?.ltp).toBe(
      8345.25,
    );
    expect(readHsmData(Buffer.from([0, 3, 1, 0, 0]))).toBeUndefined();
  });

  it('reads depthvalue: five bid and ask prices (scaled), then sizes, then orders', () => {
    const values = [
      ...[81230, 81225, 81220, 81215, 81210, 81240, 81245, 81250, 81255, 81260],
      ...[500, 1200, 300, 50, 10, 300, 60, 70, 80, 90],
      ...[3, 7, 2, 1, 1, 2, 1, 4, 5, 6],
    ];
    const depth = hsmDepth({ topic: 'dp|nse_cm|3045', values, multiplier: 1, precision: 2 });
    expect(depth.buy[0]).toEqual({ price: 812.3, quantity: 500, orders: 3 });
    expect(depth.buy[1]).toEqual({ price: 812.25, quantity: 1200, orders: 7 });
    expect(depth.sell[0]).toEqual({ price: 812.4, quantity: 300, orders: 2 });
    expect(depth.sell[4]).toEqual({ price: 812.6, quantity: 90, orders: 6 });
  });
});

const HSM_KEY = 'hsmK3yq81Zp';
const TOKEN = jwt({ hsm_key: HSM_KEY, exp: 4_102_444_800, fy_id: 'XQ71234' });
const APP_ID = 'FYAPPq7Zx2K-100';
const SBIN: FeedInstrument = {
  ...{ symbol: 'SBIN', exchange: 'NSE', brsymbol: 'NSE:SBIN-EQ', brexchange: 'NSE_CM' },
  token: '10100000003045',
};
const CE: FeedInstrument = {
  ...{ symbol: 'NIFTY28NOV2624000CE', exchange: 'NFO', brsymbol: 'NSE:NIFTY26NOV24000CE' },
  ...{ brexchange: 'NSE_FO', token: '101126112943651' },
};
const NIFTY: FeedInstrument = {
  ...{ symbol: 'NIFTY', exchange: 'NSE_INDEX', brsymbol: 'NSE:NIFTY50-INDEX', brexchange: 'NSE_CM' },
  token: '101000000026000',
};
type Got = { key: string; mode: FeedMode; tick: Tick };

describe('Fyers data socket as a tick source, against a stub of the SDK’s protocol', () => {
  let stub: FyersStreamStub;
  const { lines, stream } = captureStream();
  const logger = pino({ level: 'trace' }, stream);
  const sources: FyersStreamSource[] = [];
  const source = (url = stub.url, pingMs?: number) => {
    const s = new FyersStreamSource({
      ...{ appId: APP_ID, accessToken: TOKEN, url, logger },
      ...(pingMs ? { pingMs } : {}),
      reconnect: { initialDelayMs: 20, maxDelayMs: 100 },
      now: () => now,
    });
    sources.push(s);
    return s;
  };
  const collect = (s: FyersStreamSource) => {
    const got: Got[] = [];
    s.onTick((key, mode, tick) => got.push({ key, mode, tick }));
    return got;
  };

  beforeAll(async () => {
    stub = await FyersStreamStub.start({ hsmKey: HSM_KEY, ackCount: 2 });
    stub.setMarket('sf|nse_cm|3045', {
      fields: {
        ...{ ltp: 81235, vol_traded_today: 123456, last_traded_time: 1787114100 },
        ...{ exch_feed_time: 1787114101, open_price: 80600, high_price: 81500, low_price: 80450 },
        ...{ prev_close_price: 80510, avg_trade_price: 81020 },
      },
      ...{ multiplier: 1, precision: 2, symbol: 'SBIN-EQ' },
    });
    stub.setMarket('dp|nse_cm|3045', {
      fields: { bid_price1: 81230, bid_size1: 500, bid_order1: 3, ask_price1: 81240, ask_size1: 300 },
      ...{ multiplier: 1, precision: 2, symbol: 'SBIN-EQ' },
    });
    stub.setMarket('sf|nse_fo|43651', {
      fields: { ltp: 12345, prev_close_price: 10860, vol_traded_today: 9876500 },
      ...{ multiplier: 1, precision: 2, symbol: 'NIFTY26NOV24000CE' },
    });
  });
  afterEach(() => Promise.all(sources.splice(0).map((s) => s.stop())));
  afterAll(() => stub.close());

  it('logs in with the hsm_key and full mode before any subscription; Authorization is app id:token', async () => {
    const s = source();
    expect([s.name, s.maxSubscriptions]).toEqual(['fyers', 2500]);
    s.start();
    s.subscribe(SBIN, 1);
    await stub.until(() => stub.topics().length === 1, 3000, 'the subscription');
    const mine = stub.received.filter((r) => r.connection === stub.accepted);
    expect(mine.map((r) => r.type)).toEqual([1, 12, 4]);
    expect(mine[0]!.bytes).toEqual(hsmAuth(HSM_KEY, 'algodesk'));
    expect(mine[1]!.bytes).toEqual(hsmFullMode());
    expect(mine[2]!.bytes).toEqual(hsmTopics(4, ['sf|nse_cm|3045']));
    expect(stub.authorizations.at(-1)).toBe(`${APP_ID}:${TOKEN}`);
    expect(s.status).toBe('live');
  });

  it('subscribes SymbolUpdate for LTP and Quote, adds DepthUpdate for Depth, skips indices', async () => {
    const s = source();
    s.subscribe(SBIN, 3);
    s.subscribe(CE, 2);
    s.subscribe(NIFTY, 1);
    await stub.until(() => stub.topics().length === 3, 3000, 'three topics');
    expect(stub.topics()).toEqual(['dp|nse_cm|3045', 'sf|nse_cm|3045', 'sf|nse_fo|43651']);
    s.unsubscribe(SBIN, 3);
    await stub.until(() => stub.topics().length === 1, 3000, 'the unsubscription');
    expect(stub.topics()).toEqual(['sf|nse_fo|43651']);
    expect(lines.join('')).toContain('not subscribed');
  });

  it('makes a Quote tick of the snapshot (prices scaled) and merges each update into it', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(SBIN, 2);
    await stub.until(() => got.length === 1, 3000, 'the snapshot tick');
    expect(got[0]).toMatchObject({ key: 'NSE:SBIN', mode: 2 });
    expect(got[0]!.tick).toMatchObject({ ltp: 812.35, open: 806, high: 815, low: 804.5, close: 805.1 });
    expect(got[0]!.tick).toMatchObject({ volume: 123456, average_price: 810.2, ltt: 1787114100_000 });
    stub.update('sf|nse_cm|3045', { ltp: 81300, vol_traded_today: 124000 });
    await stub.until(() => got.length === 2, 3000, 'the update tick');
    expect(got[1]!.tick).toMatchObject({ ltp: 813, volume: 124000, close: 805.1, average_price: 810.2 });
  });

  it('gives Depth ticks: the SymbolUpdate’s fields with the book, each update merged', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(SBIN, 3);
    await stub.until(() => got.some((g) => g.tick.depth), 3000, 'a depth tick');
    const d = got.find((g) => g.tick.depth)!;
    expect(d.mode).toBe(3);
    expect(d.tick.ltp).toBe(813); // the stub's market after the Quote test's update
    expect(d.tick.close).toBe(805.1);
    expect(d.tick.depth?.buy[0]).toEqual({ price: 812.3, quantity: 500, orders: 3 });
    expect(d.tick.depth?.sell[0]).toEqual({ price: 812.4, quantity: 300, orders: null });
    stub.update('dp|nse_cm|3045', { bid_price1: 81235, bid_size1: 700 });
    await stub.until(() => got.at(-1)?.tick.depth?.buy[0]?.price === 812.35, 3000, 'the book update');
    expect(got.at(-1)!.tick.depth?.buy[0]).toEqual({ price: 812.35, quantity: 700, orders: 3 });
    stub.update('sf|nse_cm|3045', { ltp: 81310 });
    await stub.until(() => got.at(-1)?.tick.ltp === 813.1, 3000, 'the ltp update');
    expect(got.at(-1)!.mode).toBe(3);
    expect(got.at(-1)!.tick.depth?.buy[0]?.price).toBe(812.35);
  });

  it('acknowledges every ack_count (2) data messages with the number of the last', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(CE, 1);
    await stub.until(() => got.length === 1, 3000, 'the snapshot');
    for (const ltp of [12350, 12355, 12360]) stub.update('sf|nse_fo|43651', { ltp });
    await stub.until(() => stub.stats().acks.length === 2, 3000, 'two acks');
    expect(stub.stats().messages).toBe(4);
    expect(stub.stats().acks).toEqual([2, 4]);
    expect(got.map((g) => [g.mode, g.tick.ltp])).toEqual([
      [1, 123.45],
      [1, 123.5],
      [1, 123.55],
      [1, 123.6],
    ]);
  });

  it('sends the SDK’s binary keep-alive (00 01 0b) at its interval once logged in', async () => {
    const s = source(stub.url, 20);
    s.subscribe(CE, 1);
    await stub.until(() => stub.stats().pings >= 2, 3000, 'two keep-alives');
    expect(stub.stats().requests).toEqual([1, 12, 4]); // the pings are not requests
  });

  it('reconnects after a drop, logs in again and subscribes everything again', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(SBIN, 2);
    s.subscribe(CE, 2);
    await stub.until(() => got.length === 2, 3000, 'two snapshots');
    const first = stub.accepted;
    stub.drop();
    await stub.until(() => stub.accepted > first && stub.topics().length === 2, 3000, 'the resubscription');
    expect(stub.stats().requests.slice(0, 3)).toEqual([1, 12, 4]);
    await stub.until(() => got.length === 4, 3000, 'the new snapshots');
    expect(
      got
        .slice(2)
        .map((g) => g.key)
        .sort(),
    ).toEqual(['NFO:NIFTY28NOV2624000CE', 'NSE:SBIN']);
  });

  it('stays down without retrying when the login is refused, and never logs the token or key', async () => {
    const other = await FyersStreamStub.start({ hsmKey: 'another-key' });
    try {
      const s = source(other.url);
      s.subscribe(SBIN, 1);
      await other.until(() => other.refusals === 1, 3000, 'the refusal');
      await new Promise((r) => setTimeout(r, 150));
      expect(other.accepted).toBe(1);
      expect(other.topics(1)).toEqual([]);
      expect(s.status).toBe('down');
      expect(lines.join('')).toContain('authentication refused');
    } finally {
      await other.close();
    }
    const log = lines.join('');
    expect(log).not.toContain(TOKEN);
    expect(log).not.toContain(TOKEN.split('.')[1]);
    expect(log).not.toContain(HSM_KEY);
  });
});
