import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../../platform/clock.js';
import { MAX_STATEMENT_PARAMETERS } from '../../platform/db/database.js';
import { OrderEventBus, type OrderEvent } from './order-events.js';
import { OrderLogWriter, toLogRow } from './order-log.writer.js';
import type { OrdersRepository } from './orders.repository.js';

const event = (n: number, mode: OrderEvent['mode'] = 'analyze'): OrderEvent => ({
  name: 'order.placed',
  mode,
  userId: 1,
  apiType: 'placeorder',
  broker: 'sandbox',
  orderId: String(n),
  statusCode: 200,
  request: { symbol: 'SBIN', apikey: 'k'.repeat(64) },
  response: { status: 'success', orderid: String(n) },
  at: n,
});

function capture() {
  const lines: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (l: string) => void lines.push(l) });
  return { lines, logger };
}

/** A repository double recording every INSERT (table, row count, order ids). */
function fakeRepo(fail?: (call: number) => boolean) {
  const calls: { table: string; ids: (string | null | undefined)[] }[] = [];
  const repo = {
    insertLogs(table: string, rows: { order_id?: string | null }[]) {
      calls.push({ table, ids: rows.map((r) => r.order_id) });
      return fail?.(calls.length) ? Promise.reject(new Error('disk I/O error')) : Promise.resolve();
    },
  };
  return { calls, repo: repo as unknown as OrdersRepository };
}

/** The writer's dependencies around a repository double (no database). */
const writerDeps = (repo: OrdersRepository, logger: pino.Logger) => ({
  repo,
  clock: new FakeClock(),
  logger,
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the order log writer buffers rows and writes them in batches', () => {
  it('buffering does no I/O; one INSERT per table follows after the flush interval', async () => {
    vi.useFakeTimers();
    const { calls, repo } = fakeRepo();
    const w = new OrderLogWriter(writerDeps(repo, capture().logger), { flushMs: 25 });
    for (let i = 0; i < 5; i++) w.consume(event(i));
    w.consume(event(5, 'live'));
    expect(calls).toEqual([]);
    expect(w.buffered).toBe(6);
    await vi.advanceTimersByTimeAsync(24);
    expect(calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual([
      { table: 'order_logs', ids: ['5'] },
      { table: 'analyzer_logs', ids: ['0', '1', '2', '3', '4'] },
    ]);
    expect([w.written, w.dropped, w.buffered]).toEqual([6, 0, 0]);
  });

  it('the stored request never holds the API key', () => {
    const row = toLogRow(event(1));
    expect(JSON.parse(row.request)).toEqual({ symbol: 'SBIN' });
  });

  it('a batch larger than one statement allows is split, in order, within the parameter limit', async () => {
    const { calls, repo } = fakeRepo();
    const w = new OrderLogWriter(writerDeps(repo, capture().logger));
    const n = 2 * Math.floor(MAX_STATEMENT_PARAMETERS / 10) + 5;
    for (let i = 0; i < n; i++) w.consume(event(i));
    await w.flush();
    expect(calls.map((c) => c.ids.length)).toEqual([3276, 3276, 5]);
    for (const c of calls) expect(c.ids.length * 10).toBeLessThanOrEqual(MAX_STATEMENT_PARAMETERS);
    expect(calls.flatMap((c) => c.ids)).toEqual(Array.from({ length: n }, (_, i) => String(i)));
  });

  it('stop() writes what is buffered without waiting for the timer', async () => {
    const { calls, repo } = fakeRepo();
    const w = new OrderLogWriter(writerDeps(repo, capture().logger), { flushMs: 60_000 });
    w.consume(event(1));
    w.consume(event(2, 'live'));
    await w.stop();
    expect(calls.map((c) => c.table).sort()).toEqual(['analyzer_logs', 'order_logs']);
    expect(w.written).toBe(2);
  });

  it('after stop(), a late event (a request still in flight) is written without waiting the interval', async () => {
    vi.useFakeTimers();
    const { calls, repo } = fakeRepo();
    const w = new OrderLogWriter(writerDeps(repo, capture().logger), { flushMs: 60_000 });
    await w.stop();
    w.consume(event(9, 'live'));
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toEqual([{ table: 'order_logs', ids: ['9'] }]);
  });

  it('past the buffer bound rows are dropped, counted and logged (one warning per write)', async () => {
    const { lines, logger } = capture();
    const { calls, repo } = fakeRepo();
    const w = new OrderLogWriter(writerDeps(repo, logger), { bufferMax: 3 });
    for (let i = 0; i < 10; i++) w.consume(event(i));
    expect(w.dropped).toBe(7);
    expect(lines.filter((l) => l.includes('order log rows dropped'))).toHaveLength(1);
    await w.flush();
    expect(calls.flatMap((c) => c.ids)).toEqual(['0', '1', '2']);
    const warnings = lines.filter((l) => l.includes('order log rows dropped')).map((l) => JSON.parse(l));
    expect(warnings.map((l: { rows: number }) => l.rows)).toEqual([1, 6]);
  });

  it('a failed write drops only its rows, counted and logged; later rows are written', async () => {
    const { lines, logger } = capture();
    const { calls, repo } = fakeRepo((call) => call === 1);
    const w = new OrderLogWriter(writerDeps(repo, logger), { chunkRows: 2 });
    for (let i = 0; i < 5; i++) w.consume(event(i));
    await w.flush();
    expect(calls.map((c) => c.ids)).toEqual([['0', '1'], ['2', '3'], ['4']]);
    expect([w.written, w.dropped]).toEqual([3, 2]);
    expect(lines.some((l) => l.includes('order log write failed: rows dropped'))).toBe(true);
  });

  it('on the event bus: the worker is not held, and whenIdle() waits for the write', async () => {
    const { calls, repo } = fakeRepo();
    const { logger } = capture();
    const bus = new OrderEventBus({ logger });
    const w = new OrderLogWriter(writerDeps(repo, logger), { flushMs: 60_000 });
    bus.subscribe('log-writer', w.consume, { flush: () => w.flush() });
    for (let i = 0; i < 5; i++) bus.publish(event(i));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect([bus.running, bus.delivered, w.buffered, calls.length]).toEqual([0, 5, 5, 0]);
    for (let i = 5; i < 1010; i++) bus.publish(event(i));
    await bus.whenIdle();
    expect(bus.dropped).toBe(0);
    expect(calls.flatMap((c) => c.ids)).toHaveLength(1010);
  });
});
