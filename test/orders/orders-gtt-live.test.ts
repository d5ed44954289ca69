/**
 * OpenAlgo's GTT API in live mode (docs/rules/orders.md#gtt-orders): the loopback Kite and Upstox
 * stubs (test/helpers/broker-gtt-stub-*.ts, written from the brokers' documentation) receive the
 * documented GTT requests — Kite's form with `condition` and `orders` as JSON, Upstox's v3 body
 * with its ENTRY rule — the trigger ids come back as strings, the book lists the broker's active
 * GTTs with algodesk's symbols, and a trigger on the wrong side of the broker's last price is a 400
 * before any GTT call.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KiteOrderStub, UpstoxOrderStub } from '../helpers/broker-order-stubs.js';
import { startUpstoxOrderStub } from '../helpers/broker-order-stubs.js';
import {
  UPSTOX_CREDS,
  startKiteOrders,
  startOrdersApp,
  upstoxContract,
  type OrdersApp,
} from '../helpers/orders-app.js';
import { describeEachDb } from '../helpers/test-app.js';

type Json = Record<string, unknown>;
const SBIN_KEY = 'NSE_EQ|INE062A01020';
const stop = {
  strategy: 'live gtt',
  trigger_type: 'SINGLE',
  symbol: 'SBIN',
  exchange: 'NSE',
  action: 'SELL',
  product: 'CNC',
  quantity: 10,
  pricetype: 'LIMIT',
  price: 779.5,
  triggerprice_sl: 780,
  triggerprice_tg: 0,
};

describeEachDb('GTT orders in live mode through Kite', (dialect) => {
  let stub: KiteOrderStub;
  let o: OrdersApp;
  beforeAll(async () => {
    ({ stub, o } = await startKiteOrders(dialect, ['SBIN']));
    await o.setMode(false);
    stub.gtt.lastPrices.set('NSE:SBIN', 800);
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });

  it('a single stoploss: Kite receives the documented form; the id comes back as a string', async () => {
    const res = await o.api('placegttorder', stop);
    expect(res.statusCode, res.body).toBe(200);
    const id = (res.json() as { trigger_id: string }).trigger_id;
    expect(res.json()).toEqual({ status: 'success', trigger_id: expect.stringMatching(/^[0-9]+$/) });
    const [sent] = stub.gtt.requests('POST');
    expect(sent!.form.type).toBe('single');
    expect(sent!.condition).toEqual({
      exchange: 'NSE',
      tradingsymbol: 'SBIN',
      trigger_values: [780],
      last_price: 800,
    });
    expect(sent!.orders).toEqual([
      {
        exchange: 'NSE',
        tradingsymbol: 'SBIN',
        transaction_type: 'SELL',
        quantity: 10,
        order_type: 'LIMIT',
        product: 'CNC',
        price: 779.5,
      },
    ]);

    const book = await o.api('gttorderbook', {});
    expect(book.statusCode, book.body).toBe(200);
    expect((book.json() as { data: Json[] }).data).toContainEqual(
      expect.objectContaining({
        trigger_id: id,
        trigger_type: 'single',
        status: 'active',
        symbol: 'SBIN',
        exchange: 'NSE',
        trigger_prices: [780],
        legs: [expect.objectContaining({ action: 'SELL', quantity: 10, price: 779.5, product: 'CNC' })],
      }),
    );

    const mod = await o.api('modifygttorder', {
      ...stop,
      trigger_id: id,
      triggerprice_sl: 775,
      price: 774.5,
    });
    expect(mod.statusCode, mod.body).toBe(200);
    const put = stub.gtt.requests('PUT').at(-1)!;
    expect(put.path).toBe(`/gtt/triggers/${id}`);
    expect(put.condition).toMatchObject({ trigger_values: [775] });

    const cancel = await o.api('cancelgttorder', { trigger_id: id });
    expect(cancel.json()).toEqual({ status: 'success', trigger_id: id });
    expect(stub.gtt.requests('DELETE').at(-1)!.path).toBe(`/gtt/triggers/${id}`);
  });

  it('an OCO goes as a two-leg trigger: [stoploss, target] with each leg’s limit', async () => {
    const res = await o.api('placegttorder', {
      ...stop,
      trigger_type: 'OCO',
      triggerprice_sl: 780,
      stoploss: 779.5,
      triggerprice_tg: 850,
      target: 849.5,
    });
    expect(res.statusCode, res.body).toBe(200);
    const sent = stub.gtt.requests('POST').at(-1)!;
    expect(sent.form.type).toBe('two-leg');
    expect(sent.condition).toMatchObject({ trigger_values: [780, 850], last_price: 800 });
    expect((sent.orders as Json[]).map((l) => [l.transaction_type, l.price])).toEqual([
      ['SELL', 779.5],
      ['SELL', 849.5],
    ]);
  });

  it('a trigger on the wrong side of Kite’s last price is a 400 and no GTT request', async () => {
    const before = stub.gtt.received.length;
    const res = await o.api('placegttorder', { ...stop, triggerprice_sl: 805 });
    expect(res.statusCode).toBe(400);
    expect((res.json() as Json).message).toBe(
      'triggerprice_sl: 805 must be below the last price 800 (a stoploss trigger fires when the price falls to it)',
    );
    expect(stub.gtt.received.length).toBe(before);
  });
});

describeEachDb('GTT orders in live mode through Upstox', (dialect) => {
  let stub: UpstoxOrderStub;
  let o: OrdersApp;
  beforeAll(async () => {
    stub = await startUpstoxOrderStub(UPSTOX_CREDS);
    stub.symbols.set(SBIN_KEY, 'SBIN');
    o = await startOrdersApp(dialect, {
      broker: 'upstox',
      stubUrl: stub.url,
      contract: upstoxContract([SBIN_KEY]),
    });
    await o.setMode(false);
    stub.gtt.lastPrices.set(SBIN_KEY, 800);
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });

  it('a single stoploss: Upstox receives its v3 body with a BELOW entry rule', async () => {
    const res = await o.api('placegttorder', stop);
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json() as Json).trigger_id).toMatch(/^GTT-/);
    expect(stub.gtt.bodies('/v3/order/gtt/place').at(-1)).toEqual({
      type: 'SINGLE',
      quantity: 10,
      product: 'D',
      instrument_token: SBIN_KEY,
      transaction_type: 'SELL',
      rules: [{ strategy: 'ENTRY', trigger_type: 'BELOW', trigger_price: 780 }],
    });
  });

  it('an OCO is refused: every multi-leg Upstox GTT opens a position first', async () => {
    const res = await o.api('placegttorder', {
      ...stop,
      trigger_type: 'OCO',
      stoploss: 779.5,
      triggerprice_tg: 850,
      target: 849.5,
    });
    expect(res.statusCode).toBe(400);
    expect((res.json() as Json).message).toMatch(/^Upstox's GTT has no exit-only OCO/);
  });
});
