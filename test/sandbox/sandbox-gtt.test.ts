/**
 * docs/rules/sandbox.md#gtt-orders through OpenAlgo's GTT API in analyzer mode, on both databases:
 * a single trigger and an OCO fire once on the ticks that reach them, placing their order as
 * placeorder would; the margin of the order a GTT would place is reserved while it is active and
 * released on cancel, expiry or fire; two instances racing fire a GTT once, and an instance killed
 * mid-fire (its transaction never commits) leaves it for the other; bad input is a 400 naming the
 * field with nothing written.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import { SandboxRepository } from '../../src/modules/sandbox/store/sandbox.repository.js';
import { MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { k } from '../helpers/sandbox-api-fixtures.js';
import { describeEachDb } from '../helpers/test-app.js';
import { createTestServices } from '../helpers/test-services.js';

type Row = Record<string, unknown>;
const START = 10_000_000;

describeEachDb('sandbox GTT orders', (dialect) => {
  let h: SandboxHarness;
  afterEach(() => h?.close());

  async function open() {
    // No weekly reset: the validity and expiry cases move the clock past Sundays.
    h = await startSandbox(dialect, { env: { SANDBOX_RESET_DAY: 'never' } });
    await h.at('2026-08-10', '10:00'); // a Monday before the NIFTY contracts' expiry
    await h.tick({
      [k(MINI.SBIN)]: h.quote(800),
      [k(MINI.NIFTY_CE)]: h.quote(120),
    });
  }
  const funds = async () => (await h.ok<{ data: Row }>('funds')).data;
  const book = async () => (await h.ok<{ data: Row[] }>('gttorderbook')).data;
  const orders = async () => (await h.ok<{ data: { orders: Row[] } }>('orderbook')).data.orders;
  const place = (body: Row) => h.api('placegttorder', { strategy: 'gtt', ...body });
  const breakout = {
    trigger_type: 'SINGLE',
    ...MINI.SBIN,
    action: 'BUY',
    product: 'CNC',
    quantity: 10,
    pricetype: 'LIMIT',
    price: 810.5,
    triggerprice_sl: 0,
    triggerprice_tg: 810,
  };

  it('a single trigger reserves its order’s margin, fires once when the LTP reaches it, and places its LIMIT', async () => {
    await open();
    const res = await place(breakout);
    expect(res.statusCode, res.body).toBe(200);
    const { trigger_id: id } = res.json() as { trigger_id: string };
    expect(res.json()).toEqual({ status: 'success', trigger_id: id, mode: 'analyze' });
    // CNC at 1×: 10 × 810.50 reserved.
    expect(await funds()).toMatchObject({ utiliseddebits: 8_105, availablecash: START - 8_105 });
    expect(await book()).toEqual([
      {
        trigger_id: id,
        trigger_type: 'single',
        status: 'active',
        symbol: 'SBIN',
        exchange: 'NSE',
        trigger_prices: [810],
        last_price: 800,
        legs: [{ action: 'BUY', quantity: 10, price: 810.5, pricetype: 'LIMIT', product: 'CNC' }],
        created_at: '2026-08-10 10:00:00',
        updated_at: '2026-08-10 10:00:00',
        expires_at: '2027-08-10 10:00:00',
        strategy: 'gtt',
        margin_blocked: 8_105,
      },
    ]);

    await h.tick({ [k(MINI.SBIN)]: h.quote(809.95) });
    expect(await orders()).toEqual([]);
    await h.tick({ [k(MINI.SBIN)]: h.quote(810) }); // ask 810.05 ≤ 810.50: fills at once
    const placed = await orders();
    expect(placed).toMatchObject([
      {
        action: 'BUY',
        quantity: 10,
        pricetype: 'LIMIT',
        price: 810.5,
        order_status: 'complete',
        strategy: 'gtt',
      },
    ]);
    expect(await book()).toEqual([]); // no longer active
    // The reservation went; the LIMIT's own block (10 × 810.50) moved to the position.
    expect(await funds()).toMatchObject({ utiliseddebits: 8_105, availablecash: START - 8_105 });
    await h.tick({ [k(MINI.SBIN)]: h.quote(815) });
    expect(await orders()).toHaveLength(1); // fired once
    const row = (await h.t.services.sandbox.service.gtts(h.userId))[0]!;
    expect(row).toMatchObject({ status: 'triggered', fired_leg: 'tg', order_id: Number(placed[0]!.orderid) });
  });

  it('an OCO exit on a long option fires the leg reached first and blocks nothing (it reduces the position)', async () => {
    await open();
    expect((await h.place({ ...MINI.NIFTY_CE, side: 'BUY', quantity: 65, product: 'NRML' })).ok).toBe(true);
    const before = (await funds()).utiliseddebits;
    const res = await place({
      trigger_type: 'OCO',
      ...MINI.NIFTY_CE,
      action: 'SELL',
      product: 'NRML',
      quantity: 65,
      triggerprice_sl: 100,
      stoploss: 99.5,
      triggerprice_tg: 150,
      target: 149.5,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await funds()).utiliseddebits).toBe(before);
    expect((await book())[0]).toMatchObject({
      trigger_type: 'two-leg',
      trigger_prices: [100, 150],
      legs: [{ price: 99.5 }, { price: 149.5 }],
      margin_blocked: 0,
    });
    await h.tick({ [k(MINI.NIFTY_CE)]: h.quote(150) }); // bid 149.95 ≥ 149.50
    expect((await orders())[0]).toMatchObject({ action: 'SELL', price: 149.5, order_status: 'complete' });
    const positions = (await h.ok<{ data: Row[] }>('positionbook')).data;
    expect(positions.find((p) => p.symbol === MINI.NIFTY_CE.symbol)).toMatchObject({ quantity: 0 });
    expect((await h.t.services.sandbox.service.gtts(h.userId))[0]).toMatchObject({ fired_leg: 'tg' });
    await h.tick({ [k(MINI.NIFTY_CE)]: h.quote(95) }); // the other leg is dead
    expect(await orders()).toHaveLength(2);
  });

  it('modify replaces the triggers and the reservation; cancel releases it; a year later an active GTT expires', async () => {
    await open();
    const { trigger_id: id } = (await place(breakout)).json() as { trigger_id: string };
    const mod = await h.api('modifygttorder', {
      ...breakout,
      trigger_id: id,
      quantity: 20,
      price: 820,
      triggerprice_tg: 819.5,
    });
    expect(mod.statusCode, mod.body).toBe(200);
    expect(await funds()).toMatchObject({ utiliseddebits: 16_400 });
    expect((await book())[0]).toMatchObject({
      trigger_prices: [819.5],
      legs: [{ quantity: 20, price: 820 }],
    });
    const changed = await h.api('modifygttorder', { ...breakout, trigger_id: id, action: 'SELL' });
    expect(changed.statusCode).toBe(400);
    expect((changed.json() as Row).message).toMatch(/^action cannot be changed on an existing GTT/);

    const cancel = await h.api('cancelgttorder', { trigger_id: id });
    expect(cancel.json()).toEqual({ status: 'success', trigger_id: id, mode: 'analyze' });
    expect(await funds()).toMatchObject({ utiliseddebits: 0, availablecash: START });
    expect((await h.api('cancelgttorder', { trigger_id: id })).statusCode).toBe(400); // no longer active

    await place(breakout);
    await h.at('2027-08-11', '10:00');
    expect(await book()).toEqual([]);
    expect((await h.t.services.sandbox.service.gtts(h.userId))[0]).toMatchObject({ status: 'expired' });
    expect(await funds()).toMatchObject({ utiliseddebits: 0 });
  });

  it('a GTT on a contract expires with it, never fires', async () => {
    await open();
    await place({
      ...breakout,
      ...MINI.NIFTY_CE,
      product: 'NRML',
      quantity: 65,
      price: 130,
      triggerprice_tg: 129.5,
    });
    await h.at('2026-08-19', '10:00');
    expect((await h.t.services.sandbox.service.gtts(h.userId))[0]).toMatchObject({
      status: 'expired',
      reason: 'contract expired',
    });
    expect(await funds()).toMatchObject({ utiliseddebits: 0 });
  });

  describe('exactly once with two instances', () => {
    async function racing() {
      await open();
      const other = await createTestServices(dialect, { db: h.t.db, clock: h.t.clock });
      const feed = new ScriptedFeed();
      await other.services.sandbox.usePriceSource(feed);
      await h.t.services.sandbox.engine.stop(); // the passes below are the only ones
      const { trigger_id: id } = (await place(breakout)).json() as { trigger_id: string };
      const quote = { [k(MINI.SBIN)]: h.quote(810) };
      h.feed.push(quote);
      feed.push(quote);
      return { other, id };
    }

    it('both passes at once place one order', async () => {
      const { other } = await racing();
      try {
        const [a, b] = await Promise.all([
          h.t.services.sandbox.service.runGtts(),
          other.services.sandbox.service.runGtts(),
        ]);
        expect(a.length + b.length).toBe(1);
        expect(await orders()).toHaveLength(1);
      } finally {
        await other.close();
      }
    });

    it('an instance killed mid-fire commits nothing; the other fires it once', async () => {
      const { other, id } = await racing();
      const proto = SandboxRepository.prototype;
      const originals = { insertOrder: proto.insertOrder, insertFilledOrder: proto.insertFilledOrder };
      let killed = 0;
      const kill = () => {
        killed += 1;
        proto.insertOrder = originals.insertOrder;
        proto.insertFilledOrder = originals.insertFilledOrder;
        throw new Error('killed mid-fire');
      };
      proto.insertOrder = kill;
      proto.insertFilledOrder = kill;
      try {
        expect(await h.t.services.sandbox.service.runGtts()).toEqual([]);
        expect(killed).toBe(1);
        // Nothing of that transaction stayed: the GTT is active with its reservation, no order.
        expect((await book())[0]).toMatchObject({ trigger_id: id, status: 'active', margin_blocked: 8_105 });
        expect(await orders()).toEqual([]);
        expect(await other.services.sandbox.service.runGtts()).toHaveLength(1);
        expect(await h.t.services.sandbox.service.runGtts()).toEqual([]);
        expect(await orders()).toHaveLength(1);
      } finally {
        proto.insertOrder = originals.insertOrder;
        proto.insertFilledOrder = originals.insertFilledOrder;
        await other.close();
      }
    });
  });

  describe('bad input: a 400 naming the field, nothing written', () => {
    const cases: [string, Row, RegExp][] = [
      [
        'a stoploss trigger above the LTP',
        { triggerprice_sl: 805, triggerprice_tg: 0 },
        /^triggerprice_sl: 805 must be below the last price 800/,
      ],
      [
        'a target trigger below the LTP',
        { triggerprice_tg: 790 },
        /^triggerprice_tg: 790 must be above the last price 800/,
      ],
      [
        'both triggers on a SINGLE',
        { triggerprice_sl: 790 },
        /^triggerprice_sl: a SINGLE GTT takes exactly one/,
      ],
      ['no trigger on a SINGLE', { triggerprice_tg: 0 }, /^triggerprice_sl: a SINGLE GTT takes exactly one/],
      [
        'an OCO with its stoploss above its target',
        { trigger_type: 'OCO', triggerprice_sl: 820, triggerprice_tg: 810, stoploss: 819, target: 811 },
        /^triggerprice_sl: the stoploss trigger must be below the target/,
      ],
      [
        'an OCO without its target leg price',
        { trigger_type: 'OCO', triggerprice_sl: 790, triggerprice_tg: 810, stoploss: 789 },
        /^target: /,
      ],
      ['an intraday product', { product: 'MIS' }, /^product: GTT supports only CNC/],
      ['a LIMIT without its price', { price: 0 }, /^price: a LIMIT GTT needs/],
      [
        'a trigger off the tick',
        { triggerprice_tg: 810.03 },
        /^triggerprice_tg: 810.03 is not a multiple of the tick size 0.05/,
      ],
      ['a bad trigger type', { trigger_type: 'BRACKET' }, /trigger_type/],
      ['an unknown symbol', { symbol: 'NOPE' }, /NOPE/],
      [
        'a quantity off the lot',
        { ...MINI.NIFTY_CE, product: 'NRML', quantity: 10, price: 130, triggerprice_tg: 129.5 },
        /^quantity: 10 is not a multiple of the lot size 65/,
      ],
    ];
    it.each(cases)('%s', async (_name, patch, message) => {
      await open();
      const res = await place({ ...breakout, ...patch });
      expect(res.statusCode, res.body).toBe(400);
      const m = (res.json() as Row).message;
      // Schema errors answer by field (OpenAlgo's shape); rule errors are one sentence naming it.
      expect(typeof m === 'string' ? m : JSON.stringify(m)).toMatch(message);
      expect(await book()).toEqual([]);
      expect(await funds()).toMatchObject({ utiliseddebits: 0, availablecash: START });
    });

    it('an expired contract, and unknown or another user’s trigger ids', async () => {
      await open();
      await h.at('2026-08-19', '10:00');
      await h.tick({ [k(MINI.NIFTY_CE)]: h.quote(120) });
      const late = await place({
        ...breakout,
        ...MINI.NIFTY_CE,
        product: 'NRML',
        quantity: 65,
        price: 130,
        triggerprice_tg: 129.5,
      });
      expect(late.statusCode).toBe(400);
      expect((late.json() as Row).message).toBe('symbol: NIFTY18AUG2626000CE expired on 2026-08-18');
      for (const trigger_id of ['999', 'GTT-123', 0]) {
        const res = await h.api('cancelgttorder', { trigger_id });
        expect(res.statusCode, String(trigger_id)).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, String(trigger_id)).toBeLessThan(500);
      }
      expect((await h.api('cancelgttorder', { trigger_id: '999' })).json()).toMatchObject({
        message: "No GTT with trigger_id '999'",
      });
    });

    it('a semi-automatic key may not place, modify or cancel a GTT (they are not queued for approval)', async () => {
      await open();
      const { trigger_id } = (await place(breakout)).json() as { trigger_id: string };
      await h.t.services.auth.apiKeys.setOrderMode(1, 'semi_auto');
      for (const [call, body] of [
        ['placegttorder', breakout],
        ['modifygttorder', { ...breakout, trigger_id }],
        ['cancelgttorder', { trigger_id }],
      ] as const) {
        const res = await h.api(call, { strategy: 'gtt', ...body });
        expect(res.statusCode, call).toBe(403);
        expect((res.json() as Row).message, call).toMatch(/GTT order is not allowed in Semi-Auto mode/);
      }
      expect(await book()).toHaveLength(1); // the book is still readable
      await h.t.services.auth.apiKeys.setOrderMode(1, 'auto');
    });

    it('too little money: the reservation is refused with its figures', async () => {
      await open();
      const res = await place({ ...breakout, quantity: 20_000 });
      expect(res.statusCode).toBe(400);
      expect((res.json() as Row).message).toMatch(
        /^Insufficient funds: required margin ₹16210000.00, available ₹10000000.00/,
      );
      expect(await book()).toEqual([]);
    });
  });
});
