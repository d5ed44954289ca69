/**
 * `/admin/api/stats`' entry counts, and the market admin caches on each database: another
 * instance on the same database reloads freeze quantities, holidays and timings through the
 * invalidation bus, and a second instance seeds nothing twice.
 */
import { describe, expect, it } from 'vitest';
import { LocalInvalidationBus } from '../../src/platform/invalidation.js';
import { ist, NSE_CSV, useMarketAdmin } from '../helpers/market-admin-world.js';
import { createTestApp, createUser, describeEachDb, login } from '../helpers/test-app.js';

describeEachDb('market admin', (dialect) => {
  const w = useMarketAdmin(dialect);
  const { get, post, put, upload, file } = w;

  describe('stats: entry counts', () => {
    it('counts freeze entries, holidays and timings', async () => {
      await upload(file(NSE_CSV));
      await post('/admin/api/freeze', { exchange: 'MCX', symbol: 'GOLD', freeze_qty: 50 });
      expect((await get('/admin/api/stats')).json()).toEqual({
        status: 'success',
        data: { freeze_count: 214, holiday_count: 35, timing_count: 9 },
      });
    });
  });

  describe('caches: another instance on the same database follows every change through the bus', () => {
    it('freeze quantities, holidays and timings reload on the other instance', async () => {
      await w.t.close();
      const bus = new LocalInvalidationBus();
      w.t = await createTestApp(dialect, { bus });
      await createUser(w.t);
      w.admin = await login(w.t);
      const other = await createTestApp(dialect, { db: w.t.db, bus });
      try {
        const eventually = async (check: () => boolean) => {
          for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
          expect(check()).toBe(true);
        };
        await upload(file(NSE_CSV));
        await eventually(() => other.services.marketAdmin.freezeQty('NFO', 'NIFTY') === 1800);
        await put('/admin/api/timings/NSE', { start_time: '09:00', end_time: '16:00' });
        await eventually(() => other.services.marketAdmin.isMarketOpen('NSE', ist('2026-01-05', '15:45')));
        await post('/admin/api/holidays', {
          holiday_date: '2026-01-06',
          description: 'Test',
          exchanges: ['NSE'],
        });
        await eventually(() => other.services.marketAdmin.sessionOn('NSE', '2026-01-06')?.open === false);
        // Starting a second instance on a seeded database seeds nothing twice.
        expect((await get('/admin/api/stats')).json().data).toMatchObject({
          holiday_count: 36,
          timing_count: 9,
        });
      } finally {
        await other.close();
      }
    });
  });
});
