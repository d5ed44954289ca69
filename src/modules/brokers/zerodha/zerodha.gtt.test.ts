/**
 * Kite GTT through the Zerodha adapter against a loopback Kite Connect v3 whose GTT routes are
 * written from Kite's GTT documentation (test/helpers/broker-gtt-stub-kite.ts): the exact form
 * fields of place and modify, delete, the active-only book, MARKET legs as protected limits on
 * the tick grid, and failures (Kite's envelope, stale tokens, refusals before any I/O).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { BrokerAdapterOptions } from '../http/order-transport.js';
import { KITE_GTT_MARKET_PROTECTION, kiteProtectedPrice } from './zerodha.gtt.js';
import {
  closeAfterEach,
  loadQuoteInstruments,
  type KiteSet,
} from '../../../../test/helpers/broker-quote-fixtures.js';
import { kiteAdapterOn, kiteGtt } from '../../../../test/helpers/kite-adapter.js';

// Distinctive, so any leak into a message, a raw body or a log line is caught.
const CREDS = { apiKey: 'kiteKEYg7Tt2', apiSecret: 'kiteSECRETg9Tv4L', accessToken: 'kiteTOKENgtt8Wq1' };

let K: KiteSet;
beforeAll(async () => {
  ({ K } = await loadQuoteInstruments());
});
closeAfterEach();

async function setup(opts: Partial<BrokerAdapterOptions> = {}) {
  const rig = await kiteAdapterOn(CREDS, opts);
  rig.stub.tokens.set('SBIN', 779521);
  return rig;
}

const gttFor = kiteGtt;

const kiteOrder = (o: Record<string, unknown>) => ({
  exchange: 'NSE',
  tradingsymbol: 'SBIN',
  transaction_type: 'BUY',
  quantity: 1,
  order_type: 'LIMIT',
  product: 'CNC',
  ...o,
});

describe('place: POST /gtt/triggers with the form Kite documents', () => {
  it('a single GTT: type, condition and orders as JSON strings, the trigger id back as a string', async () => {
    const { stub, adapter, session } = await setup();

    const result = await adapter.placeGtt(gttFor(K.sbin, { quantity: 10 }), session);

    const [req] = stub.gtt.requests();
    expect(stub.gtt.requests()).toHaveLength(1);
    expect(req!.method).toBe('POST');
    expect(req!.path).toBe('/gtt/triggers');
    expect(req!.form).toEqual({
      type: 'single',
      condition: '{"exchange":"NSE","tradingsymbol":"SBIN","trigger_values":[790.5],"last_price":812.35}',
      orders:
        '[{"exchange":"NSE","tradingsymbol":"SBIN","transaction_type":"BUY","quantity":10,' +
        '"order_type":"LIMIT","product":"CNC","price":790}]',
    });
    const id = [...stub.gtt.triggers.keys()][0]!;
    expect(result).toEqual({ ok: true, data: { triggerId: String(id) }, roundTripMs: expect.any(Number) });
  });

  it('sends X-Kite-Version: 3, the exact token credential and a form content type', async () => {
    const { stub, adapter, session } = await setup();

    await adapter.placeGtt(gttFor(K.sbin), session);

    const http = stub.requests.find((r) => r.path === '/gtt/triggers')!;
    expect(stub.credentialOf(http)).toBe('exact');
    expect(http.headers['x-kite-version']).toBe('3');
    expect(http.headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('a two-leg (OCO) GTT: [stoploss, target] triggers, each leg its own limit, the same side', async () => {
    const { stub, adapter, session } = await setup();
    const oco = gttFor(K.fut, {
      type: 'two-leg',
      action: 'SELL',
      product: 'NRML',
      quantity: 30,
      triggers: [54800, 56200.5],
      prices: [54790, 56210],
      lastPrice: 55420.2,
    });

    const result = await adapter.placeGtt(oco, session);

    const leg = {
      exchange: 'NFO',
      tradingsymbol: 'BANKNIFTY26AUGFUT',
      transaction_type: 'SELL',
      quantity: 30,
    };
    const legs = [
      { ...leg, order_type: 'LIMIT', product: 'NRML', price: 54790 },
      { ...leg, order_type: 'LIMIT', product: 'NRML', price: 56210 },
    ];
    const condition = {
      exchange: 'NFO',
      tradingsymbol: 'BANKNIFTY26AUGFUT',
      trigger_values: [54800, 56200.5],
      last_price: 55420.2,
    };
    expect(stub.gtt.requests()[0]!.form).toEqual({
      type: 'two-leg',
      condition: JSON.stringify(condition),
      orders: JSON.stringify(legs),
    });
    expect(result).toMatchObject({ ok: true, data: { triggerId: expect.stringMatching(/^\d+$/) } });
  });
});

describe('MARKET legs go as protected LIMITs: the trigger ± 2 %, on the tick grid, away from the trigger', () => {
  it('the buffer is 2 %', () => {
    expect(KITE_GTT_MARKET_PROTECTION).toBe(0.02);
  });

  it.each([
    // trigger, side, tick, price: BUY above (rounded up), SELL below (rounded down)
    [812.3, 'BUY', 0.05, 828.55], // 828.546 → up to 828.55
    [790.5, 'SELL', 0.05, 774.65], // 774.69 → down to 774.65
    [100, 'BUY', 0.05, 102], // exactly on the grid stays
    [780, 'SELL', 0.05, 764.4], // 764.4 exactly (no float drift to 764.35)
    [101, 'BUY', 1, 104], // 103.02 → 104 on a rupee tick
    [101, 'SELL', 1, 98], // 98.98 → 98
    [83.4525, 'BUY', 0.0025, 85.1225], // currency tick: 85.12155 → 85.1225
    [0.05, 'SELL', 0.05, 0.05], // never below one tick
  ] as const)('%f %s on tick %f → %f', (trigger, side, tick, price) => {
    expect(kiteProtectedPrice(trigger, side, tick)).toBe(price);
  });

  it('a single MARKET BUY is sent as LIMIT at the protected price', async () => {
    const { stub, adapter, session } = await setup();

    const gtt = gttFor(K.sbin, { priceType: 'MARKET', triggers: [830.3], prices: [0] });
    const result = await adapter.placeGtt(gtt, session);

    expect(result.ok).toBe(true);
    expect(stub.gtt.requests()[0]!.orders).toEqual([kiteOrder({ price: 846.95 })]); // 846.906 → 846.95
  });

  it('a MARKET two-leg SELL protects each leg around its own trigger', async () => {
    const { stub, adapter, session } = await setup();

    const gtt = gttFor(K.sbin, {
      type: 'two-leg',
      action: 'SELL',
      priceType: 'MARKET',
      triggers: [790.5, 850],
      prices: [0, 0],
    });
    await adapter.placeGtt(gtt, session);

    expect(stub.gtt.requests()[0]!.orders).toEqual([
      kiteOrder({ transaction_type: 'SELL', price: 774.65 }),
      kiteOrder({ transaction_type: 'SELL', price: 833 }),
    ]);
  });

  it('a MARKET GTT without a tick size is refused before any I/O', async () => {
    const { stub, adapter, session } = await setup();

    const result = await adapter.placeGtt(gttFor(K.sbin, { priceType: 'MARKET', tickSize: 0 }), session);

    expect(result).toMatchObject({
      ok: false,
      httpStatus: 400,
      message: expect.stringContaining('tick size'),
    });
    expect(stub.requests).toHaveLength(0);
  });
});

describe('modify and delete: PUT and DELETE /gtt/triggers/:id', () => {
  it('modify sends the whole new form to the trigger’s path and the book shows it', async () => {
    const { stub, adapter, session } = await setup();
    const placed = await adapter.placeGtt(gttFor(K.sbin), session);
    const id = placed.ok ? placed.data.triggerId : '';

    const result = await adapter.modifyGtt(
      id,
      gttFor(K.sbin, { quantity: 4, triggers: [785], prices: [784.5], lastPrice: 811 }),
      session,
    );

    expect(result).toEqual({ ok: true, data: { triggerId: id }, roundTripMs: expect.any(Number) });
    const put = stub.gtt.requests('PUT');
    expect(put.map((r) => r.path)).toEqual([`/gtt/triggers/${id}`]);
    expect(put[0]!.form).toEqual({
      type: 'single',
      condition: '{"exchange":"NSE","tradingsymbol":"SBIN","trigger_values":[785],"last_price":811}',
      orders: JSON.stringify([kiteOrder({ quantity: 4, price: 784.5 })]),
    });
    const book = await adapter.gttBook(session);
    expect(book.ok && book.data.map((g) => [g.triggerId, g.triggers, g.legs[0]!.quantity])).toEqual([
      [id, [785], 4],
    ]);
  });

  it('delete sends no body, answers the id, and the GTT leaves the book', async () => {
    const { stub, adapter, session } = await setup();
    const placed = await adapter.placeGtt(gttFor(K.sbin), session);
    const id = placed.ok ? placed.data.triggerId : '';

    const result = await adapter.cancelGtt(id, session);

    expect(result).toEqual({ ok: true, data: { triggerId: id }, roundTripMs: expect.any(Number) });
    expect(stub.gtt.requests('DELETE')).toEqual([
      { method: 'DELETE', path: `/gtt/triggers/${id}`, form: {} },
    ]);
    expect(stub.gtt.triggers.get(Number(id))!.status).toBe('deleted');
    expect(await adapter.gttBook(session)).toMatchObject({ ok: true, data: [] });
  });

  it('modifying a GTT that is no longer active passes Kite’s refusal through', async () => {
    const { stub, adapter, session } = await setup();
    const id = stub.gtt.add({ status: 'triggered' });

    const result = await adapter.modifyGtt(String(id), gttFor(K.sbin), session);

    expect(result).toMatchObject({
      ok: false,
      httpStatus: 400,
      message: expect.stringContaining('triggered'),
    });
  });
});

describe('book: GET /gtt/triggers, only the active GTTs, mapped to neutral rows', () => {
  it('keeps active single and two-leg GTTs; ids as strings; Kite’s IST timestamps as they came', async () => {
    const { stub, adapter, session } = await setup();
    const single = stub.gtt.add({ created_at: '2026-08-17 10:01:02', updated_at: '2026-08-17 10:05:00' });
    for (const status of ['triggered', 'disabled', 'expired', 'cancelled', 'rejected', 'deleted'])
      stub.gtt.add({ status });
    const sell = { transaction_type: 'SELL', exchange: 'NSE', tradingsymbol: 'RAIN', product: 'CNC' };
    const oco = stub.gtt.add({
      type: 'two-leg',
      expires_at: '2027-01-01 12:00:00',
      condition: { exchange: 'NSE', tradingsymbol: 'RAIN', trigger_values: [102, 103.7], last_price: 102.6 },
      orders: [
        { ...sell, order_type: 'LIMIT', quantity: 1, price: 101.9, result: null },
        { ...sell, order_type: 'LIMIT', quantity: 1, price: 103.8, result: null },
      ],
    });

    const book = await adapter.gttBook(session);

    expect(book).toEqual({
      ok: true,
      roundTripMs: expect.any(Number),
      data: [
        {
          triggerId: String(single),
          type: 'single',
          status: 'active',
          brsymbol: 'INFY',
          brexchange: 'NSE',
          triggers: [702],
          lastPrice: 798,
          legs: [{ action: 'BUY', quantity: 1, price: 702, priceType: 'LIMIT', product: 'CNC' }],
          createdAt: '2026-08-17 10:01:02',
          updatedAt: '2026-08-17 10:05:00',
          expiresAt: '2027-08-18 09:15:00',
        },
        {
          triggerId: String(oco),
          type: 'two-leg',
          status: 'active',
          brsymbol: 'RAIN',
          brexchange: 'NSE',
          triggers: [102, 103.7],
          lastPrice: 102.6,
          legs: [
            { action: 'SELL', quantity: 1, price: 101.9, priceType: 'LIMIT', product: 'CNC' },
            { action: 'SELL', quantity: 1, price: 103.8, priceType: 'LIMIT', product: 'CNC' },
          ],
          createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
          updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
          expiresAt: '2027-01-01 12:00:00',
        },
      ],
    });
  });

  it('states the instrument token when Kite’s condition carries one', async () => {
    const { adapter, session } = await setup();
    await adapter.placeGtt(gttFor(K.sbin), session);

    const book = await adapter.gttBook(session);

    expect(book.ok && book.data[0]).toMatchObject({ brsymbol: 'SBIN', token: '779521', lastPrice: 812.35 });
  });
});
