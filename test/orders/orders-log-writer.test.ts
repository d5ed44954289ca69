/**
 * The order and analyzer logs are written in batches (order-log.writer.ts): on both databases,
 * every row reaches its table, in order, also past one statement's parameter limit, and an app
 * that shuts down right after its orders has written all of them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { OrderEvent } from '../../src/modules/orders/order-events.js';
import { OrderLogWriter } from '../../src/modules/orders/order-log.writer.js';
import { OrdersRepository } from '../../src/modules/orders/orders.repository.js';
import { rowsPerInsert, type Dialect } from '../../src/platform/db/database.js';
import { MINI, startSandbox } from '../helpers/sandbox.js';
import { createTestDatabase, describeEachDb, type TestDatabase } from '../helpers/test-app.js';

const event = (n: number, mode: OrderEvent['mode']): OrderEvent => ({
  name: 'order.placed',
  mode,
  userId: null,
  apiType: 'placeorder',
  broker: mode === 'analyze' ? 'sandbox' : 'zerodha',
  orderId: String(n),
  statusCode: 200,
  request: { symbol: 'SBIN', apikey: 'secret-key' },
  response: { status: 'success', orderid: String(n) },
  at: 1_767_000_000_000 + n,
});

describeEachDb('order and analyzer logs are written in batches', (dialect: Dialect) => {
  let db: TestDatabase | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    db = dir = undefined;
  });
  const open = async () => {
    dir = mkdtempSync(join(tmpdir(), 'algodesk-log-writer-'));
    db = await createTestDatabase(dialect, dir);
    return db;
  };
  const stored = (d: TestDatabase, table: 'order_logs' | 'analyzer_logs') =>
    d.database.db.selectFrom(table).selectAll().orderBy('id').execute();

  it('both destinations, past one statement parameter limit: every row, in order, without secrets', async () => {
    const d = await open();
    const w = new OrderLogWriter(new OrdersRepository(d.database.db), pino({ level: 'silent' }), {
      flushMs: 60_000,
    });
    const n = rowsPerInsert(9) + 25;
    for (let i = 0; i < n; i++) w.consume(event(i, i % 1000 === 7 ? 'live' : 'analyze'));
    await w.stop();
    const live = await stored(d, 'order_logs');
    const analyzer = await stored(d, 'analyzer_logs');
    expect(live.map((r) => r.order_id)).toEqual(['7', '1007', '2007', '3007']);
    expect(analyzer).toHaveLength(n - 4);
    expect(analyzer.map((r) => Number(r.order_id))).toEqual(
      Array.from({ length: n }, (_, i) => i).filter((i) => i % 1000 !== 7),
    );
    expect(analyzer[0]).toMatchObject({
      user_id: null,
      event: 'order.placed',
      api_type: 'placeorder',
      broker: 'sandbox',
      status_code: 200,
      response: '{"status":"success","orderid":"0"}',
      created_at: 1_767_000_000_000,
    });
    expect(JSON.parse(analyzer[0]!.request)).toEqual({ symbol: 'SBIN' });
    expect([w.written, w.dropped, w.buffered]).toEqual([n, 0, 0]);
  });

  it('an app shut down right after its orders has written every analyzer-log row', async () => {
    const d = await open();
    const h = await startSandbox(dialect, { db: d });
    h.t.clock.set(Date.parse('2026-01-05T10:00:00+05:30'));
    await h.tick({ [`${MINI.SBIN.exchange}:${MINI.SBIN.symbol}`]: h.quote(800) });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await h.api('placeorder', {
        strategy: 'test',
        symbol: 'SBIN',
        exchange: 'NSE',
        action: i % 2 ? 'SELL' : 'BUY',
        quantity: 1,
        pricetype: 'MARKET',
        product: 'MIS',
      });
      expect(res.statusCode).toBe(200);
      ids.push((res.json() as { orderid: string }).orderid);
    }
    await h.t.app.close();
    expect((await stored(d, 'analyzer_logs')).map((r) => r.order_id)).toEqual(ids);
    expect(await stored(d, 'order_logs')).toEqual([]);
  });
});

describe('rows per log INSERT', () => {
  it('stay within SQLite bound-parameter limit (32,766) and so within PostgreSQL (65,535)', () => {
    expect(rowsPerInsert(9)).toBe(3640);
    expect(rowsPerInsert(9) * 9).toBeLessThanOrEqual(32_766);
  });
});
