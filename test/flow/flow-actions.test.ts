/**
 * Flow workflows, the node kinds in the sandbox (docs/rules/flow.md#flow-definition): smart_order
 * (placesmartorder's rule), close_position, cancel_all, a LIMIT place_order priced from
 * `{{quote.*}}`, the position / market_open / time_window conditions, a bounded wait, and notify
 * to the user's alert channels (none set up: the node fails; a loopback Slack webhook: delivered).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it, vi } from 'vitest';
import { ChatStub } from '../helpers/chat-alerts.js';
import { asBrowser, describeEachDb } from '../helpers/test-app.js';
import { SATURDAY } from '../helpers/scanner.js';
import { TRADING_DAY, answer, flowOf, placed, startFlow, type FlowHarness } from '../helpers/flow.js';

let h: FlowHarness;
let stub: ChatStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
  await h?.close();
});

type Row = Record<string, unknown>;
let n = 0;
/** Runs the flow for SBIN; each body is new (no de-duplication between calls). */
const run = async (f: { token: string; secret: string }, body: Row = {}, symbol = 'SBIN') => {
  const res = await h.hook(f.token, { ...body, secret: f.secret, n: ++n }, { symbol });
  expect(res.statusCode, res.body).toBe(200);
  return answer(res);
};

describeEachDb('flow nodes: orders in the sandbox', (dialect) => {
  it('smart_order brings the position to position_size: buys the difference, sells down, nothing when it matches, flat at 0', async () => {
    h = await startFlow(dialect);
    const f = await h.create(
      flowOf('smart', [
        {
          id: 'size',
          type: 'smart_order',
          action: '{{webhook.action}}',
          quantity: '{{webhook.qty}}',
          position_size: '{{webhook.size}}',
        },
      ]),
    );
    const steps: [Row, number, string | undefined][] = [
      [{ action: 'BUY', qty: 10, size: 10 }, 10, 'BUY SBIN×10 MIS'],
      [{ action: 'SELL', qty: 6, size: 4 }, 4, 'SELL SBIN×6 MIS'],
      [{ action: 'BUY', qty: 4, size: 4 }, 4, undefined],
      [{ action: 'SELL', qty: 0, size: -2 }, -2, 'SELL SBIN×6 MIS'],
      [{ action: 'BUY', qty: 0, size: 0 }, 0, 'BUY SBIN×2 MIS'],
    ];
    const expected: string[] = [];
    for (const [body, position, order] of steps) {
      const a = await run(f, body);
      expect(a, JSON.stringify(body)).toMatchObject({ status: 'success', result: 'ok' });
      const node = a.nodes![0]!;
      expect(node.status).toBe('done');
      if (order) {
        expected.push(order);
        expect(node.orderid).toEqual(expect.any(String));
      } else {
        expect(node.orderid).toBeUndefined();
        expect(node.message).toMatch(/matches|No action/i);
      }
      expect(await h.position('SBIN'), JSON.stringify(body)).toBe(position);
      await h.advance(1_000);
    }
    expect(await placed(h)).toEqual(expected);
    // A bad position_size fails the node naming the field.
    const bad = await run(f, { action: 'BUY', qty: 1, size: 'ten' });
    expect(bad).toMatchObject({
      result: 'failed',
      nodes: [{ status: 'failed', message: expect.stringContaining('position_size') }],
    });
  });

  it('close_position sends the opposite MARKET order for the open position (long or short), nothing when flat; the product is the node’s', async () => {
    h = await startFlow(dialect);
    const open = await h.create(
      flowOf('open', [
        {
          id: 'in',
          type: 'place_order',
          action: '{{webhook.action}}',
          quantity: '{{webhook.qty}}',
          product: 'MIS',
        },
      ]),
    );
    const close = await h.create(flowOf('close', [{ id: 'out', type: 'close_position' }]));
    const closeCnc = await h.create(
      flowOf('close cnc', [{ id: 'out', type: 'close_position', product: 'CNC' }]),
    );
    await run(open, { action: 'BUY', qty: 5 });
    expect(await h.position('SBIN')).toBe(5);
    // A CNC close does not touch the MIS long.
    const none = await run(closeCnc);
    expect(none.nodes).toEqual([
      {
        id: 'out',
        type: 'close_position',
        status: 'done',
        message: expect.stringMatching(/no open position/i),
      },
    ]);
    const a = await run(close);
    expect(a).toMatchObject({
      result: 'ok',
      nodes: [{ id: 'out', status: 'done', orderid: expect.any(String) }],
    });
    expect(await h.position('SBIN')).toBe(0);
    const again = await run(close);
    expect(again.nodes![0]).toMatchObject({
      status: 'done',
      message: expect.stringMatching(/no open position/i),
    });
    expect(again.nodes![0]!.orderid).toBeUndefined();
    // A short on INFY (the URL's symbol) is bought back.
    await run(open, { action: 'SELL', qty: 3 }, 'INFY');
    expect(await h.position('INFY')).toBe(-3);
    expect((await run(close, {}, 'INFY')).nodes![0]).toMatchObject({
      status: 'done',
      orderid: expect.any(String),
    });
    expect(await h.position('INFY')).toBe(0);
    expect(await placed(h)).toEqual([
      'BUY SBIN×5 MIS',
      'SELL SBIN×5 MIS',
      'SELL INFY×3 MIS',
      'BUY INFY×3 MIS',
    ]);
  });

  it('a LIMIT place_order priced from {{quote.bid}} rests; cancel_all cancels it (and every working order of the user)', async () => {
    h = await startFlow(dialect);
    const rest = await h.create(
      flowOf('rest', [
        {
          id: 'cheap',
          type: 'condition',
          when: { kind: 'compare', left: '{{quote.ltp}}', op: 'gt', right: '{{webhook.floor}}' },
        },
        {
          id: 'limit',
          type: 'place_order',
          action: 'BUY',
          quantity: 2,
          pricetype: 'LIMIT',
          price: '{{webhook.price}}',
        },
        {
          id: 'at-bid',
          type: 'place_order',
          action: 'BUY',
          quantity: 1,
          pricetype: 'LIMIT',
          price: '{{quote.low}}',
        },
      ]),
    );
    const cancel = await h.create(flowOf('cancel', [{ id: 'all', type: 'cancel_all' }]));
    // LTP 800 > 700: the LIMITs at 700 and at the day's low (760) rest below the market.
    const a = await run(rest, { floor: 700, price: '700' });
    expect(a).toMatchObject({ result: 'ok' });
    expect(a.nodes!.map((x) => x.status)).toEqual(['done', 'done', 'done']);
    expect(a.nodes![0]!.result).toBe(true);
    const book = await h.orders();
    expect(book.map((o) => [o.pricetype, Number(o.price), o.order_status]).sort()).toEqual([
      ['LIMIT', 700, 'open'],
      ['LIMIT', 760, 'open'],
    ]);
    // LTP 800 > 900 is false: nothing more is placed.
    expect((await run(rest, { floor: 900, price: '700' })).nodes!.map((x) => x.status)).toEqual([
      'done',
      'skipped',
      'skipped',
    ]);
    const c = await run(cancel);
    expect(c).toMatchObject({
      status: 'success',
      result: 'ok',
      nodes: [{ id: 'all', type: 'cancel_all', status: 'done', message: expect.stringContaining('2') }],
    });
    expect((await h.orders()).map((o) => o.order_status)).toEqual(['cancelled', 'cancelled']);
    // Nothing left: done, 0 cancelled.
    expect((await run(cancel)).nodes![0]).toMatchObject({
      status: 'done',
      message: expect.stringContaining('0'),
    });
    // A price template that is not a number fails the node.
    const bad = await run(rest, { floor: 1, price: 'cheap' });
    expect(bad).toMatchObject({ result: 'failed' });
    expect(bad.nodes![1]).toMatchObject({
      id: 'limit',
      status: 'failed',
      message: expect.stringContaining('price'),
    });
  });
});

