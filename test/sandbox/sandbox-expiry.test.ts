/**
 * docs/rules/sandbox.md#expiry-settlement on the real app and database: at the close of an
 * expiry day (NFO's session ends 15:40 IST) options settle at intrinsic value against the
 * underlying's close (NSE_INDEX:NIFTY), futures at that close, each as a complete order with its
 * trade and event; working orders on the contract are cancelled "contract expired"; nothing moves
 * before the close; the work is done once however often and on however many instances it runs;
 * without the underlying's close the position waits. Every case ends with the ledger check
 * (helpers/sandbox.ts `close`).
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../src/platform/db/database.js';
import { importContract } from '../helpers/contracts.js';
import { marketFixture } from '../helpers/market-fixtures.js';
import { MINI, miniKiteContract, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { describeEachDb } from '../helpers/test-app.js';

/** NIFTY's weekly expiry of the snapshot (a Tuesday) and the monthly one of the future. */
const EXPIRY = '2026-08-18';
const FUT_EXPIRY = '2026-08-25';
const START = 10_000_000;
const CE = MINI.NIFTY_CE; // NIFTY 18-Aug-2026 26000 CE, lot 65
const PE = { exchange: 'NFO', symbol: 'NIFTY18AUG2626000PE' } as const;
const FUT = MINI.NIFTY_FUT; // NIFTY 25-Aug-2026 future, lot 65
const INDEX = MINI.NIFTY_INDEX;
const k = (i: { exchange: string; symbol: string }) => `${i.exchange}:${i.symbol}`;
type Row = Record<string, unknown>;

/** The mini master plus the 26000 PE of the same expiry (a real row of the Kite snapshot). */
function contractWithPut(): Buffer {
  const fo = readFileSync(marketFixture('zerodha', 'kite_instruments_NFO_BFO_2026-08-18.csv'), 'utf8');
  const put = fo.split('\n').find((l) => l.split(',')[2] === 'NIFTY2681826000PE');
  if (!put) throw new Error('NIFTY2681826000PE not in the snapshot');
  return Buffer.concat([miniKiteContract(), Buffer.from(`${put}\n`)]);
}

