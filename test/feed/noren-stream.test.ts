/**
 * The Noren OMS WebSocket as a tick source (src/modules/feed/sources/noren-stream.ts) against a
 * loopback stub of the documented protocol (test/helpers/noren-stream-stub.ts; NorenApi-Py README,
 * Shoonya's "Web Socket API" page, Flattrade's Pi Connect pages): the connect request before any
 * subscription, touchline and depth requests per mode, the `tk`/`dk` snapshot with `tf`/`df`
 * partials merged into it, the heartbeat, reconnecting, a refused session, and the log.
 */
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FeedInstrument, FeedMode, Tick } from '../../src/modules/feed/feed.types.js';
import {
  NOREN_STREAM_URLS,
  NorenStreamSource,
  type NorenStreamOptions,
} from '../../src/modules/feed/sources/noren-stream.js';
import { NorenStreamStub } from '../helpers/noren-stream-stub.js';
import { captureStream } from '../helpers/test-app.js';

const CREDS = {
  userId: 'FA12345',
  token: 'a3f9c2e1b7d04e5f8a6b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f',
};
const now = Date.UTC(2026, 7, 18, 4, 45, 0);

/** Rows of the Noren symbol files as the importer maps them (brexchange is the file's `Exchange`). */
function inst(
  symbol: string,
  exchange: string,
  brsymbol: string,
  brexchange: string,
  token: string,
): FeedInstrument {
  return { symbol, exchange, brsymbol, brexchange, token };
}
const SBIN = inst('SBIN', 'NSE', 'SBIN-EQ', 'NSE', '3045');
const NIFTY = inst('NIFTY', 'NSE_INDEX', 'Nifty 50', 'NSE', '26000');
const NIFTY_CE = inst('NIFTY28NOV2624000CE', 'NFO', 'NIFTY28NOV26C24000', 'NFO', '43651');

type Got = { key: string; mode: FeedMode; tick: Tick };

