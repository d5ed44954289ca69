/**
 * A flow with the service's analyzer switch off (docs/rules/flow.md#flow-runs: orders follow the
 * service's mode) against the loopback Kite Connect stub: the position condition reads the
 * broker's position book, place_order and close_position are MARKET orders at the broker,
 * close_position closes what the position holds less working closing orders (a second exit while
 * the first works sends nothing), and cancel_all cancels the user's working orders at the broker.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { KiteOrderStub } from '../helpers/broker-order-stubs.js';
import type { FlowAnswer } from '../helpers/flow.js';
import { startKiteOrders, type OrdersApp } from '../helpers/orders-app.js';
import { describeEachDb } from '../helpers/test-app.js';

describeEachDb('a flow through Kite (analyzer switch off)', (dialect) => {
  let stub: KiteOrderStub;
  let o: OrdersApp;
  let main: { token: string; secret: string };
  let cancel: { token: string; secret: string };
  let n = 0;
  const run = async (f: { token: string; secret: string }) => {
    const res = await o.t.app.inject({
      method: 'POST',
      url: `/flow/webhook/${f.token}/SBIN`,
      payload: { n: ++n, secret: f.secret },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as FlowAnswer;
  };
  const create = async (name: string, nodes: unknown[]) => {
    const res = await o.web('POST', '/flow/api/flows', { name, definition: { nodes } });
    expect(res.statusCode, res.body).toBe(200);
    const j = res.json() as { webhook_token: string; secret: string };
    return { token: j.webhook_token, secret: j.secret };
  };
  const orders = () =>
    stub
      .forms('/orders/regular')
      .map((f) => [f.tradingsymbol, f.transaction_type, f.order_type, f.product, f.quantity]);

  beforeAll(async () => {
    ({ stub, o } = await startKiteOrders(dialect, ['SBIN']));
    await o.setMode(false);
    main = await create('in and out', [
      { id: 'flat', type: 'condition', when: { kind: 'position', state: 'flat' }, else: 'exit' },
      { id: 'entry', type: 'place_order', action: 'BUY', quantity: 5 },
      { id: 'stop', type: 'condition', when: { kind: 'compare', left: 'entry', op: 'eq', right: 'exit' } },
      { id: 'exit', type: 'close_position' },
    ]);
    cancel = await create('cancel', [{ id: 'all', type: 'cancel_all' }]);
    stub.prices.set('SBIN', 800);
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });

  it('flat at the broker: a MARKET BUY there, nothing in the sandbox', async () => {
    stub.fillMarketOrders = true;
    const a = await run(main);
    expect(a).toMatchObject({ status: 'success', result: 'ok' });
    expect(a.nodes!.map((x) => [x.id, x.status, x.result])).toEqual([
      ['flat', 'done', true],
      ['entry', 'done', undefined],
      ['stop', 'done', false],
      ['exit', 'skipped', undefined],
    ]);
    expect(a.nodes![1]!.orderid).toBe([...stub.orders.keys()][0]);
    expect(orders()).toEqual([['SBIN', 'BUY', 'MARKET', 'MIS', '5']]);
    expect(await o.t.db.database.db.selectFrom('sandbox_orders').selectAll().execute()).toEqual([]);
  });

  it('long at the broker: the else jump closes it; a second exit while the first works sends nothing', async () => {
    stub.fillMarketOrders = false; // the exit stays working at the broker
    const first = await run(main);
    expect(first).toMatchObject({ result: 'ok' });
    expect(first.nodes!.map((x) => [x.id, x.status])).toEqual([
      ['flat', 'done'],
      ['entry', 'skipped'],
      ['stop', 'skipped'],
      ['exit', 'done'],
    ]);
    expect(first.nodes![0]!.result).toBe(false);
    expect(first.nodes![3]!.orderid).toEqual(expect.any(String));
    const second = await run(main);
    expect(second.nodes![3]).toMatchObject({
      id: 'exit',
      status: 'done',
      message: expect.stringMatching(/no open position/i),
    });
    expect(second.nodes![3]!.orderid).toBeUndefined();
    expect(orders()).toEqual([
      ['SBIN', 'BUY', 'MARKET', 'MIS', '5'],
      ['SBIN', 'SELL', 'MARKET', 'MIS', '5'],
    ]);
  });

  it('cancel_all cancels the working exit at the broker', async () => {
    const a = await run(cancel);
    expect(a).toMatchObject({
      status: 'success',
      result: 'ok',
      nodes: [{ id: 'all', status: 'done', message: expect.stringContaining('1') }],
    });
    const cancels = stub.requests.filter(
      (r) => r.method === 'DELETE' && r.path.startsWith('/orders/regular/'),
    );
    expect(cancels).toHaveLength(1);
    // Working nothing now: the exit may be sent again.
    const again = await run(main);
    expect(again.nodes![3]).toMatchObject({ id: 'exit', status: 'done', orderid: expect.any(String) });
  });
});