describeEachDb('sandbox expiry settlement', (dialect: Dialect) => {
  let h: SandboxHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  const open = async () => {
    const s = (h = await startSandbox(dialect));
    await importContract(s.t, 'zerodha', contractWithPut());
    return s;
  };
  /** A quote with no spread: a MARKET order fills at exactly `ltp`. */
  const flat = (s: SandboxHarness, ltp: number) => s.quote(ltp, { bid: ltp, ask: ltp });
  const funds = async (s: SandboxHarness) =>
    (await s.ok<{ data: { availablecash: number; utiliseddebits: number; m2mrealized: number } }>('funds'))
      .data;
  const position = async (s: SandboxHarness, i: { symbol: string }) =>
    (await s.ok<{ data: Row[] }>('positionbook')).data.find((p) => p.symbol === i.symbol);
  const trades = async (s: SandboxHarness, i: { symbol: string }) =>
    (await s.ok<{ data: Row[] }>('tradebook')).data.filter((t) => t.symbol === i.symbol);
  const orders = async (s: SandboxHarness, i: { symbol: string }) =>
    (await s.ok<{ data: { orders: Row[] } }>('orderbook')).data.orders.filter((o) => o.symbol === i.symbol);
  const settlements = async (s: SandboxHarness, i: { symbol: string }) =>
    (await orders(s, i)).filter((o) => String(o.rejection_reason).startsWith('expiry settlement'));

  describe('options settle at intrinsic value against the underlying’s close', () => {
    it('a long ITM call: sold at close − strike, its premium and margin back with the profit', async () => {
      const s = await open();
      await s.at(EXPIRY, '10:00');
      await s.tick({ [k(CE)]: flat(s, 150), [k(INDEX)]: flat(s, 26_150) });
      expect((await s.place({ ...CE, side: 'BUY', quantity: 65, product: 'NRML' })).ok).toBe(true);
      // 65 × ₹150 = ₹9,750 of premium blocked (option buys at 1×).
      expect(await funds(s)).toMatchObject({ availablecash: START - 9_750, utiliseddebits: 9_750 });
      await s.at(EXPIRY, '15:30');
      await s.tick({ [k(INDEX)]: flat(s, 26_212.35) }); // the index's close
      await s.at(EXPIRY, '15:40');
      // Intrinsic 26,212.35 − 26,000 = ₹212.35; 65 × 212.35 = ₹13,802.75; P&L 13,802.75 − 9,750.
      const settled = await settlements(s, CE);
      expect(settled).toHaveLength(1);
      expect(settled[0]).toMatchObject({
        action: 'SELL',
        quantity: 65,
        pricetype: 'MARKET',
        product: 'NRML',
        order_status: 'complete',
        average_price: 212.35,
        rejection_reason: 'expiry settlement: intrinsic value ₹212.35 (NIFTY close ₹26212.35, strike ₹26000)',
      });
      const sell = (await trades(s, CE)).find((t) => t.action === 'SELL');
      expect(sell).toMatchObject({
        orderid: settled[0]!.orderid,
        quantity: 65,
        average_price: 212.35,
        trade_value: 13_802.75,
      });
      expect(await position(s, CE)).toMatchObject({ quantity: 0, realized_pnl: 4_052.75 });
      expect(await funds(s)).toMatchObject({
        availablecash: START + 4_052.75,
        utiliseddebits: 0,
        m2mrealized: 4_052.75,
      });
      const events = await s.t.services.sandbox.service.repo.orderEvents(Number(settled[0]!.orderid));
      expect(events.map((e) => [e.from_status, e.to_status, e.detail])).toEqual([
        [null, 'complete', settled[0]!.rejection_reason],
      ]);
      // The next day the flat position leaves the book.
      await s.at('2026-08-19', '09:00');
      expect(await position(s, CE)).toBeUndefined();
    });

    it('a short OTM put expires worthless: bought back at zero, the premium kept as P&L', async () => {
      const s = await open();
      await s.at(EXPIRY, '10:00');
      await s.tick({ [k(PE)]: flat(s, 80), [k(INDEX)]: flat(s, 26_150) });
      expect((await s.place({ ...PE, side: 'SELL', quantity: 65, product: 'NRML' })).ok).toBe(true);
      expect((await funds(s)).utiliseddebits).toBeGreaterThan(0);
      await s.at(EXPIRY, '15:35');
      await s.tick({ [k(INDEX)]: flat(s, 26_212.35) }); // max(0, 26,000 − 26,212.35) = 0
      await s.at(EXPIRY, '15:40');
      const settled = await settlements(s, PE);
      expect(settled).toHaveLength(1);
      expect(settled[0]).toMatchObject({ action: 'BUY', quantity: 65, average_price: 0 });
      expect(settled[0]!.rejection_reason).toBe(
        'expiry settlement: intrinsic value ₹0 (NIFTY close ₹26212.35, strike ₹26000)',
      );
      expect((await trades(s, PE)).find((t) => t.action === 'BUY')).toMatchObject({
        price: 0,
        trade_value: 0,
      });
      // The premium, 65 × ₹80 = ₹5,200, is the realised P&L; the margin is released.
      expect(await position(s, PE)).toMatchObject({ quantity: 0, realized_pnl: 5_200 });
      expect(await funds(s)).toMatchObject({
        availablecash: START + 5_200,
        utiliseddebits: 0,
        m2mrealized: 5_200,
      });
    });
  });

  it('a future settles at the underlying’s close on its own expiry day', async () => {
    const s = await open();
    await s.at(FUT_EXPIRY, '10:00');
    await s.tick({ [k(FUT)]: flat(s, 26_100), [k(INDEX)]: flat(s, 26_120) });
    expect((await s.place({ ...FUT, side: 'BUY', quantity: 65, product: 'NRML' })).ok).toBe(true);
    await s.at(FUT_EXPIRY, '15:30');
    await s.tick({ [k(INDEX)]: flat(s, 26_250.5) });
    await s.at(FUT_EXPIRY, '15:39');
    expect(await settlements(s, FUT)).toEqual([]);
    await s.at(FUT_EXPIRY, '15:40');
    // 65 × (26,250.5 − 26,100) = ₹9,782.5.
    const settled = await settlements(s, FUT);
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({
      action: 'SELL',
      quantity: 65,
      average_price: 26_250.5,
      rejection_reason: 'expiry settlement: final settlement price ₹26250.5 (NIFTY close ₹26250.5)',
    });
    expect(await position(s, FUT)).toMatchObject({ quantity: 0, realized_pnl: 9_782.5 });
    expect(await funds(s)).toMatchObject({
      availablecash: START + 9_782.5,
      utiliseddebits: 0,
      m2mrealized: 9_782.5,
    });
  });

  it('a working order on the expiring contract is cancelled "contract expired", its margin released', async () => {
    const s = await open();
    await s.at(EXPIRY, '10:00');
    await s.tick({ [k(CE)]: flat(s, 150) });
    const limit = await s.place({
      ...CE,
      side: 'BUY',
      quantity: 65,
      product: 'NRML',
      priceType: 'LIMIT',
      price: 100,
    });
    expect(limit.order.status).toBe('open');
    expect(await funds(s)).toMatchObject({ availablecash: START - 6_500, utiliseddebits: 6_500 });
    await s.at(EXPIRY, '15:40'); // no underlying quote: a cancel needs none
    const o = await s.t.services.sandbox.service.order(1, Number(limit.order.orderId));
    expect([o.status, o.reason]).toEqual(['cancelled', 'contract expired']);
    const events = await s.t.services.sandbox.service.repo.orderEvents(Number(limit.order.orderId));
    expect(events.at(-1)).toMatchObject({
      from_status: 'open',
      to_status: 'cancelled',
      detail: 'contract expired',
    });
    expect(await funds(s)).toMatchObject({ availablecash: START, utiliseddebits: 0, m2mrealized: 0 });
    expect(await trades(s, CE)).toEqual([]);
  });

  describe('exactly once', () => {
    it('nothing happens before the close; ticks after it settle once', async () => {
      const s = await open();
      await s.at(EXPIRY, '10:00');
      await s.tick({ [k(CE)]: flat(s, 150), [k(INDEX)]: flat(s, 26_150) });
      await s.place({ ...CE, side: 'BUY', quantity: 65, product: 'NRML' });
      const limit = await s.place({
        ...CE,
        side: 'BUY',
        quantity: 65,
        product: 'NRML',
        priceType: 'LIMIT',
        price: 100,
      });
      await s.at(EXPIRY, '15:30');
      await s.tick({ [k(INDEX)]: flat(s, 26_212.35) });
      await s.at(EXPIRY, '15:39');
      expect(await position(s, CE)).toMatchObject({ quantity: 65 });
      expect((await s.t.services.sandbox.service.order(1, Number(limit.order.orderId))).status).toBe('open');
      await s.at(EXPIRY, '15:40');
      await s.t.services.sandbox.engine.tick();
      await s.at(EXPIRY, '15:45');
      await s.t.services.sandbox.jobs.run();
      expect(await settlements(s, CE)).toHaveLength(1);
      expect(await trades(s, CE)).toHaveLength(2);
      expect(await funds(s)).toMatchObject({ availablecash: START + 4_052.75, utiliseddebits: 0 });
    });

    it('two instances on one database running the jobs at once settle once', async () => {
      const first = await open();
      await first.at(EXPIRY, '10:00');
      await first.tick({ [k(CE)]: flat(first, 150), [k(PE)]: flat(first, 80) });
      await first.place({ ...CE, side: 'BUY', quantity: 65, product: 'NRML' });
      await first.place({ ...PE, side: 'SELL', quantity: 65, product: 'NRML' });
      await first.place({
        ...CE,
        side: 'BUY',
        quantity: 65,
        product: 'NRML',
        priceType: 'LIMIT',
        price: 100,
      });
      const second = await startSandbox(dialect, { restartOf: first });
      first.t.clock.set(Date.parse(`${EXPIRY}T15:30:00+05:30`));
      for (const x of [first, second]) x.feed.push({ [k(INDEX)]: flat(x, 26_212.35) });
      first.t.clock.set(Date.parse(`${EXPIRY}T15:40:00+05:30`));
      await Promise.all([
        first.t.services.sandbox.jobs.run(),
        second.t.services.sandbox.jobs.run(),
        first.t.services.sandbox.jobs.run(),
        second.t.services.sandbox.jobs.run(),
      ]);
      await first.t.app.close();
      h = second;
      expect(await settlements(second, CE)).toHaveLength(1);
      expect(await settlements(second, PE)).toHaveLength(1);
      expect(
        (await orders(second, CE)).filter((o) => o.rejection_reason === 'contract expired'),
      ).toHaveLength(1);
      // ₹4,052.75 on the call, ₹5,200 on the put.
      expect(await funds(second)).toMatchObject({
        availablecash: START + 9_252.75,
        utiliseddebits: 0,
        m2mrealized: 9_252.75,
      });
    });
  });

  it('without the underlying’s close the position waits, and settles on a later tick once it arrives', async () => {
    const s = await open();
    await s.at(EXPIRY, '10:00');
    await s.tick({ [k(CE)]: flat(s, 150) }); // the index has no quote all day
    await s.place({ ...CE, side: 'BUY', quantity: 65, product: 'NRML' });
    await s.at(EXPIRY, '15:40');
    await s.at(EXPIRY, '15:41');
    expect(await position(s, CE)).toMatchObject({ quantity: 65 });
    expect(await settlements(s, CE)).toEqual([]);
    const waits = s.t.logs.filter((l) => l.includes('expiry settlement waits for the underlying'));
    expect(waits).toHaveLength(1); // logged once, not per tick
    await s.tick({ [k(INDEX)]: flat(s, 25_980) }); // OTM at that close: the call is worth nothing
    await s.at(EXPIRY, '15:45');
    const settled = await settlements(s, CE);
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({ action: 'SELL', average_price: 0 });
    // The premium paid, 65 × ₹150, is lost.
    expect(await position(s, CE)).toMatchObject({ quantity: 0, realized_pnl: -9_750 });
    expect(await funds(s)).toMatchObject({ availablecash: START - 9_750, utiliseddebits: 0 });
  });

  it('a contract past its expiry day takes no order: 400 naming the expiry, nothing written', async () => {
    const s = await open();
    await s.at('2026-08-19', '10:00');
    await s.tick({ [k(CE)]: flat(s, 1), [k(INDEX)]: flat(s, 26_100) });
    const res = await s.api('placeorder', {
      strategy: 'late',
      symbol: CE.symbol,
      exchange: CE.exchange,
      action: 'BUY',
      quantity: 65,
      product: 'NRML',
      pricetype: 'MARKET',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(
      'symbol NIFTY18AUG2626000CE expired on 2026-08-18: the contract no longer trades',
    );
    expect(await orders(s, CE)).toEqual([]);
  });
});
