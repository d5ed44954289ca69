/**
 * Orders issue, part 2: splitting in live mode against the loopback Kite Connect stub, with a
 * master contract cut from the real Kite NFO/BFO snapshot — freeze-quantity splitting on NFO and
 * BFO (CDS, BCD and MCX are in orders-upstox-live.test.ts, on the Upstox file), a split refused
 * part-way (and, in analyzer mode, one that throws part-way), the 100-order cap of splitorder and
 * of freeze splitting, and a queued splitorder approved in the Action Center.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { kiteError } from '../helpers/broker-quote-stubs.js';
import { startKiteOrderStub, type KiteOrderStub } from '../helpers/broker-order-stubs.js';
import { KITE_CREDS, kiteContract, startOrdersApp, type OrdersApp } from '../helpers/orders-app.js';
import { describeEachDb } from '../helpers/test-app.js';

const CAP = 'Total number of orders would exceed maximum limit of 100';
/** NIFTY 18-Aug-2026 26000 CE (lot 65) and the SENSEX Aug-2026 future (lot 20), from the Kite snapshot. */
const NIFTY_CE = { symbol: 'NIFTY18AUG2626000CE', exchange: 'NFO', brsymbol: 'NIFTY2681826000CE' };
const SENSEX_FUT = { symbol: 'SENSEX27AUG26FUT', exchange: 'BFO', brsymbol: 'SENSEX26AUGFUT' };
const order = (extra: Record<string, unknown> = {}) => ({
  strategy: 'splits',
  symbol: 'SBIN',
  exchange: 'NSE',
  action: 'BUY',
  quantity: 1,
  pricetype: 'MARKET',
  product: 'MIS',
  ...extra,
});