describe('Noren OMS WebSocket source against a stub of the documented protocol', () => {
  let stub: NorenStreamStub;
  const { lines, stream } = captureStream();
  const logger = pino({ level: 'trace' }, stream);
  const sources: NorenStreamSource[] = [];
  const source = (over: Partial<NorenStreamOptions> = {}) => {
    const s = new NorenStreamSource({
      name: 'shoonya',
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
  const collect = (s: NorenStreamSource) => {
    const got: Got[] = [];
    s.onTick((key, mode, tick) => got.push({ key, mode, tick }));
    return got;
  };
  const settle = () => new Promise((r) => setTimeout(r, 60));
  /** The requests of a connection in brief: `t k`. */
  const brief = (id: number) =>
    stub.messagesOf(id).map((m) => (m.k === undefined ? String(m.t) : `${String(m.t)} ${String(m.k)}`));

  beforeAll(async () => {
    stub = await NorenStreamStub.start(CREDS);
    stub.setMarket('NSE|3045', {
      ...{ ts: 'SBIN-EQ', pp: '2', ti: '0.05', ls: '1', lp: '801.25', pc: '0.31', o: '799.00', h: '803.00' },
      ...{ l: '798.10', c: '798.75', v: '1234567', ap: '800.50', bp1: '801.20', bq1: '500', sp1: '801.25' },
      ...{ sq1: '300', ft: String((now - 1000) / 1000), ltq: '10', tbq: '400000', tsq: '350000' },
      ...{ bp2: '801.15', bq2: '1200', bo1: '3', bo2: '7', so1: '2', sp2: '801.30', sq2: '60', so2: '1' },
    });
    stub.setMarket('NSE|26000', {
      ts: 'Nifty 50',
      lp: '24850.15',
      o: '24750.00',
      h: '24900.00',
      l: '24705.50',
      c: '24800.00',
    });
    stub.setMarket('NFO|43651', { lp: '123.45', oi: '4567800', v: '9876500', c: '108.60' });
  });
  afterEach(() => Promise.all(sources.splice(0).map((s) => s.stop())));
  afterAll(() => stub.close());

  it('connects on the first subscribe and sends the connect request before any subscription', async () => {
    expect(NOREN_STREAM_URLS).toEqual({
      shoonya: 'wss://api.shoonya.com/NorenWSTP/',
      flattrade: 'wss://piconnect.flattrade.in/PiConnectWSTp/',
    });
    expect(() => new NorenStreamSource({ name: 'kotak', ...CREDS, logger })).toThrow(
      /no Noren stream endpoint/,
    );
    const s = source();
    expect([s.name, s.maxSubscriptions, s.status]).toEqual(['shoonya', 1000, 'down']);
    const before = stub.accepted;
    s.start();
    await settle();
    expect(stub.accepted).toBe(before);
    s.subscribe(SBIN, 1);
    await stub.until(() => stub.subscriptions().length === 1, 3000, 'the subscription');
    const msgs = stub.messagesOf(stub.accepted);
    expect(msgs[0]).toEqual({
      t: 'c',
      uid: CREDS.userId,
      actid: CREDS.userId,
      source: 'API',
      susertoken: CREDS.token,
    });
    expect(msgs[1]).toEqual({ t: 't', k: 'NSE|3045' });
    expect(s.status).toBe('live');
  });

  it('subscribes LTP and Quote as one touchline request and Depth as one depth request', async () => {
    const s = source();
    s.subscribe(SBIN, 3);
    s.subscribe(NIFTY, 1);
    s.subscribe(NIFTY_CE, 2);
    await stub.until(() => stub.subscriptions().length === 3, 3000, 'three subscriptions');
    expect(stub.subscriptions()).toEqual(['d:NSE|3045', 't:NFO|43651', 't:NSE|26000']);
    expect(brief(stub.accepted)).toEqual(['c', 't NSE|26000#NFO|43651', 'd NSE|3045']);
  });

  it('makes a Quote tick of the tk snapshot and merges each tf partial into it', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(NIFTY_CE, 2);
    s.subscribe(NIFTY, 1);
    await stub.until(() => got.length === 2, 3000, 'the two snapshots');
    const ce = got.find((g) => g.key === 'NFO:NIFTY28NOV2624000CE')!;
    expect(ce).toStrictEqual({
      key: 'NFO:NIFTY28NOV2624000CE',
      mode: 2,
      tick: {
        ...{ ltp: 123.45, ltt: null, timestamp: now, open: null, high: null, low: null, close: 108.6 },
        ...{ volume: 9_876_500, average_price: null, last_quantity: null, total_buy_quantity: null },
        ...{ total_sell_quantity: null, oi: 4_567_800 },
      },
    });
    expect(got.find((g) => g.key === 'NSE_INDEX:NIFTY')).toMatchObject({
      mode: 1,
      tick: { ltp: 24850.15, open: 24750, high: 24900, low: 24705.5, close: 24800 },
    });
    // Only the changed fields travel; the rest of the tick comes from the kept snapshot.
    stub.update('NFO|43651', { lp: '125.00', v: '9900000' });
    await stub.until(() => got.length === 3, 3000, 'the partial');
    expect(got[2]!.tick).toMatchObject({ ltp: 125, volume: 9_900_000, oi: 4_567_800, close: 108.6 });
    stub.update('NFO|43651', { oi: '4600000' });
    await stub.until(() => got.length === 4, 3000, 'the second partial');
    expect(got[3]!.tick).toMatchObject({ ltp: 125, volume: 9_900_000, oi: 4_600_000 });
  });

  it('gives five levels of depth with orders from dk, and merges a df that moves one level', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(SBIN, 3);
    await stub.until(() => got.length === 1, 3000, 'the depth snapshot');
    expect(got[0]).toStrictEqual({
      key: 'NSE:SBIN',
      mode: 3,
      tick: {
        ...{ ltp: 801.25, ltt: null, timestamp: now - 1000, open: 799, high: 803, low: 798.1, close: 798.75 },
        ...{ volume: 1_234_567, average_price: 800.5, last_quantity: 10, total_buy_quantity: 400_000 },
        ...{ total_sell_quantity: 350_000, oi: null },
        depth: {
          buy: [
            { price: 801.2, quantity: 500, orders: 3 },
            { price: 801.15, quantity: 1200, orders: 7 },
          ],
          sell: [
            { price: 801.25, quantity: 300, orders: 2 },
            { price: 801.3, quantity: 60, orders: 1 },
          ],
        },
      },
    });
    stub.update('NSE|3045', { bq1: '650', bp3: '801.10', bq3: '80', bo3: '1' });
    await stub.until(() => got.length === 2, 3000, 'the depth partial');
    expect(got[1]!.tick.depth!.buy).toEqual([
      { price: 801.2, quantity: 650, orders: 3 },
      { price: 801.15, quantity: 1200, orders: 7 },
      { price: 801.1, quantity: 80, orders: 1 },
    ]);
    expect(got[1]!.tick.ltp).toBe(801.25);
  });

  it('moves a re-mode from touchline to depth (u, then d) and unsubscribes depth with ud', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(SBIN, 2);
    await stub.until(() => stub.subscriptions().join() === 't:NSE|3045');
    const conn = stub.accepted;
    s.subscribe(SBIN, 3);
    s.unsubscribe(SBIN, 2);
    await stub.until(() => stub.subscriptions().join() === 'd:NSE|3045');
    s.unsubscribe(SBIN, 2); // not the mode held: nothing
    s.unsubscribe(SBIN, 3);
    await stub.until(() => stub.subscriptions().length === 0);
    await settle();
    expect(brief(conn)).toEqual(['c', 't NSE|3045', 'u NSE|3045', 'd NSE|3045', 'ud NSE|3045']);
    const before = got.length;
    stub.update('NSE|3045', { lp: '802.00' });
    await settle();
    expect(got).toHaveLength(before);
  });

  it('sends {"t":"h"} every heartbeatMs', async () => {
    const s = source({ heartbeatMs: 25 });
    s.subscribe(SBIN, 1);
    await stub.until(() => s.status === 'live');
    await stub.until(() => stub.heartbeats() >= 3, 3000, 'three heartbeats');
    expect(stub.messagesOf(stub.accepted).filter((m) => m.t === 'h')[0]).toEqual({ t: 'h' });
  });

  it('reconnects after a drop: connects again, then subscribes everything at its kind', async () => {
    const s = source();
    const got = collect(s);
    s.subscribe(SBIN, 3);
    s.subscribe(NIFTY, 2);
    await stub.until(() => stub.subscriptions().length === 2);
    const first = stub.accepted;
    stub.drop();
    await stub.until(
      () => stub.accepted === first + 1 && stub.subscriptions().length === 2,
      3000,
      'the reconnect',
    );
    expect(brief(first + 1)).toEqual(['c', 't NSE|26000', 'd NSE|3045']);
    const before = got.length;
    stub.update('NSE|26000', { lp: '24860.00' });
    await stub.until(() => got.length === before + 1);
    expect(got.at(-1)).toMatchObject({ key: 'NSE_INDEX:NIFTY', mode: 2, tick: { ltp: 24860, close: 24800 } });
  });

  it('is down without retrying when the connect is answered Not_Ok', async () => {
    const refused = stub.refusals;
    const accepted = stub.accepted;
    const s = source({ token: 'expired-session-token-000' });
    s.subscribe(SBIN, 1);
    await stub.until(() => stub.refusals === refused + 1, 3000, 'the refusal');
    await stub.until(() => s.status === 'down');
    await new Promise((r) => setTimeout(r, 200)); // ten times the first backoff
    s.subscribe(NIFTY, 1);
    await settle();
    expect(stub.accepted).toBe(accepted + 1);
    expect(stub.messagesOf(accepted + 1).map((m) => m.t)).toEqual(['c']);
    expect(s.status).toBe('down');
    expect(lines.join('')).toContain('connect refused');
  });

  it('speaks the …WSAPI dialect (t:"a", accesstoken, ak) when asked', async () => {
    const api = await NorenStreamStub.start({ ...CREDS, dialect: 'accesstoken' });
    try {
      const s = source({ name: 'flattrade', url: api.url, dialect: 'accesstoken' });
      const got = collect(s);
      api.setMarket('NSE|3045', { lp: '801.25' });
      s.subscribe(SBIN, 1);
      await api.until(() => got.length === 1, 3000, 'a tick');
      expect(api.messagesOf(api.accepted)[0]).toEqual({
        ...{ t: 'a', uid: CREDS.userId, actid: CREDS.userId, source: 'API', accesstoken: CREDS.token },
      });
      expect(got[0]).toMatchObject({ key: 'NSE:SBIN', mode: 1, tick: { ltp: 801.25 } });
      expect(s.name).toBe('flattrade');
    } finally {
      await Promise.all(sources.splice(0).map((x) => x.stop()));
      await api.close();
    }
  });

  it('never logs the session token or the user id', async () => {
    const s = source();
    s.subscribe(SBIN, 1);
    await stub.until(() => stub.subscriptions().length === 1);
    const logged = lines.join('');
    expect(logged).toContain(new URL(stub.url).host);
    expect(logged).toContain('session accepted');
    for (const secret of [CREDS.token, CREDS.userId, 'expired-session-token-000'])
      expect(logged).not.toContain(secret);
  });
});
