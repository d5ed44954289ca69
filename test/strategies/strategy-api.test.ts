/**
 * OpenAlgo's strategy API over the API key (docs/rules/strategies.md#strategy-api): each route with
 * OpenAlgo's documented example request and the documented response fields, ownership (another
 * user's strategy is the same 404 as a missing one), bad input refused with nothing written, the
 * cooling-off applied and the webhook's de-duplication not, and close_leg / close_all producing
 * their exits in the sandbox (analyzer mode).
 */
import { afterEach, expect, it } from 'vitest';
import { createUser, describeEachDb } from '../helpers/test-app.js';
import { BATCH_PAIR, SIGNAL_SBIN, startStrategies, type StrategyHarness } from '../helpers/strategies.js';

let h: StrategyHarness;
afterEach(async () => {
  await h?.close();
});

type Json = Record<string, unknown>;
const json = (res: { json(): unknown }) => res.json() as Json;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The sandbox orders of user 1 a strategy sent (they carry the strategy order's tag). */
const sandboxOrders = async () =>
  (await h.t.db.database.db.selectFrom('sandbox_orders').selectAll().orderBy('id').execute()).filter(
    (o) => o.tag !== null,
  );

/** Everything the routes could write, to prove a refusal wrote nothing. */
const written = async () => ({
  runs: (await h.rows('strategy_runs')).length,
  orders: (await h.rows('strategy_orders')).length,
  events: (await h.rows('strategy_events')).length,
  deliveries: (await h.rows('webhook_deliveries')).length,
  sandbox: (await sandboxOrders()).length,
});

describeEachDb('strategy API: documented requests and responses', (dialect) => {
  it('list, start, status, runs and orders answer the documented fields and types', async () => {
    h = await startStrategies(dialect);
    const { id } = await h.create(BATCH_PAIR);
    const signal = await h.create(SIGNAL_SBIN);

    // OpenAlgo's list example filters by status and name.
    const none = json(await h.api('strategy/list', { status: 'running', q: 'PAIR' }));
    expect(none).toEqual({ status: 'success', data: [] });

    const started = await h.api('strategy/start', { strategy_id: id, mode: 'sandbox' });
    expect(started.statusCode).toBe(200);
    const s = json(started);
    expect(s).toMatchObject({ status: 'success', run_id: expect.any(Number), mode: 'sandbox' });
    const legs = s.legs as Json[];
    expect(legs).toHaveLength(2);
    for (const leg of legs)
      expect(leg).toMatchObject({
        leg_id: expect.any(Number),
        ok: true,
        acknowledged: true,
        symbol: expect.any(String),
        broker_order_id: expect.any(String),
        error: null,
      });
    const runId = s.run_id as number;

    const listed = json(await h.api('strategy/list', { status: 'running', q: 'pair' })).data as Json[];
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      id,
      name: 'pair batch',
      strategy_kind: 'batch',
      product: 'MIS',
      pricetype: 'MARKET',
      live_enabled: false,
      status: 'running',
      current_run_id: runId,
      last_finalized_run: null,
    });
    expect(listed[0]!.created_at).toMatch(ISO);
    // Newest first, both kinds, without a filter.
    const all = json(await h.api('strategy/list', {})).data as Json[];
    expect(all.map((x) => x.id)).toEqual([signal.id, id]);
    expect(json(await h.api('strategy/list', { status: 'idle' })).data).toMatchObject([{ id: signal.id }]);

    const status = json(await h.api('strategy/status', { strategy_id: id }));
    expect(status.status).toBe('success');
    const data = status.data as Json;
    expect(data).toMatchObject({ id, strategy_kind: 'batch', status: 'running', current_run_id: runId });
    expect((data.legs as Json[]).map((l) => l.id)).toEqual(legs.map((l) => l.leg_id));
    const run = status.run as Json;
    expect(run).toMatchObject({ id: runId, mode: 'sandbox', status: 'running', stopped_at: null });
    expect(run.started_at).toMatch(ISO);
    // What each leg holds as last recorded: filled net, and what its working orders will add.
    const held = (run.positions as Json[]).map((p) => [p.symbol, (p.net as number) + (p.working as number)]);
    expect(held.sort()).toEqual([
      ['INFY', -2],
      ['SBIN', 3],
    ]);
    expect(json(await h.api('strategy/status', { strategy_id: signal.id })).run).toBeNull();

    const runs = json(await h.api('strategy/runs', { strategy_id: id, limit: 10 }));
    expect(runs).toMatchObject({
      status: 'success',
      data: [{ id: runId, strategy_id: id, mode: 'sandbox', status: 'running', stopped_at: null }],
    });

    const orders = json(await h.api('strategy/orders', { strategy_id: id, run_id: runId })).data as Json[];
    expect(orders).toHaveLength(2);
    for (const o of orders) {
      expect(o).toMatchObject({
        id: expect.any(Number),
        run_id: runId,
        leg_id: expect.any(Number),
        kind: 'entry',
        broker_order_id: expect.any(String),
        exchange: 'NSE',
        qty: expect.any(Number),
        product: 'MIS',
        pricetype: 'MARKET',
        price: 0,
        trigger_price: 0,
        status: expect.stringMatching(/^(placed|filled)$/),
        created_at: expect.stringMatching(ISO),
      });
    }
    expect(orders.map((o) => `${o.action} ${o.qty} ${o.symbol}`).sort()).toEqual([
      'BUY 3 SBIN',
      'SELL 2 INFY',
    ]);
    expect(json(await h.api('strategy/orders', { strategy_id: id, limit: 1 })).data).toHaveLength(1);
    // A run of no order of this strategy: nothing.
    expect(json(await h.api('strategy/orders', { strategy_id: id, run_id: runId + 99 })).data).toEqual([]);
  });

  it('close_leg exits one leg in the sandbox and the run keeps running; close_all exits the rest and stops it', async () => {
    h = await startStrategies(dialect);
    const { id } = await h.create(BATCH_PAIR);
    const s = json(await h.api('strategy/start', { strategy_id: id, mode: 'sandbox' }));
    const runId = s.run_id as number;
    const sbin = (s.legs as Json[]).find((l) => l.symbol === 'SBIN')!.leg_id as number;
    expect(await sandboxOrders()).toHaveLength(2);

    const closed = await h.api('strategy/close_leg', { strategy_id: id, leg_id: sbin });
    expect(closed.statusCode).toBe(200);
    expect(json(closed)).toMatchObject({
      status: 'success',
      run_id: runId,
      leg_id: sbin,
      run_stopped: false,
      exits: [
        {
          leg_id: sbin,
          ok: true,
          error: null,
          symbol: 'SBIN',
          action: 'SELL',
          quantity: 3,
          orderid: expect.any(String),
        },
      ],
    });
    const afterLeg = await sandboxOrders();
    expect(afterLeg).toHaveLength(3);
    expect(afterLeg[2]).toMatchObject({ symbol: 'SBIN', side: 'SELL', quantity: 3 });
    const status = json(await h.api('strategy/status', { strategy_id: id }));
    expect(status.run).toMatchObject({ id: runId, status: 'running' });
    // The sandbox filled each MARKET order as it placed it, and the run recorded the fills from
    // its answers: the closed leg is flat, the other still holds its entry.
    expect((status.run as Json).positions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ symbol: 'SBIN', net: 0, working: 0 }),
        expect.objectContaining({ symbol: 'INFY', net: -2, working: 0 }),
      ]),
    );
    // Closing it again sends nothing: the leg is flat.
    const again = json(await h.api('strategy/close_leg', { strategy_id: id, leg_id: sbin }));
    expect(again).toMatchObject({ status: 'success', exits: [] });
    expect(await sandboxOrders()).toHaveLength(3);

    const all = await h.api('strategy/close_all', { strategy_id: id });
    expect(all.statusCode).toBe(200);
    expect(json(all)).toMatchObject({
      status: 'success',
      run_id: runId,
      stop_pending: true,
      exits: [{ symbol: 'INFY', action: 'BUY', quantity: 2, ok: true, error: null }],
    });
    expect(await sandboxOrders()).toHaveLength(4);
    await h.t.services.strategies.stopper.whenIdle();
    const stopped = json(await h.api('strategy/status', { strategy_id: id }));
    expect(stopped).toMatchObject({ data: { status: 'idle', current_run_id: null }, run: null });
    expect((stopped.data as Json).last_finalized_run).toMatchObject({ id: runId, status: 'stopped' });
    const kinds = (await h.rows('strategy_events')).map((e) => e.kind);
    expect(kinds.filter((k) => k === 'exit_placed')).toHaveLength(2);
    expect(kinds).toContain('run_stopped');
    // Without a run, stop and close_leg do nothing and say so.
    expect(json(await h.api('strategy/stop', { strategy_id: id }))).toMatchObject({
      status: 'success',
      message: 'No active run; nothing to stop',
    });
    expect(json(await h.api('strategy/close_leg', { strategy_id: id, leg_id: sbin }))).toMatchObject({
      status: 'success',
      message: 'No active run; nothing to close',
      exits: [],
    });
    expect(await sandboxOrders()).toHaveLength(4);
  });
});

