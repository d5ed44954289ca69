/**
 * Retention of the traffic and error logs (docs/rules/web.md#log-retention): configurable, run
 * by the instance on its own every few minutes, and in batches, so a year-old install's purge
 * never holds the database for the length of one huge DELETE.
 */
import type { KyselyPlugin } from 'kysely';
import { afterEach, expect, it, vi } from 'vitest';
import { RETENTION_SWEEP_MS } from '../../src/modules/observability/observability.plugin.js';
import { TrafficRepository } from '../../src/modules/observability/traffic.repository.js';
import { deleteBelow } from '../../src/platform/db/batched-delete.js';
import { trafficRow } from '../helpers/observability.js';
import { createTestApp, describeEachDb, type TestApp } from '../helpers/test-app.js';

const DAY = 86_400_000;

async function trafficTimes(t: TestApp): Promise<number[]> {
  const rows = await t.db.database.db.selectFrom('traffic_log').select('ts').orderBy('ts').execute();
  return rows.map((r) => Number(r.ts));
}

describeEachDb('log retention', (dialect) => {
  let t: TestApp;
  afterEach(async () => {
    vi.useRealTimers();
    await t.close();
  });

  it('deletes in batches, oldest first: every row below the bound goes, one statement per batch', async () => {
    t = await createTestApp(dialect);
    await new TrafficRepository(t.db.database.db).insertMany(
      Array.from({ length: 2_350 }, (_, i) => trafficRow(i)),
    );
    const statements: string[] = [];
    const plugin: KyselyPlugin = {
      transformQuery: (args) => (statements.push(args.node.kind), args.node),
      transformResult: (args) => Promise.resolve(args.result),
    };
    const db = t.db.database.db.withPlugin(plugin);
    expect(await deleteBelow(db, 'traffic_log', 'ts', 2_000, 500)).toBe(2_000);
    // Four full batches, then one that finds nothing left and stops.
    expect(statements).toHaveLength(5);
    const left = await trafficTimes(t);
    expect(left).toHaveLength(350);
    expect(left[0]).toBe(2_000);
    expect(await deleteBelow(db, 'traffic_log', 'ts', 2_000, 500)).toBe(0);
  });

  it('takes its limits from the configuration and reports them; a burst is purged by the writer, the newest kept', async () => {
    t = await createTestApp(dialect, {
      env: { TRAFFIC_RETENTION_DAYS: '1', ERROR_LOG_RETENTION_DAYS: '2', ERROR_LOG_MAX_ROWS: '100' },
    });
    const errors = t.services.observability.errors;
    expect((await errors.stats()).retention).toEqual({ max_rows: 100, max_age_days: 2 });
    t.app.log.error('three days old');
    await errors.flush();
    t.clock.advance(3 * DAY);
    // 150 rows in one write: past a tenth of the cap, so the writer purges without waiting for the
    // sweep (the row past its age and the 50 oldest of the burst go).
    for (let i = 0; i < 150; i++) t.app.log.error(`row ${i}`);
    await errors.flush();
    const messages = (await errors.list({ limit: 500 })).entries.map((e) => e.message);
    expect(messages).toHaveLength(100);
    expect(messages[0]).toBe('row 149');
    expect(messages.at(-1)).toBe('row 50');
    expect(await errors.purge()).toBe(0);

    const now = t.clock.now();
    await new TrafficRepository(t.db.database.db).insertMany([
      trafficRow(now - DAY - 1),
      trafficRow(now - DAY + 1),
    ]);
    expect(await t.services.observability.traffic.purge()).toBe(1);
    expect(await trafficTimes(t)).toEqual([now - DAY + 1]);
  });

  it('runs on its own: one sweep after the interval removes what is past the retention', async () => {
    // Only the intervals are faked: the app's own clock is the test's FakeClock.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    t = await createTestApp(dialect, { env: { TRAFFIC_RETENTION_DAYS: '1' } });
    const now = t.clock.now();
    await new TrafficRepository(t.db.database.db).insertMany([
      trafficRow(now - 40 * DAY),
      trafficRow(now - 2 * DAY),
      trafficRow(now - 1_000),
    ]);
    t.app.log.error('old error');
    await t.services.observability.errors.flush();
    t.clock.advance(31 * DAY);
    t.app.log.error('new error');
    await t.services.observability.errors.flush();
    await vi.advanceTimersByTimeAsync(RETENTION_SWEEP_MS);
    // The sweep purges the traffic log, then the error log: both are waited for.
    await vi.waitFor(
      async () => {
        expect(await trafficTimes(t)).toEqual([]);
        const messages = (await t.services.observability.errors.list({ limit: 10 })).entries.map(
          (e) => e.message,
        );
        expect(messages).toEqual(['new error']);
      },
      { timeout: 5_000 },
    );
  });
});
