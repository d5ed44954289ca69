/**
 * Issue 5, "Read and manage APIs" (continued): one user's sandbox is invisible to another, and
 * `POST /sandbox/reset` empties the books. Shapes and manage rules: sandbox-api.test.ts.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { asBrowser, describeEachDb, login } from '../helpers/test-app.js';

import type { Row, Funds } from '../helpers/sandbox-api-fixtures.js';
import { START, k, marketOpen, optionLimit, modifyBody } from '../helpers/sandbox-api-fixtures.js';

describeEachDb("sandbox API: one user never sees or touches another user's orders", (dialect) => {
  let h: SandboxHarness;
  let bKey = '';
  beforeEach(async () => {
    h = await startSandbox(dialect);
    await marketOpen(h);
    const b = await h.t.services.auth.users.create({ username: 'bob', password: 'bob horse battery' });
    bKey = (await h.t.services.auth.apiKeys.regenerate(b.id)).apikey;
  });
  afterEach(() => h?.close());
  const asB = (path: string, body: Row = {}) => h.api(path, body, bKey);

  it("user B sees empty books and gets a 404 for A's order that leaks nothing of it", async () => {
    const id = (await optionLimit(h)).order.orderId;
    await h.place({ ...MINI.SBIN, side: 'BUY', quantity: 10 });
    const aBefore = { orders: await h.ok('orderbook'), funds: await h.ok('funds') };
    const book = (await asB('orderbook')).json();
    expect(book.data.orders).toEqual([]);
    expect(book.data.statistics.total_buy_orders).toBe(0);
    for (const path of ['tradebook', 'positionbook']) expect((await asB(path)).json().data).toEqual([]);
    expect((await asB('funds')).json().data).toMatchObject({ availablecash: START, utiliseddebits: 0 });
    for (const [path, body] of [
      ['orderstatus', { orderid: id }],
      ['cancelorder', { orderid: id }],
      ['modifyorder', modifyBody(id, { price: 90 })],
      ['modifyorder', modifyBody(id, { symbol: 'SBIN', exchange: 'NSE' })],
    ] as const) {
      const res = await asB(path, body);
      expect(res.statusCode, path).toBe(404);
      expect(res.json(), path).toMatchObject({ status: 'error', message: `Order ${id} not found` });
      expect(res.body, path).not.toMatch(/NIFTY|"data"|"open"|100/);
    }
    expect((await asB('cancelallorder')).json().canceled_orders).toEqual([]);
    expect((await asB('closeposition')).json().message).toBe('No open positions to close');
    expect({ orders: await h.ok('orderbook'), funds: await h.ok('funds') }).toEqual(aBefore);
    // Another user's order answers exactly like an order that does not exist.
    const unknown = String(Number(id) + 1000);
    const mine = (await h.api('orderstatus', { orderid: unknown })).json();
    expect(mine).toEqual({
      ...(await asB('orderstatus', { orderid: id })).json(),
      message: `Order ${unknown} not found`,
    });
  });

  it("POST /sandbox/reset by user B resets only B's account", async () => {
    const id = (await optionLimit(h)).order.orderId;
    const b = await login(h.t, 'bob', 'bob horse battery');
    const res = await h.t.app.inject({ method: 'POST', url: '/sandbox/reset', headers: asBrowser(b) });
    expect(res.statusCode).toBe(200);
    expect((await h.ok<{ data: Row }>('orderstatus', { orderid: id })).data.order_status).toBe('open');
  });
});

describeEachDb('POST /sandbox/reset empties the books and restores ₹1,00,00,000', (dialect) => {
  let h: SandboxHarness;
  beforeEach(async () => {
    h = await startSandbox(dialect);
    await marketOpen(h);
  });
  afterEach(() => h?.close());
  const reset = (headers: Record<string, string>) =>
    h.t.app.inject({ method: 'POST', url: '/sandbox/reset', headers });

  it('orders, trades, positions and holdings are gone; funds start again; the engine drops its book', async () => {
    await h.place({ ...MINI.SBIN, side: 'BUY', quantity: 10, product: 'CNC' });
    h.t.clock.set(Date.parse('2026-01-06T09:30:00+05:30'));
    const quotes = { SBIN: h.quote(810, { high: 815, low: 800 }), CE: h.quote(120, { high: 140, low: 95 }) };
    await h.tick({ [k(MINI.SBIN)]: quotes.SBIN, [k(MINI.NIFTY_CE)]: quotes.CE });
    await h.at('2026-01-06', '09:30');
    await h.place({ ...MINI.SBIN, side: 'SELL', quantity: 100 }); // an open MIS short
    await optionLimit(h);
    expect((await h.ok<{ data: { holdings: unknown[] } }>('holdings')).data.holdings).toHaveLength(1);
    expect(h.t.services.sandbox.engine.size).toBe(1);

    const res = await reset(asBrowser(await login(h.t))); // a new day: the old session has expired
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'success', message: 'Sandbox account reset' });
    expect((await h.ok<{ data: { orders: unknown[] } }>('orderbook')).data.orders).toEqual([]);
    expect((await h.ok<{ data: unknown[] }>('tradebook')).data).toEqual([]);
    expect((await h.ok<{ data: unknown[] }>('positionbook')).data).toEqual([]);
    expect((await h.ok<{ data: { holdings: unknown[] } }>('holdings')).data.holdings).toEqual([]);
    const funds = (await h.ok<{ data: Funds }>('funds')).data;
    expect(funds).toEqual({
      availablecash: START,
      collateral: 0,
      m2mrealized: 0,
      m2munrealized: 0,
      utiliseddebits: 0,
      charges: 0,
      netrealized: 0,
    });
    await h.t.services.sandbox.engine.whenIdle();
    expect(h.t.services.sandbox.engine.size).toBe(0);
  });

  it('without the CSRF token (403) or a session (401) nothing is reset', async () => {
    const id = (await optionLimit(h)).order.orderId;
    expect((await reset({ cookie: h.admin.cookie })).statusCode).toBe(403);
    expect((await reset({ cookie: h.admin.cookie, 'x-csrf-token': 'f'.repeat(43) })).statusCode).toBe(403);
    expect((await reset({})).statusCode).toBe(401);
    expect((await h.ok<{ data: Row }>('orderstatus', { orderid: id })).data.order_status).toBe('open');
  });
});