describeEachDb('strategy API: ownership and bad input', (dialect) => {
  it('another user’s strategy answers exactly as an unknown one on every route, and nothing is written', async () => {
    h = await startStrategies(dialect);
    const { id } = await h.create(BATCH_PAIR);
    const run = json(await h.api('strategy/start', { strategy_id: id, mode: 'sandbox' }));
    const leg = (run.legs as Json[])[0]!.leg_id;
    await createUser(h.t, 'bob', 'bob password 123');
    const bobKey = (await h.t.services.auth.apiKeys.regenerate(2)).apikey;
    const before = await written();
    const routes: [string, Json][] = [
      ['status', {}],
      ['start', { mode: 'sandbox' }],
      ['stop', {}],
      ['close_all', {}],
      ['close_leg', { leg_id: leg }],
      ['runs', {}],
      ['orders', {}],
    ];
    for (const [path, extra] of routes) {
      const foreign = await h.api(`strategy/${path}`, { strategy_id: id, ...extra }, bobKey);
      const unknown = await h.api(`strategy/${path}`, { strategy_id: 424242, ...extra }, bobKey);
      expect(foreign.statusCode, path).toBe(404);
      expect(foreign.body, path).toBe(unknown.body);
      expect(json(foreign)).toEqual({
        status: 'error',
        message: 'Strategy not found',
        code: 'strategy_not_found',
      });
    }
    expect(json(await h.api('strategy/list', {}, bobKey))).toEqual({ status: 'success', data: [] });
    expect(await written()).toEqual(before);
    expect(json(await h.api('strategy/status', { strategy_id: id })).run).toMatchObject({
      status: 'running',
    });
  });

  it('refuses a missing or wrong mode, wrong types, unknown ids and hostile strings with a clear 4xx, writing nothing', async () => {
    h = await startStrategies(dialect);
    const { id } = await h.create(BATCH_PAIR);
    const signal = await h.create(SIGNAL_SBIN);
    const before = await written();
    const refused = async (path: string, body: Json, status: number, message: RegExp, apikey?: string) => {
      const res = await h.api(`strategy/${path}`, body, apikey);
      expect(res.statusCode, `${path} ${JSON.stringify(body)}`).toBe(status);
      expect(json(res).status).toBe('error');
      expect(JSON.stringify(json(res).message), `${path} ${JSON.stringify(body)}`).toMatch(message);
    };
    await refused('start', { strategy_id: id }, 400, /mode/);
    await refused('start', { strategy_id: id, mode: 'paper' }, 400, /mode/);
    await refused('start', { strategy_id: id, mode: null }, 400, /mode/);
    await refused('start', { strategy_id: String(id), mode: 'sandbox' }, 400, /strategy_id/);
    await refused('start', { strategy_id: '1 OR 1=1', mode: 'sandbox' }, 400, /strategy_id/);
    await refused('status', { strategy_id: -1 }, 400, /strategy_id/);
    await refused('status', { strategy_id: 1.5 }, 400, /strategy_id/);
    await refused('status', {}, 400, /strategy_id/);
    await refused('close_leg', { strategy_id: id }, 400, /leg_id/);
    await refused('close_leg', { strategy_id: id, leg_id: 'x' }, 400, /leg_id/);
    await refused('close_leg', { strategy_id: id, leg_id: 99999 }, 404, /No leg 99999 in this strategy/);
    await refused('runs', { strategy_id: id, limit: 0 }, 400, /limit/);
    await refused('orders', { strategy_id: id, limit: 1001 }, 400, /limit/);
    await refused('orders', { strategy_id: id, run_id: '1; DELETE FROM strategy_orders' }, 400, /run_id/);
    await refused('list', { status: 'paused' }, 400, /status/);
    await refused('list', { q: 'x'.repeat(101) }, 400, /q/);
    await refused('start', { strategy_id: signal.id, mode: 'sandbox' }, 400, /Only batch strategies/);
    await refused('start', { strategy_id: id, mode: 'live' }, 403, /Live batch start is not enabled/);
    await refused('status', { strategy_id: id }, 403, /.+/, 'wrong-key');
    await refused('stop', { strategy_id: id }, 400, /apikey/, '');
    // Hostile text in a filter is only text: no match, no harm.
    for (const q of ["'; DROP TABLE strategies; --", '%', '_', '<script>alert(1)</script>', '\u202e'])
      expect(json(await h.api('strategy/list', { q }))).toEqual({ status: 'success', data: [] });
    expect(await written()).toEqual(before);
    expect((await h.api('strategy/list', {})).statusCode).toBe(200);
  });
});

