import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
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

  it('rejects with the database error when a batch cannot be written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'algodesk-tw-'));
    writer = new SqliteWriterThread(join(dir, 'empty.db'), { traffic: SINGLE_ROW_INSERT }); // no traffic_log table
    await expect(writer.insert('traffic', [[1, 'a', 'GET', '/', 'g', 200, 1, null, null]])).rejects.toThrow(
      /sqlite writer: no such table/,
    );
  });
});