describeEachDb('flow nodes: the analyzer switch', (dialect) => {
  it('with the service’s analyzer switch off, orders go live (no broker session here: the node fails with the pipeline’s reason), none to the sandbox', async () => {
    h = await startFlow(dialect);
    const f = await h.create(
      flowOf('live', [{ id: 'entry', type: 'place_order', action: 'BUY', quantity: 1 }]),
    );
    const off = await h.t.app.inject({
      method: 'POST',
      url: '/settings/analyze-mode/0',
      headers: asBrowser(h.admin),
    });
    expect(off.statusCode).toBe(200);
    const a = await run(f);
    expect(a).toMatchObject({ status: 'error', result: 'failed' });
    expect(a.nodes![0]).toMatchObject({
      id: 'entry',
      status: 'failed',
      message: expect.stringMatching(/broker/i),
    });
    expect(await h.t.db.database.db.selectFrom('sandbox_orders').selectAll().execute()).toEqual([]);
    // On again: the sandbox.
    await h.t.app.inject({ method: 'POST', url: '/settings/analyze-mode/1', headers: asBrowser(h.admin) });
    expect(await run(f)).toMatchObject({ result: 'ok' });
    expect(await placed(h)).toEqual(['BUY SBIN×1 MIS']);
  });
});

describeEachDb('flow nodes: conditions on position, market and time', (dialect) => {
  it('position flat / long / short on the run’s symbol and product', async () => {
    h = await startFlow(dialect);
    const f = await h.create(
      flowOf('pyramid', [
        { id: 'flat', type: 'condition', when: { kind: 'position', state: 'flat' }, else: 'if-long' },
        { id: 'enter', type: 'place_order', action: 'BUY', quantity: 3 },
        { id: 'if-long', type: 'condition', when: { kind: 'position', state: 'long' } },
        { id: 'add', type: 'place_order', action: 'BUY', quantity: 1 },
      ]),
    );
    // Flat: enter (3), then the position is long: add (1).
    const first = await run(f);
    expect(first.nodes!.map((x) => [x.id, x.status, x.result])).toEqual([
      ['flat', 'done', true],
      ['enter', 'done', undefined],
      ['if-long', 'done', true],
      ['add', 'done', undefined],
    ]);
    expect(await h.position('SBIN')).toBe(4);
    // Long: the else jump skips the entry, adds one.
    const second = await run(f);
    expect(second.nodes!.map((x) => [x.id, x.status, x.result])).toEqual([
      ['flat', 'done', false],
      ['enter', 'skipped', undefined],
      ['if-long', 'done', true],
      ['add', 'done', undefined],
    ]);
    expect(await h.position('SBIN')).toBe(5);
    // Another symbol is flat; a named symbol and product are read as named.
    const short = await h.create(
      flowOf('short check', [
        {
          id: 'is-short',
          type: 'condition',
          when: { kind: 'position', state: 'short', symbol: 'SBIN', product: 'CNC' },
        },
        { id: 'never', type: 'place_order', action: 'BUY', quantity: 1 },
      ]),
    );
    expect((await run(short)).nodes![0]).toMatchObject({ result: false });
    expect((await run(f, {}, 'INFY')).nodes![0]).toMatchObject({ id: 'flat', result: true });
    expect(await placed(h)).toEqual([
      'BUY SBIN×3 MIS',
      'BUY SBIN×1 MIS',
      'BUY SBIN×1 MIS',
      'BUY INFY×3 MIS',
      'BUY INFY×1 MIS',
    ]);
  });

  it('market_open follows the calendar; time_window is IST, start inclusive, end exclusive', async () => {
    h = await startFlow(dialect);
    const f = await h.create(
      flowOf('hours', [
        { id: 'open', type: 'condition', when: { kind: 'market_open' } },
        { id: 'window', type: 'condition', when: { kind: 'time_window', start: '09:30', end: '14:00' } },
        { id: 'buy', type: 'place_order', action: 'BUY', quantity: 1 },
      ]),
    );
    const at = async (date: string, hhmm: string) => {
      await h.moveTo(date, hhmm);
      return (await run(f)).nodes!.map((x) => x.result ?? x.status);
    };
    expect(await at(TRADING_DAY, '10:00')).toEqual([true, true, 'done']);
    expect(await at(TRADING_DAY, '09:20')).toEqual([true, false, 'skipped']);
    expect(await at(TRADING_DAY, '09:30')).toEqual([true, true, 'done']);
    expect(await at(TRADING_DAY, '14:00')).toEqual([true, false, 'skipped']);
    expect(await at(TRADING_DAY, '15:45')).toEqual([false, 'skipped', 'skipped']);
    expect(await at(SATURDAY, '10:00')).toEqual([false, 'skipped', 'skipped']);
    // The flow's orders only (the sandbox squares MIS off in the afternoon: a SELL of its own).
    expect((await placed(h)).filter((o) => o.startsWith('BUY'))).toEqual([
      'BUY SBIN×1 MIS',
      'BUY SBIN×1 MIS',
    ]);
  });
});

