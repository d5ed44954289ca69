/**
 * The order and analyzer logs are written in batches (order-log.writer.ts): on both databases,
 * every row reaches its table, in order, also past one statement's parameter limit, and an app
 * that shuts down right after its orders has written all of them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { OrderEvent } from '../../src/modules/orders/order-events.js';
import { OrderLogWriter, REDELIVER_AFTER_MS } from '../../src/modules/orders/order-log.writer.js';
import { OrdersRepository } from '../../src/modules/orders/orders.repository.js';
import { FakeClock } from '../../src/platform/clock.js';
import { rowsPerInsert, type Dialect } from '../../src/platform/db/database.js';
import { MINI, startSandbox } from '../helpers/sandbox.js';
import { createTestDatabase, describeEachDb, type TestDatabase } from '../helpers/test-app.js';
import { createTestServices } from '../helpers/test-services.js';

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
    const w = new OrderLogWriter(
      {
        repo: new OrdersRepository(d.database.db),
        clock: new FakeClock(),
        logger: pino({ level: 'silent' }),
      },
      { flushMs: 60_000 },
    );
    const n = rowsPerInsert(10) + 25;
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
    expect(rowsPerInsert(10)).toBe(3276);
    expect(rowsPerInsert(10) * 10).toBeLessThanOrEqual(32_766);
  });
});

describeEachDb('the record of an order is part of the order', (dialect: Dialect) => {
  const order = {
    strategy: 'test',
    symbol: 'SBIN',
    exchange: 'NSE',
    action: 'BUY',
    quantity: 1,
    pricetype: 'MARKET',
    product: 'MIS',
  };
  const open = async () => {
    const h = await startSandbox(dialect);
    h.t.clock.set(Date.parse('2026-01-05T10:00:00+05:30'));
    await h.tick({ [`${MINI.SBIN.exchange}:${MINI.SBIN.symbol}`]: h.quote(800) });
    await h.t.services.orders.events.whenIdle();
    return h;
  };
  const rows = (h: Awaited<ReturnType<typeof open>>) =>
    h.t.db.database.db.selectFrom('analyzer_logs').selectAll().orderBy('id').execute();

  it('an answered sandbox order’s analyzer-log row is committed by the answer, then marked delivered', async () => {
    const h = await open();
    try {
      const bus = h.t.services.orders.events;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      bus.subscribe('test-blocker', () => gate);
      const res = await h.api('placeorder', order);
      expect(res.statusCode).toBe(200);
      const orderid = (res.json() as { orderid: string }).orderid;
      // The fan-out has not run (the blocker holds it), yet the row is there: it was written in
      // the order's own transaction, not by the batched writer after the answer.
      expect(await rows(h)).toMatchObject([
        { order_id: orderid, event: 'order.placed', dispatched_at: null },
      ]);
      release();
      await bus.whenIdle();
      expect(await rows(h)).toMatchObject([{ order_id: orderid, dispatched_at: h.t.clock.now() }]);
    } finally {
      await h.close();
    }
  });

  it('a row that cannot be written takes its order with it: nothing placed, a 500, nothing half-way', async () => {
    const h = await open();
    try {
      // The database refuses the row (as a full disk would): it is written with its group's just
      // before the COMMIT, so the whole transaction goes.
      const k = h.t.db.database.db;
      if (dialect === 'sqlite') {
        await sql`create trigger refuse_log before insert on analyzer_logs
          begin select raise(abort, 'disk I/O error'); end`.execute(k);
      } else {
        await sql`create function refuse_log() returns trigger language plpgsql
          as $$ begin raise exception 'disk I/O error'; end $$`.execute(k);
        await sql`create trigger refuse_log before insert on analyzer_logs
          for each row execute function refuse_log()`.execute(k);
      }
      const res = await h.api('placeorder', order);
      await sql`drop trigger refuse_log${sql.raw(dialect === 'sqlite' ? '' : ' on analyzer_logs')}`.execute(
        k,
      );
      expect(res.statusCode).toBe(500);
      expect(await h.t.services.sandbox.books.orders(1)).toEqual([]);
      expect((await rows(h)).filter((r) => r.event === 'order.placed')).toEqual([]);
      // The next order is placed and recorded as usual.
      expect((await h.api('placeorder', order)).statusCode).toBe(200);
      expect(await h.t.services.sandbox.books.orders(1)).toHaveLength(1);
    } finally {
      await h.close();
    }
  });

  it('rows a crash left undelivered are published again once, from the stored row', async () => {
    const h = await open();
    try {
      const db = h.t.db.database.db;
      const at = h.t.clock.now();
      await db
        .insertInto('analyzer_logs')
        .values({
          user_id: 1,
          event: 'order.placed',
          api_type: 'placeorder',
          broker: 'sandbox',
          order_id: '77',
          status_code: 200,
          request: JSON.stringify({ symbol: 'SBIN', exchange: 'NSE', action: 'BUY', quantity: 1 }),
          response: JSON.stringify({ status: 'success', orderid: '77', mode: 'analyze' }),
          created_at: at,
          dispatched_at: null,
        })
        .execute();
      const seen: OrderEvent[] = [];
      const writer = h.t.services.orders.logWriter;
      // Its periodic look stopped, so only the calls below claim rows.
      await writer.stop();
      // Too recent: its own fan-out may still be running.
      expect(await writer.redeliver((e) => seen.push(e))).toBe(0);
      h.t.clock.advance(REDELIVER_AFTER_MS);
      expect(await writer.redeliver((e) => seen.push(e))).toBe(1);
      expect(await writer.redeliver((e) => seen.push(e))).toBe(0);
      expect(seen).toMatchObject([
        {
          name: 'order.placed',
          mode: 'analyze',
          userId: 1,
          orderId: '77',
          request: { symbol: 'SBIN', quantity: 1 },
          at,
          redelivered: true,
        },
      ]);
      expect((await rows(h)).find((r) => r.order_id === '77')?.dispatched_at).toBe(h.t.clock.now());
    } finally {
      await h.close();
    }
  });
});

describeEachDb('a restart delivers what a crash left undelivered', (dialect: Dialect) => {
  it('at start-up, a row whose fan-out never ran is published once and marked delivered', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'algodesk-outbox-'));
    const d = await createTestDatabase(dialect, dir);
    // What a process killed between committing an order and its fan-out leaves.
    await d.database.db
      .insertInto('order_logs')
      .values({
        user_id: null,
        event: 'order.placed',
        api_type: 'placeorder',
        broker: 'zerodha',
        order_id: '250818000000042',
        status_code: 200,
        request: JSON.stringify({ symbol: 'SBIN', exchange: 'NSE', action: 'BUY', quantity: 1 }),
        response: JSON.stringify({ status: 'success', orderid: '250818000000042' }),
        created_at: 1,
        dispatched_at: null,
      })
      .execute();
    const t = await createTestServices(dialect, { db: d });
    try {
      const rows = () => d.database.db.selectFrom('order_logs').select('dispatched_at').execute();
      await vi.waitFor(async () => expect((await rows())[0]!.dispatched_at).not.toBeNull(), {
        timeout: 3_000, // under the 5 s period: the start-up look, not a later one
      });
      const bus = t.services.orders.events;
      await bus.whenIdle();
      expect(bus.delivered).toBe(1);
      // Claimed once: the next look finds nothing.
      expect(await t.services.orders.logWriter.redeliver(() => undefined)).toBe(0);
    } finally {
      await t.close();
      await d.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