describeEachDb('strategy API: the webhook’s rules', (dialect) => {
  it('the cooling-off applies to an API start; the webhook’s de-duplication does not, and nothing is audited as a delivery', async () => {
    h = await startStrategies(dialect);
    const { id, token } = await h.create(BATCH_PAIR);
    const start = { strategy_id: id, mode: 'sandbox' };
    const first = json(await h.api('strategy/start', start));
    expect(first).toMatchObject({ status: 'success', result: 'ok' });
    // The same body at once is judged, not de-duplicated: the claim answers that a run is active.
    const second = await h.api('strategy/start', start);
    expect(second.statusCode).toBe(200);
    expect(json(second)).toMatchObject({
      result: 'ok',
      run_id: first.run_id,
      message: 'A run is already active; nothing started',
    });
    expect(json(second).legs).toBeUndefined();
    expect(json(await h.api('strategy/stop', { strategy_id: id }))).toMatchObject({ stop_pending: true });
    // Two stops in a row: both handled, never refused as a duplicate.
    expect(json(await h.api('strategy/stop', { strategy_id: id }))).toMatchObject({ result: 'ok' });
    await h.t.services.strategies.stopper.whenIdle();
    expect((await h.rows('strategy_runs')).map((r) => r.status)).toEqual(['stopped']);

    const cooling = await h.api('strategy/start', start);
    expect(cooling.statusCode).toBe(409);
    expect(json(cooling)).toMatchObject({ status: 'error', result: 'rejected_cooling_off', strategy_id: id });
    expect(await h.rows('strategy_runs')).toHaveLength(1);

    // Past the 30 s cooling-off but within the webhook's 60 s window, the identical API body opens
    // a run; a webhook delivery that repeats an earlier body is de-duplicated.
    expect(json(await h.hook(token, { action: 'stop' }))).toMatchObject({ result: 'ok' });
    h.t.clock.advance(31_000);
    await h.tick({ 'NSE:SBIN': h.quote(800), 'NSE:INFY': h.quote(1500) });
    const reopened = json(await h.api('strategy/start', start));
    expect(reopened).toMatchObject({ result: 'ok', run_id: expect.any(Number), mode: 'sandbox' });
    expect(reopened.run_id).not.toBe(first.run_id);
    expect(json(await h.hook(token, { action: 'stop' }))).toMatchObject({ result: 'rejected_dedupe' });
    // The API wrote no delivery audit row and no de-duplication claim of its own.
    const audit = await h.rows('webhook_deliveries');
    expect(audit.map((d) => d.result)).toEqual(['ok', 'rejected_dedupe']);
    const claims = await h.t.db.database.db.selectFrom('webhook_dedupe').selectAll().execute();
    expect(claims).toHaveLength(1);
  });
});