describeEachDb('flow nodes: wait and notify', (dialect) => {
  it('a 0.1 s wait is done and counted in the run’s duration', async () => {
    h = await startFlow(dialect);
    const f = await h.create(
      flowOf('pause', [
        { id: 'pause', type: 'wait', seconds: 0.1 },
        { id: 'buy', type: 'place_order', action: 'BUY', quantity: 1 },
      ]),
    );
    const a = await run(f);
    expect(a).toMatchObject({
      result: 'ok',
      nodes: [
        { id: 'pause', status: 'done' },
        { id: 'buy', status: 'done' },
      ],
    });
    const [r] = await h.runs(f.id);
    expect(r!.duration_ms).toBeGreaterThanOrEqual(95);
    expect(r!.duration_ms).toBeLessThan(5_000);
  });

  it('notify without an alert channel fails with a clear message; with a loopback Slack webhook it is delivered with the templates rendered', async () => {
    h = await startFlow(dialect);
    const f = await h.create(
      flowOf('tell', [
        {
          id: 'tell',
          type: 'notify',
          message: 'Flow {{symbol}}: {{webhook.action}} x{{webhook.qty}} at {{quote.ltp}}',
        },
        { id: 'after', type: 'cancel_all' },
      ]),
    );
    const none = await run(f, { action: 'BUY', qty: 2 });
    expect(none).toMatchObject({ status: 'error', result: 'failed' });
    expect(none.nodes).toEqual([
      { id: 'tell', type: 'notify', status: 'failed', message: expect.stringMatching(/no alert channel/i) },
      { id: 'after', type: 'cancel_all', status: 'skipped', message: expect.stringContaining('tell') },
    ]);
    expect(none.message).toMatch(/tell/);

    stub = await new ChatStub().start();
    const HOOK = '/services/T0001/B0001/flowHookSecret000001';
    const saved = await h.t.app.inject({
      method: 'POST',
      url: '/settings/alerts',
      headers: asBrowser(h.admin),
      payload: { slack_enabled: true, slack_webhook_url: stub.url + HOOK },
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const sent = await run(f, { action: 'SELL', qty: 3 });
    expect(sent).toMatchObject({ status: 'success', result: 'ok' });
    expect(sent.nodes![0]).toMatchObject({
      id: 'tell',
      status: 'done',
      message: expect.stringContaining('1 of 1'),
    });
    const texts = stub.slack(HOOK).map((m) => String(m.text));
    expect(texts.some((t) => t.includes('Flow SBIN: SELL x3 at 800'))).toBe(true);
    // Slack refusing: the node fails, saying no channel took it.
    stub.answerNext(
      { status: 500, body: 'internal_error' },
      { status: 500, body: 'internal_error' },
      { status: 500, body: 'internal_error' },
    );
    const refused = await run(f, { action: 'BUY', qty: 1 });
    expect(refused).toMatchObject({ result: 'failed' });
    expect(refused.nodes![0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/no alert channel took/i),
    });
    // The webhook's secret and token are never in what was sent.
    for (const r of stub.requests) {
      expect(r.body).not.toContain(f.secret);
      expect(r.body).not.toContain(f.token);
    }
  });

  it('a run past its 10 s bound fails at the node that would start late (the rest skipped), not a success', async () => {
    h = await startFlow(dialect);
    // The clock of the bound jumps 11 s while the Slack webhook answers the notify node.
    const real = performance.now.bind(performance);
    let shift = 0;
    const spy = vi.spyOn(performance, 'now').mockImplementation(() => real() + shift);
    const slow = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        shift = 11_000;
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const port = (slow.address() as AddressInfo).port;
      const saved = await h.t.app.inject({
        method: 'POST',
        url: '/settings/alerts',
        headers: asBrowser(h.admin),
        payload: {
          slack_enabled: true,
          slack_webhook_url: `http://127.0.0.1:${port}/services/T1/B1/slowHook`,
        },
      });
      expect(saved.statusCode, saved.body).toBe(200);
      const f = await h.create(
        flowOf('slow', [
          { id: 'tell', type: 'notify', message: 'starting' },
          { id: 'entry', type: 'place_order', action: 'BUY', quantity: 1 },
          { id: 'tidy', type: 'cancel_all' },
        ]),
      );
      const a = await run(f);
      expect(a).toMatchObject({ status: 'error', result: 'failed' });
      expect(a.nodes).toMatchObject([
        { id: 'tell', status: 'done' },
        { id: 'entry', status: 'failed', message: expect.stringMatching(/10 s bound/) },
        { id: 'tidy', status: 'skipped' },
      ]);
      expect(await h.orders()).toEqual([]);
    } finally {
      spy.mockRestore();
      slow.closeAllConnections();
      await new Promise<void>((r) => slow.close(() => r()));
    }
  });
});
