import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { marketFixture } from '../../../test/helpers/market-fixtures.js';
import { HOLIDAYS_2025, HOLIDAYS_2026, SEED_HOLIDAYS } from './holiday-seed.js';
import { toNewHoliday } from './holidays.service.js';
import { isWeekend } from './timings.service.js';

type Entry = {
  tradingDate: string;
  description: string;
  morning_session: string | null;
  evening_session: string | null;
};
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** `DD-Mon-YYYY` → `YYYY-MM-DD`. */
const iso = (d: string) => {
  const [day, mon, year] = d.trim().split('-') as [string, string, string];
  return `${year}-${String(MONTHS.indexOf(mon) + 1).padStart(2, '0')}-${day.padStart(2, '0')}`;
};
const NSE_BSE = ['NSE', 'BSE', 'NFO', 'BFO', 'CDS', 'BCD'];
const MCX_EVENING = [{ exchange: 'MCX', start: '17:00', end: '23:55' }];

const master = JSON.parse(
  readFileSync(marketFixture('holidays', 'nse_holiday_master_2025.json'), 'utf8'),
) as Record<string, Entry[]>;
const weekdays = (entries: Entry[]) => entries.filter((e) => !isWeekend(iso(e.tradingDate)));

describe('holiday seed 2025 matches NSE holiday master 2025', () => {
  const seed = new Map(HOLIDAYS_2025.map((h) => [h.date, h]));
  const cm = weekdays(master.CM!);
  const com = new Map(master.COM!.map((e) => [iso(e.tradingDate), e]));

  it('CM and FO are the same list; every weekday of it closes NSE, BSE, NFO, BFO, CDS and BCD', () => {
    expect(master.FO!.map((e) => e.tradingDate)).toEqual(master.CM!.map((e) => e.tradingDate));
    expect(cm).toHaveLength(14);
    for (const e of cm) {
      const h = seed.get(iso(e.tradingDate));
      expect(h, e.tradingDate).toBeDefined();
      expect(h!.type).toBe('TRADING_HOLIDAY');
      expect(h!.description).toBe(e.description);
      for (const x of NSE_BSE) expect(h!.closed, `${e.tradingDate} ${x}`).toContain(x);
    }
  });

  it("MCX follows the COM segment's morning and evening sessions", () => {
    for (const [date, e] of com) {
      if (isWeekend(date)) continue;
      const h = seed.get(date);
      expect(h, date).toBeDefined();
      const session = `${e.morning_session}/${e.evening_session}`;
      if (session === 'Closed/Closed') {
        expect(h!.closed, date).toContain('MCX');
        expect(h!.open).toEqual([]);
      } else if (session === 'Closed/Open') {
        expect(h!.closed, date).not.toContain('MCX');
        expect(h!.open, date).toEqual(MCX_EVENING);
      } else {
        expect(session).toBe('Open/Closed');
        expect(h!.open, date).toEqual([{ exchange: 'MCX', start: '09:00', end: '17:00' }]);
        expect(h!.closed).toEqual([]);
      }
    }
  });

  it('the dates only the CD/IRD lists carry are settlement holidays of CDS and BCD', () => {
    const cmDates = new Set(master.CM!.map((e) => e.tradingDate));
    for (const seg of ['CD', 'IRD']) {
      const extra = weekdays(master[seg]!).filter((e) => !cmDates.has(e.tradingDate));
      expect(extra.map((e) => iso(e.tradingDate))).toEqual([
        '2025-02-19',
        '2025-04-01',
        '2025-05-12',
        '2025-09-05',
      ]);
      for (const e of extra) {
        const h = seed.get(iso(e.tradingDate))!;
        expect(h).toMatchObject({ type: 'TRADING_HOLIDAY', closed: ['CDS', 'BCD'], open: [] });
        // NSE spells the first one two ways across segments; either is the same holiday.
        expect([e.description, e.description.replace('Chatrapati', 'Chhatrapati')]).toContain(h.description);
      }
    }
  });

  it('lists nothing else: the CM weekdays, the COM-only New Year and the settlement dates', () => {
    expect(HOLIDAYS_2025).toHaveLength(14 + 1 + 4);
    expect(HOLIDAYS_2025.every((h) => h.date.startsWith('2025-') && !isWeekend(h.date))).toBe(true);
  });
});

describe("holiday seed 2026 matches NSE's FO list and the named list", () => {
  const fo = readFileSync(marketFixture('holidays', 'nse_fo_holidays_2026.csv'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map(iso);
  const names = new Map(
    readFileSync(marketFixture('holidays', 'nse_holidays_2024H2-2026_with_descriptions.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => [l.slice(0, 10), l.slice(11).trim()] as const),
  );

  it('has every weekday date of the FO list, named from the description list, incl. 2026-01-15', () => {
    const weekdayDates = fo.filter((d) => !isWeekend(d));
    expect(fo).toHaveLength(20);
    expect(weekdayDates).toHaveLength(16);
    expect(HOLIDAYS_2026.map((h) => h.date)).toEqual(weekdayDates);
    expect(weekdayDates).toContain('2026-01-15');
    for (const h of HOLIDAYS_2026) {
      expect(h.description, h.date).toBe(names.get(h.date));
      expect(h.type).toBe('TRADING_HOLIDAY');
      for (const x of NSE_BSE) expect(h.closed, `${h.date} ${x}`).toContain(x);
    }
  });

  it('MCX closes on the national holidays and trades its evening session on the others', () => {
    const national = ['Republic Day', 'Good Friday', 'Mahatma Gandhi Jayanti', 'Christmas'];
    for (const h of HOLIDAYS_2026) {
      if (national.includes(h.description)) {
        expect(h.closed, h.date).toContain('MCX');
        expect(h.open).toEqual([]);
      } else {
        expect(h.open, h.date).toEqual(MCX_EVENING);
      }
    }
  });
});

describe('every seeded holiday passes the same validation as POST /admin/api/holidays', () => {
  it('converts to rows with IST epoch-ms sessions', () => {
    for (const s of SEED_HOLIDAYS) {
      const h = toNewHoliday({
        holiday_date: s.date,
        description: s.description,
        holiday_type: s.type,
        exchanges: [...s.closed],
        open_exchanges: s.open.map((o) => ({ exchange: o.exchange, start_time: o.start, end_time: o.end })),
      });
      expect(h.year).toBe(Number(s.date.slice(0, 4)));
    }
    const holi = SEED_HOLIDAYS.find((h) => h.date === '2026-03-03')!;
    const rows = toNewHoliday({
      holiday_date: holi.date,
      description: holi.description,
      holiday_type: holi.type,
      exchanges: [...holi.closed],
      open_exchanges: holi.open.map((o) => ({ exchange: o.exchange, start_time: o.start, end_time: o.end })),
    }).exchanges;
    expect(rows.find((r) => r.exchange_code === 'MCX')).toEqual({
      exchange_code: 'MCX',
      is_open: true,
      start_time: Date.parse('2026-03-03T17:00:00+05:30'),
      end_time: Date.parse('2026-03-03T23:55:00+05:30'),
    });
  });
});
