/**
 * A live scanner (docs/rules/scanner.md#scanner-action) against the loopback Kite Connect stub:
 * refused until an administrator allows live orders; then each symbol is a MARKET order at the
 * broker in the scanner's product, whatever the service's analyzer switch; a SELL alert closes the
 * broker's long position once, even when the alert comes twice with different bodies while the
 * first exit is still working.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KiteOrderStub } from '../helpers/broker-order-stubs.js';
import { startKiteOrders, type OrdersApp } from '../helpers/orders-app.js';
import { ist } from '../helpers/sandbox.js';
import { describeEachDb } from '../helpers/test-app.js';

type Json = Record<string, unknown>;

describeEachDb('a live scanner through Kite', (dialect) => {
  let stub: KiteOrderStub;
  let o: OrdersApp;
  let buyId: number;
  let buyHook: string;
  let sellHook: string;
  /** When the administrator's session was opened (session routes are called at that time). */
  let t0: number;
  const alert = (hook: string, body: Json) =>
    o.t.app.inject({ method: 'POST', url: `/scanner/webhook/${hook}`, payload: body });

  beforeAll(async () => {
    ({ stub, o } = await startKiteOrders(dialect, ['SBIN', 'RELIANCE']));
    await o.setMode(true); // the scanner's own mode decides, not the switch
    const create = async (name: string, action: string) => {
      const res = await o.web('POST', '/scanner/api/scanners', {
        name,
        action,
        exchange: 'NSE',
        product: 'MIS',
        quantity: 5,
        mode: 'live',
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { data: { id: number }; webhook_id: string };
    };
    const buy = await create('live breakout', 'BUY');
    buyId = buy.data.id;
    buyHook = buy.webhook_id;
    const sell = await create('live exit', 'SELL');
    sellHook = sell.webhook_id;
    expect(
      (await o.web('POST', `/scanner/api/scanners/${sell.data.id}/live`, { enabled: true })).statusCode,
    ).toBe(200);
    t0 = o.t.clock.now();
    o.t.clock.set(ist('2026-08-17', '10:00'));
    stub.fillMarketOrders = true;
    stub.prices.set('SBIN', 800);
    stub.prices.set('RELIANCE', 2400);
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });

  it('is refused until an administrator allows live orders; nothing reaches the broker', async () => {
    const res = await alert(buyHook, { stocks: 'SBIN', trigger_prices: '800' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      status: 'error',
      result: 'rejected_live_disabled',
      scanner_id: buyId,
    });
    expect(stub.forms('/orders/regular')).toHaveLength(0);
  });

  it('once allowed, each symbol is a MARKET order at the broker in the scanner’s product', async () => {
    o.t.clock.set(t0);
    const allow = await o.web('POST', `/scanner/api/scanners/${buyId}/live`, { enabled: true });
    o.t.clock.set(ist('2026-08-17', '10:00'));
    expect(allow.statusCode, allow.body).toBe(200);
    const res = await alert(buyHook, { stocks: 'SBIN,RELIANCE', trigger_prices: '800,2400', scan_name: 'b' });
    expect(res.statusCode, res.body).toBe(200);
    const { results } = res.json() as { results: Json[] };
    expect(results.map((r) => [r.symbol, r.status, r.quantity])).toEqual([
      ['SBIN', 'success', 5],
      ['RELIANCE', 'success', 5],
    ]);
    const sent = stub.forms('/orders/regular');
    expect(
      sent.map((f) => [f.tradingsymbol, f.transaction_type, f.order_type, f.product, f.quantity]),
    ).toEqual([
      ['SBIN', 'BUY', 'MARKET', 'MIS', '5'],
      ['RELIANCE', 'BUY', 'MARKET', 'MIS', '5'],
    ]);
    expect(results.map((r) => r.orderid)).toEqual([...stub.orders.keys()]);
  });

  it('a SELL alert closes the broker’s long once, even when a second one comes while the exit works', async () => {
    stub.fillMarketOrders = false; // the exit stays working at the broker
    const first = await alert(sellHook, { stocks: 'SBIN', trigger_prices: '801', scan_name: 'exit 1' });
    expect(first.statusCode, first.body).toBe(200);
    expect((first.json() as { results: Json[] }).results[0]).toMatchObject({
      status: 'success',
      quantity: 5,
    });
    const second = await alert(sellHook, { stocks: 'SBIN', trigger_prices: '802', scan_name: 'exit 2' });
    expect(second.statusCode, second.body).toBe(200);
    expect((second.json() as { results: Json[] }).results[0]).toEqual({
      symbol: 'SBIN',
      status: 'skipped',
      message: 'No open position to exit',
    });
    const sells = stub.forms('/orders/regular').filter((f) => f.transaction_type === 'SELL');
    expect(sells.map((f) => [f.tradingsymbol, f.quantity])).toEqual([['SBIN', '5']]);
  });
});
