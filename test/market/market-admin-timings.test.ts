/**
 * Market timings through `/admin/api/timings` on each database: seeded from the spec, updated per
 * exchange (the calendar follows at once), bad times refused, and `check` answering each
 * exchange's session on a date in IST (weekends, holidays, special sessions).
 */
import { describe, expect, it } from 'vitest';
import { ist, useMarketAdmin } from '../helpers/market-admin-world.js';
import { describeEachDb } from '../helpers/test-app.js';

describeEachDb('market admin', (dialect) => {
  const w = useMarketAdmin(dialect);
  const { get, post, put, market } = w;

  describe('timings: seeded from the spec, updated per exchange, checked by date', () => {
    it('seeds the spec table', async () => {
      const r = await get('/admin/api/timings');
      expect(r.statusCode).toBe(200);
      expect(r.json().data.map((x: { exchange: string; start_time: string; end_time: string }) => x)).toEqual(
        [
          ['NSE', '09:15', '15:30'],
          ['BSE', '09:15', '15:30'],
          ['NFO', '09:15', '15:40'],
          ['BFO', '09:15', '15:40'],
          ['CDS', '09:00', '17:00'],
          ['BCD', '09:00', '17:00'],
          ['MCX', '09:00', '23:55'],
          ['NCO', '09:00', '23:55'],
          ['CRYPTO', '00:00', '23:59'],
        ].map(([exchange, start_time, end_time]) => ({
          exchange,
          start_time,
          end_time,
          updated_at: new Date(w.t.clock.now()).toISOString(),
        })),
      );
    });

    it('updates an exchange (code case-insensitive); the calendar follows at once', async () => {
      expect(market().isMarketOpen('NSE', ist('2026-01-05', '15:45'))).toBe(false);
      w.t.clock.advance(1000);
      const r = await put('/admin/api/timings/nse', { start_time: '09:00', end_time: '16:00' });
      expect(r.statusCode).toBe(200);
      expect(r.json().data).toEqual({
        exchange: 'NSE',
        start_time: '09:00',
        end_time: '16:00',
        updated_at: new Date(w.t.clock.now()).toISOString(),
      });
      expect(market().isMarketOpen('NSE', ist('2026-01-05', '15:45'))).toBe(true);
      const check = (await post('/admin/api/timings/check', { date: '2026-01-05' })).json().data.sessions;
      expect(check.find((s: { exchange: string }) => s.exchange === 'NSE')).toMatchObject({
        start_time: '09:00',
        end_time: '16:00',
      });
    });

    it('refuses bad times and unknown exchanges', async () => {
      const cases: Array<[string, object, number, RegExp]> = [
        ['NSE', { start_time: '25:00', end_time: '26:00' }, 400, /start_time must be a time written HH:MM/],
        ['NSE', { start_time: '09:15', end_time: '25:00' }, 400, /end_time must be a time written HH:MM/],
        ['NSE', { start_time: '09:60', end_time: '15:30' }, 400, /start_time/],
        ['NSE', { start_time: '9:15', end_time: '15:30' }, 400, /start_time/],
        ['NSE', { start_time: '15:30', end_time: '09:15' }, 400, /start_time must be before end_time/],
        ['NSE', { start_time: '09:15', end_time: '09:15' }, 400, /start_time must be before end_time/],
        ['NSE', { start_time: 915, end_time: '15:30' }, 400, /start_time/],
        ['NSE', { start_time: '09:15' }, 400, /end_time: Missing data/],
        ['NYSE', { start_time: '09:15', end_time: '15:30' }, 404, /No timing for exchange "NYSE"/],
        ['%3Cscript%3E', { start_time: '09:15', end_time: '15:30' }, 404, /No timing for exchange/],
      ];
      for (const [exchange, payload, status, msg] of cases) {
        const r = await put(`/admin/api/timings/${exchange}`, payload);
        expect(r.statusCode, `${exchange} ${JSON.stringify(payload)}`).toBe(status);
        expect(r.json().message).toMatch(msg);
      }
      expect((await get('/admin/api/timings')).json().data[0]).toMatchObject({
        start_time: '09:15',
        end_time: '15:30',
      });
    });

    it("check: each exchange's session that day in IST", async () => {
      const check = async (date: string) => {
        const r = await post('/admin/api/timings/check', { date });
        expect(r.statusCode, date).toBe(200);
        const byExchange = Object.fromEntries(
          (r.json().data.sessions as Array<{ exchange: string }>).map((s) => [s.exchange, s]),
        );
        return { data: r.json().data, s: byExchange };
      };
      const monday = await check('2026-01-05');
      expect(monday.data).toMatchObject({ date: '2026-01-05', weekend: false });
      expect(monday.s.NFO).toEqual({
        exchange: 'NFO',
        open: true,
        reason: 'regular',
        start_time: '09:15',
        end_time: '15:40',
        start_ms: ist('2026-01-05', '09:15'),
        end_ms: ist('2026-01-05', '15:40'),
        holiday: null,
      });
      const saturday = await check('2026-01-10');
      expect(saturday.data.weekend).toBe(true);
      expect(saturday.s.NSE).toMatchObject({
        open: false,
        reason: 'weekend',
        start_time: null,
        start_ms: null,
      });
      expect(saturday.s.CRYPTO).toMatchObject({
        open: true,
        reason: 'regular',
        end_ms: ist('2026-01-11', '00:00'),
      });
      const republic = await check('2026-01-26');
      expect(republic.s.NSE).toMatchObject({ open: false, reason: 'holiday', holiday: 'Republic Day' });
      expect(republic.s.MCX).toMatchObject({ open: false, reason: 'holiday' });
      expect(republic.s.NCO).toMatchObject({ open: true, reason: 'regular' });
      const election = await check('2026-01-15');
      expect(election.s.NFO).toMatchObject({ open: false, reason: 'holiday' });
      expect(election.s.MCX).toMatchObject({
        open: true,
        reason: 'special_session',
        start_time: '17:00',
        end_time: '23:55',
        holiday: 'Municipal Corporation Election - Maharashtra',
      });
      const currency = await check('2025-02-19');
      expect(currency.s.CDS).toMatchObject({
        open: false,
        reason: 'holiday',
        holiday: 'Chhatrapati Shivaji Maharaj Jayanti',
      });
      expect(currency.s.NSE).toMatchObject({ open: true, reason: 'regular' });
      for (const date of ['2026-02-30', 'tomorrow', '2026-13-01', '2026-1-5', '', '2026-01-05T00:00']) {
        const r = await post('/admin/api/timings/check', { date });
        expect(r.statusCode, date).toBe(400);
        expect(r.json().message).toMatch(/date/);
      }
      expect((await post('/admin/api/timings/check', {})).statusCode).toBe(400);
      expect((await post('/admin/api/timings/check', { date: 20260105 })).statusCode).toBe(400);
    });
  });
});