describeEachDb(
  'order splitting (live mode through the Zerodha adapter unless a test says otherwise)',
  (dialect) => {
    let stub: KiteOrderStub;
    let o: OrdersApp;
    /** Kite forms of the placements received after `from`. */
    const placed = (from: number) => stub.forms('/orders/regular').slice(from);
    const sentSoFar = () => stub.forms('/orders/regular').length;
    const pendingCount = async () =>
      (await o.t.db.database.db.selectFrom('pending_orders').select('id').execute()).length;

    beforeAll(async () => {
      stub = await startKiteOrderStub(KITE_CREDS);
      o = await startOrdersApp(dialect, {
        broker: 'zerodha',
        stubUrl: stub.url,
        contract: kiteContract(['SBIN', NIFTY_CE.brsymbol, SENSEX_FUT.brsymbol]),
      });
      await o.setMode(false);
      await o.t.services.marketAdmin.freeze.add({ exchange: 'NFO', symbol: 'NIFTY', freeze_qty: 150 });
      await o.t.services.marketAdmin.freeze.add({ exchange: 'BFO', symbol: 'SENSEX', freeze_qty: 50 });
    });
    afterAll(async () => {
      await o?.close();
      await stub?.close();
    });

    describe('freeze quantity: each child order reaches the broker; the answer lists every order id', () => {
      it.each([
        ['NFO', NIFTY_CE, 325, [130, 130, 65]],
        ['BFO', SENSEX_FUT, 100, [40, 40, 20]],
      ] as const)(
        '%s: %o split into whole lots at most the freeze quantity',
        async (_x, inst, quantity, sizes) => {
          const from = sentSoFar();
          const res = await o.api(
            'placeorder',
            order({ ...inst, brsymbol: undefined, quantity, product: 'NRML' }),
          );
          expect(res.statusCode).toBe(200);
          const body = res.json();
          expect(body).toEqual({ status: 'success', orderid: body.orderids[0], orderids: expect.any(Array) });
          expect(body.orderids).toHaveLength(sizes.length);
          expect(new Set(body.orderids).size).toBe(sizes.length);
          expect(placed(from).map((f) => [f.tradingsymbol, f.exchange, f.quantity])).toEqual(
            sizes.map((q) => [inst.brsymbol, inst.exchange, String(q)]),
          );
          // One order.placed row per child (the ten workers may write them in any order).
          const rows = (await o.logs('order_logs')).filter((r) => body.orderids.includes(r.order_id));
          expect(rows.map((r) => [r.event, r.order_id]).sort()).toEqual(
            body.orderids.map((id: string) => ['order.placed', id]).sort(),
          );
        },
      );
    });

    describe('a split refused part-way answers the broker’s status with the order ids already placed', () => {
      it('freeze split: the 2nd child refused (400) → 400, the 1st child’s id, the 3rd never sent', async () => {
        const from = sentSoFar();
        stub.refusePlacement(
          2,
          400,
          kiteError('Insufficient funds. Required margin is 95417.84', 'MarginException'),
        );
        const res = await o.api(
          'placeorder',
          order({ ...NIFTY_CE, brsymbol: undefined, quantity: 325, product: 'NRML' }),
        );
        expect(res.statusCode).toBe(400);
        expect(placed(from).map((f) => f.quantity)).toEqual(['130', '130']);
        const firstChild = [...stub.orders.keys()].at(-1); // the one order the stub placed
        expect(res.json()).toEqual({
          status: 'error',
          message: expect.stringMatching(/^Insufficient funds/),
          orderids: [firstChild],
        });
        // The first child's order.placed and the refusal's order.failed (written in either order).
        const rows = (await o.logs('order_logs')).slice(-2);
        expect(rows.map((r) => [r.event, r.status_code, r.order_id]).sort()).toEqual([
          ['order.failed', 400, null],
          ['order.placed', 200, firstChild],
        ]);
      });

      it('splitorder: the 2nd child refused (503) → 503 with the 1st child’s id', async () => {
        const from = sentSoFar();
        stub.refusePlacement(2, 503, kiteError('Service unavailable', 'NetworkException'));
        const res = await o.api('splitorder', order({ quantity: 25, splitsize: 10 }));
        expect(res.statusCode).toBe(503);
        expect(res.json()).toEqual({
          status: 'error',
          message: 'Service unavailable',
          orderids: [expect.stringMatching(/^\d{15}$/)],
        });
        expect(placed(from).map((f) => f.quantity)).toEqual(['10', '10']);
      });
    });

    describe('a split that throws part-way still answers the order ids already placed', () => {
      it('analyzer mode: the sandbox fails on the 2nd child → 500, generic message, the 1st child’s id', async () => {
        await o.setMode(true);
        const sandbox = o.t.services.sandbox.service;
        const real = sandbox.placeOrder.bind(sandbox);
        let calls = 0;
        const spy = vi
          .spyOn(sandbox, 'placeOrder')
          .mockImplementation((...args) =>
            ++calls === 2 ? Promise.reject(new Error('Connection terminated unexpectedly')) : real(...args),
          );
        try {
          o.feed.push({
            'NSE:SBIN': {
              ltp: 800,
              bid: 799.95,
              ask: 800.05,
              high: 840,
              low: 760,
              timestamp: o.t.clock.now(),
            },
          });
          await o.t.services.sandbox.engine.whenIdle();
          const before = (await o.logs('analyzer_logs')).length;
          const res = await o.api('splitorder', order({ quantity: 25, splitsize: 10 }));
          expect(res.statusCode).toBe(500);
          expect(calls).toBe(2);
          const body = res.json();
          expect(body).toEqual({
            status: 'error',
            message: 'Internal error while placing the order',
            mode: 'analyze',
            orderids: [expect.any(String)],
          });
          expect(res.body).not.toContain('Connection terminated');
          const child = await sandbox.order(1, Number(body.orderids[0]));
          expect([child.quantity, child.symbol]).toEqual([10, 'SBIN']);
          const rows = await o.logs('analyzer_logs');
          expect(
            rows
              .slice(before)
              .map((r) => [r.event, r.status_code])
              .sort(),
          ).toEqual([
            ['order.failed', 500],
            ['order.placed', 200],
          ]);
        } finally {
          spy.mockRestore();
          await o.setMode(false);
        }
      });
    });

    describe('a split is capped at 100 orders, refused (400) before anything is placed or queued', () => {
      it('splitorder of exactly 100 children is placed: 100 requests reach the broker', async () => {
        const from = sentSoFar();
        const res = await o.api('splitorder', order({ quantity: 200, splitsize: 2 }));
        expect(res.statusCode).toBe(200);
        expect(res.json().results).toHaveLength(100);
        expect(placed(from)).toHaveLength(100);
      });

      it.each([
        ['101 children', 101, 1],
        ['quantity 999999999 by 1', 999_999_999, 1],
      ])(
        'splitorder of %s → 400 with the cap, nothing sent, logged or published',
        async (_n, quantity, splitsize) => {
          const from = sentSoFar();
          const logs = (await o.logs('order_logs')).length;
          const events = o.events.length;
          const res = await o.api('splitorder', order({ quantity, splitsize }));
          expect(res.statusCode).toBe(400);
          expect(res.json()).toEqual({ status: 'error', message: CAP });
          expect(placed(from)).toEqual([]);
          expect((await o.logs('order_logs')).length).toBe(logs);
          expect(o.events.length).toBe(events);
        },
      );

      it('a semi-automatic key’s oversized splitorder is refused, not queued', async () => {
        await o.t.services.auth.apiKeys.setOrderMode(1, 'semi_auto');
        try {
          const queued = await pendingCount();
          const res = await o.api('splitorder', order({ quantity: 999_999_999, splitsize: 1 }));
          expect(res.statusCode).toBe(400);
          expect(res.json()).toEqual({ status: 'error', message: CAP });
          expect(await pendingCount()).toBe(queued);
        } finally {
          await o.t.services.auth.apiKeys.setOrderMode(1, 'auto');
        }
      });

      it('a freeze split that would need 101 orders → 400 and order.failed; nothing sent', async () => {
        // Freeze 150 on a lot of 65 makes children of 130: 13,065 is 100 of them and one more lot
        // (counted in whole-lot children, not 13,065 / 150 = 88).
        const from = sentSoFar();
        const res = await o.api(
          'placeorder',
          order({ ...NIFTY_CE, brsymbol: undefined, quantity: 13_065, product: 'NRML' }),
        );
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ status: 'error', message: CAP });
        expect(placed(from)).toEqual([]);
        expect((await o.logs('order_logs')).at(-1)).toMatchObject({
          event: 'order.failed',
          status_code: 400,
        });
      });
    });

    describe('a queued splitorder approved in the Action Center places the split', () => {
      it('queued without reaching the broker; approval sends each child and answers every id', async () => {
        await o.t.services.auth.apiKeys.setOrderMode(1, 'semi_auto');
        try {
          const from = sentSoFar();
          const queued = await o.api('splitorder', order({ quantity: 25, splitsize: 10 }));
          expect(queued.statusCode).toBe(200);
          expect(queued.json()).toEqual({
            status: 'success',
            split_size: 10,
            total_quantity: 25,
            results: [],
            message: 'Order queued for approval in the Action Center',
            mode: 'semi_auto',
            pending_order_id: expect.any(Number),
          });
          expect(placed(from)).toEqual([]);
          const id = queued.json().pending_order_id as number;
          const ok = await o.web('POST', `/action-center/api/orders/${id}/approve`);
          expect(ok.statusCode).toBe(200);
          expect(ok.json()).toMatchObject({
            http_status: 200,
            result: { status: 'success', orderids: expect.any(Array) },
          });
          expect(ok.json().result.orderids).toHaveLength(3);
          expect(placed(from).map((f) => f.quantity)).toEqual(['10', '10', '5']);
        } finally {
          await o.t.services.auth.apiKeys.setOrderMode(1, 'auto');
        }
      });
    });
  },
);
