/**
 * Migration 0025 gathers the three sources' delivery audits and de-duplication claims in the
 * webhooks module's tables and keeps every row: an install that has history before it reads the
 * same history after it (src/modules/webhooks/README.md). Real migrations, both databases.
 */
import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { WebhooksRepository } from '../../src/modules/webhooks/webhooks.repository.js';
import { readDetail } from '../../src/modules/webhooks/receiver.js';
import { describeEachDb } from '../helpers/test-app.js';
import { createEmptyDatabase, type EmptyDatabase } from '../helpers/test-database.js';

describeEachDb('webhook history across migration 0025', (dialect) => {
  let db: EmptyDatabase | undefined;
  afterEach(async () => {
    await db?.drop();
    db = undefined;
  });

  /** A database with nothing in it, migrated up to the migration before 0025. */
  async function before0025() {
    db = await createEmptyDatabase(dialect, 'm0025');
    const r = await db.migrateTo('0024_start_fresh_installs_in_analyzer_mode');
    expect(r.error).toBeUndefined();
    return db;
  }

  it('every delivery, run and claim is kept, with its source, owner and details; scanner orders follow their delivery', async () => {
    const old = await before0025();
    const d = old.database.db;
    const nodes = [{ id: 'n1', type: 'placeorder', status: 'done', orderid: 'A1' }];
    const results = [{ symbol: 'SBIN', status: 'success', orderid: 'S1', quantity: 1 }];
    await sql`insert into webhook_deliveries (strategy_id, ts, ip, result, http_status, action, mode, run_id, message, payload, duration_ms)
              values (7, 1000, '10.0.0.1', 'ok', 200, 'start', 'sandbox', 42, 'started', '{"action":"start"}', 1.5),
                     (null, 1001, '10.0.0.2', 'rejected_token', 404, null, null, null, 'Unknown webhook URL', null, 0.2)`.execute(
      d,
    );
    // Two scanner rows, so the second one's new id differs from its old one.
    await sql`insert into scanner_deliveries (scanner_id, ts, ip, result, http_status, action, message, payload, results, duration_ms)
              values (3, 2000, '10.0.0.3', 'rejected_window', 409, 'BUY', 'closed', '{"stocks":"SBIN"}', null, 0.3),
                     (3, 2001, '10.0.0.3', 'ok', 200, 'BUY', '1 of 1 symbols placed', '{"stocks":"SBIN"}', ${JSON.stringify(results)}, 4.25)`.execute(
      d,
    );
    await sql`insert into scanner_orders (scanner_id, delivery_id, day, kind, symbol, exchange, product, side, quantity, mode, orderid, created_at)
              values (3, 2, '2026-11-27', 'entry', 'SBIN', 'NSE', 'MIS', 'BUY', 1, 'analyze', 'S1', 2001),
                     (3, null, '2026-11-27', 'squareoff', 'SBIN', 'NSE', 'MIS', 'SELL', 1, 'analyze', 'S2', 3000)`.execute(
      d,
    );
    await sql`insert into flow_runs (flow_id, ts, ip, result, http_status, symbol, message, payload, nodes, duration_ms)
              values (5, 4000, '10.0.0.4', 'ok', 200, 'INFY', '1 of 1 nodes ran', '{"signal":"go"}', ${JSON.stringify(nodes)}, 2)`.execute(
      d,
    );
    await sql`insert into webhook_dedupe (strategy_id, fingerprint, at) values (7, 'f-strategy', 1000)`.execute(
      d,
    );
    await sql`insert into scanner_dedupe (scanner_id, fingerprint, at) values (3, 'f-scanner', 2001)`.execute(
      d,
    );
    await sql`insert into flow_dedupe (flow_id, fingerprint, at) values (5, 'f-flow', 4000)`.execute(d);

    await old.migrateToLatest();

    const repo = new WebhooksRepository(d);
    const strategy = await repo.deliveries('strategy', 7, 10);
    expect(strategy).toHaveLength(1);
    expect(strategy[0]).toMatchObject({
      source: 'strategy',
      ip: '10.0.0.1',
      result: 'ok',
      http_status: 200,
      action: 'start',
      message: 'started',
      payload: '{"action":"start"}',
    });
    expect([
      Number(strategy[0]!.owner_id),
      Number(strategy[0]!.ts),
      Number(strategy[0]!.duration_ms),
    ]).toEqual([7, 1000, 1.5]);
    expect(readDetail(strategy[0]!.detail)).toEqual({ mode: 'sandbox', run_id: 42 });
    const all = await d.selectFrom('webhook_deliveries').selectAll().orderBy('id').execute();
    expect(all.map((r) => [r.source, r.owner_id === null ? null : Number(r.owner_id), r.result])).toEqual([
      ['strategy', 7, 'ok'],
      ['strategy', null, 'rejected_token'],
      ['scanner', 3, 'rejected_window'],
      ['scanner', 3, 'ok'],
      ['flow', 5, 'ok'],
    ]);
    expect(all[1]!.detail).toBeNull();
    expect(all[2]!.detail).toBeNull();
    expect(readDetail(all[3]!.detail)).toEqual({ results });
    expect(readDetail(all[4]!.detail)).toEqual({ symbol: 'INFY', nodes });

    // The scanner order points at its delivery's new row; the square-off's order at none.
    const orders = await d
      .selectFrom('scanner_orders')
      .select(['orderid', 'delivery_id'])
      .orderBy('id')
      .execute();
    expect(orders.map((o) => [o.orderid, o.delivery_id === null ? null : Number(o.delivery_id)])).toEqual([
      ['S1', Number(all[3]!.id)],
      ['S2', null],
    ]);

    const claims = await d.selectFrom('webhook_dedupe').selectAll().orderBy('source').execute();
    expect(claims.map((c) => [c.source, Number(c.owner_id), c.fingerprint, Number(c.at)])).toEqual([
      ['flow', 5, 'f-flow', 4000],
      ['scanner', 3, 'f-scanner', 2001],
      ['strategy', 7, 'f-strategy', 1000],
    ]);
    // A claim still works on the moved rows: the same fingerprint within the window is a duplicate.
    expect(await repo.claim({ source: 'scanner', ownerId: 3, fingerprint: 'f-scanner' }, 2002, 60_000)).toBe(
      false,
    );
    expect(await repo.claim({ source: 'flow', ownerId: 3, fingerprint: 'f-scanner' }, 2002, 60_000)).toBe(
      true,
    );

    // The old tables are gone; a new delivery gets an id after the moved ones.
    for (const gone of ['scanner_deliveries', 'scanner_dedupe', 'flow_runs', 'flow_dedupe'])
      await expect(sql.raw(`select 1 from ${gone}`).execute(d)).rejects.toThrow();
    const id = await repo.openDelivery({
      source: 'flow',
      owner_id: 5,
      ts: 5000,
      ip: '10.0.0.4',
      result: 'received',
      http_status: 0,
      action: null,
      message: 'received',
      payload: null,
      detail: null,
      duration_ms: 0,
    });
    expect(id).toBeGreaterThan(Number(all[4]!.id));
  });
});
