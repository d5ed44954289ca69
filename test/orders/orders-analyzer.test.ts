/**
 * Orders issue: `POST /api/v1/placeorder` and `/api/v1/splitorder` in analyzer mode — the spec's
 * steps 1-5 and status table rows that do not need a broker, freeze-quantity splitting, the
 * Action Center, the analyzer log, and OpenAlgo's `/api/v1/analyzer` routes. The pipeline's own
 * rules (step 3 validation, freeze splitting, where an order goes, the events it publishes) are
 * proved on the services: order-pipeline.service.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asBrowser, describeEachDb } from '../helpers/test-app.js';
import { MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';

type Row = Record<string, unknown>;
const SBIN = `${MINI.SBIN.exchange}:${MINI.SBIN.symbol}`;
const CE = `${MINI.NIFTY_CE.exchange}:${MINI.NIFTY_CE.symbol}`;
const order = (extra: Row = {}): Row => ({
  strategy: 'test',
  symbol: 'SBIN',
  exchange: 'NSE',
  action: 'BUY',
  quantity: 10,
  pricetype: 'MARKET',
  product: 'MIS',
  ...extra,
});

describeEachDb('placeorder in analyzer mode', (dialect) => {
  let h: SandboxHarness;
  beforeEach(async () => {
    h = await startSandbox(dialect);
    h.t.clock.set(Date.parse('2026-01-05T10:00:00+05:30'));
    await h.tick({ [SBIN]: h.quote(800), [CE]: h.quote(120) });
  });
  afterEach(async () => {
    await h.close();
  });
  const logs = async (table: 'analyzer_logs' | 'order_logs') => {
    await h.t.services.orders.events.whenIdle();
    return h.t.db.database.db.selectFrom(table).selectAll().orderBy('id').execute();
  };

  describe('step 5: a valid order is simulated by the sandbox and answered with mode analyze', () => {
    it('200 {status, orderid, mode}; the order is in the sandbox; the analyzer log has it without the key', async () => {
      const res = await h.api('placeorder', order({ action: 'buy' }));
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toEqual({ status: 'success', orderid: expect.any(String), mode: 'analyze' });
      const o = await h.t.services.sandbox.service.order(1, Number(body.orderid));
      expect([o.side, o.status, o.quantity, o.strategy]).toEqual(['BUY', 'complete', 10, 'test']);
      const rows = await logs('analyzer_logs');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        event: 'order.placed',
        api_type: 'placeorder',
        order_id: body.orderid,
      });
      expect(rows[0]!.request).not.toContain(h.apikey);
      expect(JSON.parse(rows[0]!.request)).not.toHaveProperty('apikey');
      expect(await logs('order_logs')).toEqual([]);
    });

    it('defaults: pricetype MARKET, product MIS, price and trigger 0; quantity as a digit string', async () => {
      const res = await h.api('placeorder', {
        strategy: 's',
        symbol: 'SBIN',
        exchange: 'NSE',
        action: 'SELL',
        quantity: '3',
      });
      expect(res.statusCode).toBe(200);
      const o = await h.t.services.sandbox.service.order(1, Number(res.json().orderid));
      expect([o.priceType, o.product, o.quantity, o.side]).toEqual(['MARKET', 'MIS', 3, 'SELL']);
    });
  });

  describe('step 1: schema failures are 400 with messages keyed by field, before the key is looked at', () => {
    it.each([
      ['missing fields', { apikey: 'x' }, ['strategy', 'symbol', 'exchange', 'action', 'quantity']],
      ['bad action', order({ action: 'HOLD' }), ['action']],
      ['bad exchange', order({ exchange: 'NYSE' }), ['exchange']],
      ['quantity 0', order({ quantity: 0 }), ['quantity']],
      ['fractional quantity', order({ quantity: 1.5 }), ['quantity']],
      ['bad price type', order({ pricetype: 'STOP' }), ['pricetype']],
      ['bad product', order({ product: 'BO' }), ['product']],
      ['price not a number', order({ price: 'abc' }), ['price']],
    ])('%s', async (_name, body, fields) => {
      const res = await h.t.app.inject({
        method: 'POST',
        url: '/api/v1/placeorder',
        payload: { apikey: 'not-a-key', ...body },
      });
      expect(res.statusCode).toBe(400);
      const b = res.json();
      expect(b).toMatchObject({ status: 'error', mode: 'analyze' });
      for (const f of fields) expect(Object.keys(b.message)).toContain(f);
    });
  });

  describe('step 3: a sandbox rejection is answered 400 with its reason', () => {
    it('a sandbox rejection (insufficient funds) is 400 with the reason and the rejected order id', async () => {
      const res = await h.api('placeorder', order({ quantity: 20_000, product: 'CNC' }));
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        message: expect.stringMatching(/^Insufficient funds/),
        orderid: expect.any(String),
      });
    });
  });

  describe('step 4: an unknown or revoked key is 403 and deliberately not logged', () => {
    it('403 "Invalid algodesk apikey", nothing in either log', async () => {
      const res = await h.api('placeorder', order(), 'f'.repeat(64));
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ status: 'error', message: 'Invalid algodesk apikey' });
      expect(await logs('analyzer_logs')).toEqual([]);
      expect(await logs('order_logs')).toEqual([]);
    });
  });

  describe('splitorder answers each child order', () => {
    it('splitorder {splitsize} splits at the given size and reports each child', async () => {
      const res = await h.api('splitorder', order({ quantity: 25, splitsize: 10 }));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        status: 'success',
        split_size: 10,
        total_quantity: 25,
        mode: 'analyze',
        results: [
          { order_num: 1, quantity: 10, status: 'success' },
          { order_num: 2, quantity: 10, status: 'success' },
          { order_num: 3, quantity: 5, status: 'success' },
        ],
      });
    });
  });

  describe('step 2: a key in semi-automatic mode queues the order in the Action Center', () => {
    it('queued (not placed), listed without the key, approved → placed; a second approval is refused', async () => {
      await h.t.services.auth.apiKeys.setOrderMode(1, 'semi_auto');
      const res = await h.api('placeorder', order());
      expect(res.json()).toEqual({
        status: 'success',
        message: 'Order queued for approval in the Action Center',
        mode: 'semi_auto',
        pending_order_id: expect.any(Number),
      });
      expect((await h.ok<{ data: { orders: Row[] } }>('orderbook')).data.orders).toEqual([]);
      const headers = asBrowser(h.admin);
      const list = await h.t.app.inject({
        method: 'GET',
        url: '/action-center/api/orders?status=pending',
        headers,
      });
      expect(list.json().data).toHaveLength(1);
      expect(list.body).not.toContain(h.apikey);
      const id = res.json().pending_order_id as number;
      const ok = await h.t.app.inject({
        method: 'POST',
        url: `/action-center/api/orders/${id}/approve`,
        headers,
      });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({ http_status: 200, result: { status: 'success', mode: 'analyze' } });
      expect((await h.ok<{ data: { orders: Row[] } }>('orderbook')).data.orders).toHaveLength(1);
      const again = await h.t.app.inject({
        method: 'POST',
        url: `/action-center/api/orders/${id}/approve`,
        headers,
      });
      expect(again.statusCode).toBe(400);
      const done = await h.t.app.inject({
        method: 'GET',
        url: '/action-center/api/orders?status=approved',
        headers,
      });
      expect(done.json().data[0]).toMatchObject({ id, status: 'approved', orderid: expect.any(String) });
    });

    it('reject keeps the reason; delete removes; another user cannot touch the queue', async () => {
      await h.t.services.auth.apiKeys.setOrderMode(1, 'semi_auto');
      const id = (await h.api('placeorder', order())).json().pending_order_id as number;
      const headers = asBrowser(h.admin);
      const rej = await h.t.app.inject({
        method: 'POST',
        url: `/action-center/api/orders/${id}/reject`,
        headers,
        payload: { reason: 'not today' },
      });
      expect(rej.statusCode).toBe(200);
      const list = await h.t.app.inject({
        method: 'GET',
        url: '/action-center/api/orders?status=rejected',
        headers,
      });
      expect(list.json().data[0]).toMatchObject({ id, status: 'rejected', reason: 'not today' });
      const del = await h.t.app.inject({ method: 'DELETE', url: `/action-center/api/orders/${id}`, headers });
      expect(del.statusCode).toBe(200);
      const none = await h.t.app.inject({
        method: 'DELETE',
        url: `/action-center/api/orders/${id}`,
        headers,
      });
      expect(none.statusCode).toBe(404);
    });
  });

  describe('OpenAlgo analyzer routes', () => {
    it('/api/v1/analyzer reports the mode; /toggle switches it; a semi-auto key may not toggle', async () => {
      expect((await h.ok('analyzer')).data).toMatchObject({ mode: 'analyze', analyze_mode: true });
      expect((await h.ok('analyzer/toggle', { mode: false })).data).toMatchObject({ mode: 'live' });
      expect(h.t.services.sandbox.engine.isRunning).toBe(false);
      await h.t.services.auth.apiKeys.setOrderMode(1, 'semi_auto');
      const res = await h.api('analyzer/toggle', { mode: true });
      expect(res.statusCode).toBe(403);
      expect(h.t.services.sandbox.mode.analyze).toBe(false);
    });
  });
});

describeEachDb('step 1: the order rate limit (ORDER_RATE_LIMIT)', (dialect) => {
  it('the third order within a second is 429 with Retry-After; the next second is allowed again', async () => {
    const h = await startSandbox(dialect, { env: { ORDER_RATE_LIMIT: '2 per second' } });
    try {
      h.t.clock.set(Date.parse('2026-01-05T10:00:00+05:30'));
      await h.tick({ [SBIN]: h.quote(800) });
      expect((await h.api('placeorder', order())).statusCode).toBe(200);
      expect((await h.api('placeorder', order())).statusCode).toBe(200);
      const third = await h.api('placeorder', order());
      expect(third.statusCode).toBe(429);
      expect(third.headers['retry-after']).toBe('1');
      expect((await h.ok<{ data: { orders: Row[] } }>('orderbook')).data.orders).toHaveLength(2);
      h.t.clock.advance(1_001);
      await h.tick({ [SBIN]: h.quote(800) });
      expect((await h.api('placeorder', order())).statusCode).toBe(200);
    } finally {
      await h.close();
    }
  });
});
