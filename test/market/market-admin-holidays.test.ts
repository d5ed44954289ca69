/**
 * Market holidays through `/admin/api/holidays` on each database: 2025 and 2026 seeded, listed by
 * year (the current IST year by default), added with closed exchanges and special sessions, and
 * deleted; the trading calendar follows at once; bad input refused, naming the problem.
 */
import { describe, expect, it } from 'vitest';
import { ist, useMarketAdmin } from '../helpers/market-admin-world.js';
import { describeEachDb } from '../helpers/test-app.js';

describeEachDb('market admin', (dialect) => {
  const w = useMarketAdmin(dialect);
  const { get, post, del, market } = w;

  describe('holidays: seeded 2025 and 2026, listed by year, added and deleted', () => {
    type Holiday = {
      id: number;
      holiday_date: string;
      description: string;
      holiday_type: string;
      closed_exchanges: string[];
      open_exchanges: Array<{
        exchange: string;
        start_time: string;
        end_time: string;
        start_ms: number;
        end_ms: number;
      }>;
    };
    const year = async (y?: number): Promise<Holiday[]> => {
      const r = await get(`/admin/api/holidays${y === undefined ? '' : `?year=${y}`}`);
      expect(r.statusCode).toBe(200);
      return r.json().data as Holiday[];
    };

    it('seeds 2025 from the NSE holiday master and 2026 from the FO list, sorted by date', async () => {
      const y2025 = await year(2025);
      expect(y2025).toHaveLength(19);
      const dates = y2025.map((h) => h.holiday_date);
      expect(dates).toEqual([...dates].sort());
      const holi = y2025.find((h) => h.holiday_date === '2025-03-14')!;
      expect(holi).toMatchObject({
        description: 'Holi',
        holiday_type: 'TRADING_HOLIDAY',
        closed_exchanges: ['NSE', 'BSE', 'NFO', 'BFO', 'CDS', 'BCD'],
        open_exchanges: [
          {
            exchange: 'MCX',
            start_time: '17:00',
            end_time: '23:55',
            start_ms: ist('2025-03-14', '17:00'),
            end_ms: ist('2025-03-14', '23:55'),
          },
        ],
      });
      expect(y2025.find((h) => h.holiday_date === '2025-12-25')!.closed_exchanges).toContain('MCX');
      expect(y2025.find((h) => h.holiday_date === '2025-02-19')).toMatchObject({
        holiday_type: 'TRADING_HOLIDAY',
        closed_exchanges: ['CDS', 'BCD'],
      });

      const y2026 = await year(2026);
      expect(y2026).toHaveLength(16);
      expect(y2026[0]).toMatchObject({
        holiday_date: '2026-01-15',
        description: 'Municipal Corporation Election - Maharashtra',
        closed_exchanges: ['NSE', 'BSE', 'NFO', 'BFO', 'CDS', 'BCD'],
      });
      expect(await year(2024)).toEqual([]);
      const stats = (await get('/admin/api/stats')).json();
      expect(stats).toEqual({
        status: 'success',
        data: { freeze_count: 0, holiday_count: 35, timing_count: 9 },
      });
    });

    it('the year defaults to the current year in IST (from the injected clock)', async () => {
      w.t.clock.set(Date.parse('2025-12-31T18:29:00Z')); // 23:59 IST, 31 Dec 2025
      expect((await get('/admin/api/holidays')).json().year).toBe(2025);
      w.t.clock.set(Date.parse('2025-12-31T18:31:00Z')); // 00:01 IST, 1 Jan 2026
      const r = (await get('/admin/api/holidays')).json();
      expect(r.year).toBe(2026);
      expect(r.data).toHaveLength(16);
      for (const q of ['abc', '1999', '2101', '2026.5']) {
        expect((await get(`/admin/api/holidays?year=${q}`)).statusCode, q).toBe(400);
      }
    });

    it('adds a holiday with closed exchanges and special sessions (times stored as epoch ms of IST)', async () => {
      const r = await post('/admin/api/holidays', {
        holiday_date: '2026-11-08',
        description: '  Diwali Laxmi Pujan (Muhurat trading)  ',
        holiday_type: 'SPECIAL_SESSION',
        exchanges: ['CDS', 'BCD'],
        open_exchanges: [
          { exchange: 'NSE', start_time: '18:00', end_time: '19:15' },
          { exchange: 'MCX', start_time: '18:00', end_time: '23:59' },
        ],
      });
      expect(r.statusCode).toBe(200);
      const h = r.json().data as Holiday;
      expect(h).toMatchObject({
        holiday_date: '2026-11-08',
        description: 'Diwali Laxmi Pujan (Muhurat trading)',
        holiday_type: 'SPECIAL_SESSION',
        closed_exchanges: ['CDS', 'BCD'],
        open_exchanges: [
          { exchange: 'NSE', start_time: '18:00', end_time: '19:15', start_ms: ist('2026-11-08', '18:00') },
          { exchange: 'MCX', start_time: '18:00', end_time: '23:59', end_ms: ist('2026-11-09', '00:00') },
        ],
      });
      const rows = await w.t.db.database.db
        .selectFrom('market_holiday_exchanges')
        .selectAll()
        .where('holiday_id', '=', h.id)
        .orderBy('id')
        .execute();
      expect(rows.map((x) => [x.exchange_code, x.start_time, x.end_time])).toEqual([
        ['CDS', null, null],
        ['BCD', null, null],
        ['NSE', ist('2026-11-08', '18:00'), ist('2026-11-08', '19:15')],
        ['MCX', ist('2026-11-08', '18:00'), ist('2026-11-09', '00:00')],
      ]);
      expect((await year(2026)).map((x) => x.holiday_date)).toContain('2026-11-08');
      // The calendar follows at once: a Sunday with a Muhurat session.
      expect(market().isMarketOpen('NSE', ist('2026-11-08', '18:30'))).toBe(true);
      expect(market().isMarketOpen('NSE', ist('2026-11-08', '19:15'))).toBe(false);
      expect(market().isMarketOpen('BSE', ist('2026-11-08', '18:30'))).toBe(false);
    });

    it('the holiday type defaults to TRADING_HOLIDAY; hostile text is stored as text', async () => {
      const description = `<script>alert("x")</script>'); DROP TABLE market_holidays; --`;
      const r = await post('/admin/api/holidays', {
        holiday_date: '2026-07-01',
        description,
        exchanges: ['MCX'],
      });
      expect(r.statusCode).toBe(200);
      expect(r.json().data).toMatchObject({
        holiday_type: 'TRADING_HOLIDAY',
        description,
        closed_exchanges: ['MCX'],
      });
      expect(await year(2026)).toHaveLength(17);
    });

    it('refuses bad dates, types, exchange codes, times and sessions, naming the problem', async () => {
      const base = {
        holiday_date: '2026-07-01',
        description: 'Test',
        holiday_type: 'TRADING_HOLIDAY',
        exchanges: ['NSE'],
      };
      const open = (o: object) => ({
        ...base,
        holiday_type: 'SPECIAL_SESSION',
        exchanges: [],
        open_exchanges: [o],
      });
      const cases: Array<[object, RegExp]> = [
        [{ ...base, holiday_date: '2026-02-30' }, /holiday_date must be a real calendar date/],
        [{ ...base, holiday_date: '2025-02-29' }, /holiday_date must be a real calendar date/],
        [{ ...base, holiday_date: 'tomorrow' }, /holiday_date must be a real calendar date/],
        [{ ...base, holiday_date: '2026-7-1' }, /holiday_date/],
        [{ ...base, holiday_date: '01-07-2026' }, /holiday_date/],
        [{ ...base, holiday_date: 20260701 }, /holiday_date/],
        [{ ...base, description: '' }, /description/],
        [{ ...base, description: '    ' }, /description must be 1 to 150 characters/],
        [{ ...base, description: 'x'.repeat(151) }, /description/],
        [{ ...base, description: 'tab\there' }, /description/],
        [{ ...base, holiday_type: 'HOLIDAY' }, /holiday_type: Must be one of: TRADING_HOLIDAY/],
        [{ ...base, exchanges: ['NYSE'] }, /unknown exchange code "NYSE"/],
        [{ ...base, exchanges: ['nse'] }, /unknown exchange code "nse"/],
        [{ ...base, exchanges: ['NSE', 'NCO'] }, /unknown exchange code "NCO"/],
        [{ ...base, exchanges: ['NSE', 'NSE'] }, /NSE is listed more than once/],
        [{ ...base, exchanges: 'NSE' }, /exchanges/],
        [{ ...base, exchanges: [] }, /must close \(or open a session on\) at least one exchange/],
        [{ ...base, holiday_type: 'SPECIAL_SESSION' }, /SPECIAL_SESSION needs at least one open exchange/],
        [
          open({ exchange: 'NSE', start_time: '25:00', end_time: '26:00' }),
          /start_time must be a time written HH:MM/,
        ],
        [
          open({ exchange: 'NSE', start_time: '18:00', end_time: '24:00' }),
          /end_time must be a time written HH:MM/,
        ],
        [open({ exchange: 'NSE', start_time: '9:15', end_time: '10:00' }), /start_time/],
        [
          open({ exchange: 'NSE', start_time: '19:15', end_time: '18:00' }),
          /NSE: start_time must be before end_time/,
        ],
        [
          open({ exchange: 'NSE', start_time: '18:00', end_time: '18:00' }),
          /start_time must be before end_time/,
        ],
        [open({ exchange: 'XYZ', start_time: '18:00', end_time: '19:00' }), /unknown exchange code "XYZ"/],
        [open({ exchange: 'NSE', start_time: '18:00' }), /end_time: Missing data/],
        [
          { ...base, open_exchanges: [{ exchange: 'NSE', start_time: '18:00', end_time: '19:00' }] },
          /more than once/,
        ],
        [{ ...base, extra: 1 }, /Must NOT have additional properties/],
      ];
      for (const [payload, msg] of cases) {
        const r = await post('/admin/api/holidays', payload);
        expect(r.statusCode, JSON.stringify(payload)).toBe(400);
        expect(r.json().message, JSON.stringify(payload)).toMatch(msg);
      }
      expect(await year(2026)).toHaveLength(16);
    });

    it('deletes a holiday with its exchange rows; an unknown id is 404', async () => {
      const holi = (await year(2026)).find((h) => h.holiday_date === '2026-03-03')!;
      expect(market().sessionOn('NSE', '2026-03-03')!.open).toBe(false);
      expect((await del(`/admin/api/holidays/${holi.id}`)).statusCode).toBe(200);
      expect((await year(2026)).map((h) => h.holiday_date)).not.toContain('2026-03-03');
      const left = await w.t.db.database.db
        .selectFrom('market_holiday_exchanges')
        .selectAll()
        .where('holiday_id', '=', holi.id)
        .execute();
      expect(left).toEqual([]);
      expect(market().sessionOn('NSE', '2026-03-03')!.open).toBe(true);
      const again = await del(`/admin/api/holidays/${holi.id}`);
      expect(again.statusCode).toBe(404);
      expect(again.json()).toMatchObject({ status: 'error', code: 'not_found' });
      expect((await del('/admin/api/holidays/abc')).statusCode).toBe(400);
    });
  });
});
