import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SqliteWriterThread, type RowTuple } from '../../src/platform/db/sqlite-writer-thread.js';
import { SINGLE_ROW_INSERT } from '../../src/modules/observability/traffic.repository.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-app.js';

describe('SQLite writer thread: rows written from a worker thread', () => {
  let t: TestDatabase | undefined;
  let writer: SqliteWriterThread | undefined;
  afterEach(async () => {
    await writer?.close();
    await t?.drop();
  });

  it('stores every row with its values, across several transactions, and closes cleanly', async () => {
    t = await createTestDatabase('sqlite', mkdtempSync(join(tmpdir(), 'algodesk-tw-')));
    writer = new SqliteWriterThread(t.database.file!, { traffic: SINGLE_ROW_INSERT });
    const rows: RowTuple[] = Array.from({ length: 4_321 }, (_, i) => [
      i,
      '203.0.113.1',
      'POST',
      `/p${i}`,
      '/api/v1/ping',
      200,
      1.25,
      null,
      null,
    ]);
    rows[4_320] = [4_320, '::1', 'GET', '/x', '(unmatched)', 503, 12.5, 'example.com', 7];
    const ids = await writer.insert('traffic', rows);
    expect(await writer.insert('traffic', [])).toEqual([]);
    const stored = await t.database.db.selectFrom('traffic_log').selectAll().orderBy('ts').execute();
    expect(stored).toHaveLength(4_321);
    // The rowids of the rows written, in order (what the order log's rows are marked by).
    expect(ids).toEqual(stored.map((r) => r.id));
    expect(stored[4_320]).toMatchObject({
      ip: '::1',
      status: 503,
      duration_ms: 12.5,
      host: 'example.com',
      user_id: 7,
    });
    await writer.close();
    await writer.close(); // twice is harmless
  });

  it('writes the rows of calls made while a message is in flight in one message; each call gets its own rowids, or its own error', async () => {
    t = await createTestDatabase('sqlite', mkdtempSync(join(tmpdir(), 'algodesk-tw-')));
    writer = new SqliteWriterThread(t.database.file!, { traffic: SINGLE_ROW_INSERT });
    const row = (i: number, ip: string | null): RowTuple => [
      i,
      ip,
      'POST',
      `/p${i}`,
      'g',
      200,
      1,
      null,
      null,
    ];
    const posted = vi.spyOn(Worker.prototype, 'postMessage');
    // The first call is sent at once (the thread has nothing in hand); the three made while it is
    // in flight travel together once it is answered. The third call's row breaks a NOT NULL
    // constraint; only that call fails, and none of its rows is kept.
    const calls = [
      writer.insert('traffic', [row(1, 'a'), row(2, 'a')]),
      writer.insert('traffic', [row(3, 'b')]),
      writer.insert('traffic', [row(4, 'c'), row(5, null)]),
      writer.insert('traffic', [row(6, 'd')]),
    ];
    const settled = await Promise.allSettled(calls);
    expect(posted).toHaveBeenCalledTimes(2);
    posted.mockRestore();
    const stored = await t.database.db.selectFrom('traffic_log').select(['id', 'ts']).orderBy('id').execute();
    expect(stored.map((r) => r.ts)).toEqual([1, 2, 3, 6]);
    expect(settled[0]).toEqual({ status: 'fulfilled', value: [stored[0]!.id, stored[1]!.id] });
    expect(settled[1]).toEqual({ status: 'fulfilled', value: [stored[2]!.id] });
    expect(settled[2]).toMatchObject({
      status: 'rejected',
      reason: {
        message: expect.stringMatching(/sqlite writer: NOT NULL constraint failed: traffic_log\.ip/),
      },
    });
    expect(settled[3]).toEqual({ status: 'fulfilled', value: [stored[3]!.id] });
    // Once idle, a call is sent at once again.
    expect(await writer.insert('traffic', [row(7, 'e')])).toHaveLength(1);
  });

  it('writes the rows of several statements given meanwhile in one message; a statement that cannot be prepared fails its own calls only', async () => {
    t = await createTestDatabase('sqlite', mkdtempSync(join(tmpdir(), 'algodesk-tw-')));
    writer = new SqliteWriterThread(t.database.file!, {
      traffic: SINGLE_ROW_INSERT,
      other: SINGLE_ROW_INSERT.replace('traffic_log', 'traffic_log_elsewhere'),
    });
    const row = (i: number): RowTuple => [i, 'a', 'GET', `/p${i}`, 'g', 200, 1, null, null];
    const posted = vi.spyOn(Worker.prototype, 'postMessage');
    // The first call goes at once; the three made while it is in flight, of two statements, go
    // together in the second message.
    const settled = await Promise.allSettled([
      writer.insert('traffic', [row(1)]),
      writer.insert('traffic', [row(2)]),
      writer.insert('other', [row(3)]),
      writer.insert('traffic', [row(4), row(5)]),
    ]);
    expect(posted).toHaveBeenCalledTimes(2);
    posted.mockRestore();
    const stored = await t.database.db.selectFrom('traffic_log').select(['id', 'ts']).orderBy('id').execute();
    expect(stored.map((r) => r.ts)).toEqual([1, 2, 4, 5]);
    expect(settled[0]).toEqual({ status: 'fulfilled', value: [stored[0]!.id] });
    expect(settled[1]).toEqual({ status: 'fulfilled', value: [stored[1]!.id] });
    expect(settled[2]).toMatchObject({
      status: 'rejected',
      reason: { message: expect.stringMatching(/sqlite writer: no such table: traffic_log_elsewhere/) },
    });
    expect(settled[3]).toEqual({ status: 'fulfilled', value: [stored[2]!.id, stored[3]!.id] });
  });

  it('rejects with the database error when a batch cannot be written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'algodesk-tw-'));
    writer = new SqliteWriterThread(join(dir, 'empty.db'), { traffic: SINGLE_ROW_INSERT }); // no traffic_log table
    await expect(writer.insert('traffic', [[1, 'a', 'GET', '/', 'g', 200, 1, null, null]])).rejects.toThrow(
      /sqlite writer: no such table/,
    );
  });
});
