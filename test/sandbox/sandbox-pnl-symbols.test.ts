import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import { k, marketOpen } from '../helpers/sandbox-api-fixtures.js';
import { MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';

type Json = Record<string, unknown>;

/** `POST /api/v1/pnl/symbols` and the analyzer answers' `total_logs`, in OpenAlgo's shapes. */
describeEachDb('sandbox P&L by symbol and analyzer log counts', (dialect) => {
  let h: SandboxHarness;
  beforeAll(async () => {
    h = await startSandbox(dialect);
    await marketOpen(h);
  });
  afterAll(() => h?.close());

  it('analyzer: total_logs counts the analyzer log rows of the key owner', async () => {
    const before = (await h.ok<{ data: Json }>('analyzer')).data;
    expect(before).toMatchObject({ mode: 'analyze', analyze_mode: true, total_logs: 0 });
    const placed = await h.api('placeorder', {
      strategy: 'pnl',
      ...MINI.SBIN,
      action: 'BUY',
      quantity: 100,
      pricetype: 'MARKET',
      product: 'MIS',
    });
    expect(placed.statusCode, placed.body).toBe(200);
    await h.t.services.orders.logWriter.flush();
    const after = (await h.ok<{ data: Json }>('analyzer')).data;
    expect(after.total_logs).toBeGreaterThanOrEqual(1);
    expect(typeof after.total_logs).toBe('number');
  });

  it("pnl/symbols: each position's realised and unrealised P&L with the documented totals", async () => {
    await h.tick({ [k(MINI.SBIN)]: h.quote(810, { high: 815, low: 795 }) });
    const body = await h.ok<Json>('pnl/symbols');
    expect(Object.keys(body)).toEqual([
      'status',
      'data',
      'total_pnl',
      'total_unrealized_pnl',
      'total_today_realized_pnl',
      'total_pnl_today',
      'mode',
    ]);
    expect(body).toMatchObject({ status: 'success', mode: 'analyze' });
    const rows = body.data as Json[];
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(Object.keys(row)).toEqual([
      'symbol',
      'exchange',
      'product',
      'quantity',
      'pnl',
      'unrealized_pnl',
      'today_realized_pnl',
      'total_pnl_today',
    ]);
    expect(row).toMatchObject({ symbol: 'SBIN', exchange: 'NSE', product: 'MIS', quantity: 100 });
    // Bought 100 at about 800, marked at 810: about ₹1,000 unrealised, nothing realised yet.
    expect(row.unrealized_pnl as number).toBeGreaterThan(900);
    expect(row.unrealized_pnl as number).toBeLessThan(1_100);
    expect(row.today_realized_pnl).toBe(0);
    expect(row.pnl).toBe(row.unrealized_pnl);
    expect(body.total_pnl).toBe(row.pnl);
    expect(body.total_unrealized_pnl).toBe(row.unrealized_pnl);
    expect(body.total_pnl_today).toBe(body.total_pnl);
  });

  it('pnl/symbols: realised P&L after a partial close', async () => {
    const sold = await h.place({ ...MINI.SBIN, side: 'SELL', quantity: 40 });
    expect(sold.ok).toBe(true);
    const row = ((await h.ok<Json>('pnl/symbols')).data as Json[])[0]!;
    expect(row.quantity).toBe(60);
    expect(row.today_realized_pnl as number).toBeGreaterThan(0);
    expect(row.pnl).toBeCloseTo((row.unrealized_pnl as number) + (row.today_realized_pnl as number), 2);
  });

  it('pnl/symbols refuses a bad key (403) and live mode (400, with a message)', async () => {
    expect((await h.api('pnl/symbols', {}, 'not-a-key')).statusCode).toBe(403);
    await h.t.services.sandbox.mode.set(false);
    try {
      const res = await h.api('pnl/symbols');
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toMatch(/analyzer mode only/);
      const live = (await h.ok<{ data: Json }>('analyzer')).data;
      expect(live).toMatchObject({ mode: 'live', analyze_mode: false });
      expect(typeof live.total_logs).toBe('number');
    } finally {
      await h.t.services.sandbox.mode.set(true);
    }
  });
});
