import { describe, expect, it } from 'vitest';
import { SEED_HOLIDAYS } from './holiday-seed.js';
import {
  DEFAULT_TIMINGS,
  isIsoDate,
  istDateOf,
  istInstant,
  istTimeOf,
  isWeekend,
  MarketCalendar,
  parseHhmm,
  Snapshot,
  type CalendarHoliday,
  type TimingView,
} from './timings.service.js';

/** Epoch ms of an IST wall-clock time, written independently of the code under test. */
const ist = (date: string, hhmm: string) => Date.parse(`${date}T${hhmm}:00+05:30`);

function calendar(extra: CalendarHoliday[] = []) {
  const timings = new Map<string, TimingView>(
    DEFAULT_TIMINGS.map((t) => [t.exchange, { ...t, updated_at: '2026-01-01T00:00:00.000Z' }]),
  );
  const holidays: CalendarHoliday[] = [
    ...SEED_HOLIDAYS.map((h, i) => ({
      id: i + 1,
      holiday_date: h.date,
      description: h.description,
      holiday_type: h.type,
      closed_exchanges: h.closed,
      open_exchanges: h.open.map((o) => ({ exchange: o.exchange, start_time: o.start, end_time: o.end })),
    })),
    ...extra,
  ];
  const byDate = (date: string) =>
    holidays.filter((h) => (h as CalendarHoliday & { holiday_date: string }).holiday_date === date);
  return new MarketCalendar(
    { timing: (e) => timings.get(e), exchanges: () => [...timings.keys()] },
    { onDate: byDate },
  );
}

describe('IST date and time arithmetic (UTC+05:30, no daylight saving)', () => {
  it('accepts real calendar dates only', () => {
    for (const d of ['2026-01-01', '2024-02-29', '2026-12-31', '2000-01-01', '2100-12-31']) {
      expect(isIsoDate(d), d).toBe(true);
    }
    for (const d of [
      '2026-02-30',
      '2025-02-29',
      '2026-13-01',
      '2026-00-10',
      '2026-1-5',
      'tomorrow',
      '',
      '1999-12-31',
    ]) {
      expect(isIsoDate(d), d).toBe(false);
    }
  });

  it('parses HH:MM from 00:00 to 23:59 only', () => {
    expect(parseHhmm('00:00')).toBe(0);
    expect(parseHhmm('09:15')).toBe(555);
    expect(parseHhmm('23:59')).toBe(1439);
    for (const s of ['24:00', '25:00', '9:15', '09:60', '0915', '09:15:00', ' 09:15']) {
      expect(parseHhmm(s), s).toBeUndefined();
    }
  });

  it('maps instants to IST dates and times across the UTC day boundary', () => {
    expect(istInstant('2026-01-05', '09:15')).toBe(Date.UTC(2026, 0, 5, 3, 45));
    expect(istDateOf(Date.UTC(2026, 0, 5, 18, 29, 59))).toBe('2026-01-05'); // 23:59:59 IST
    expect(istDateOf(Date.UTC(2026, 0, 5, 18, 30))).toBe('2026-01-06'); // 00:00 IST
    expect(istTimeOf(Date.UTC(2026, 0, 5, 18, 30))).toBe('00:00');
    expect(isWeekend('2026-01-10')).toBe(true); // Saturday
    expect(isWeekend('2026-01-11')).toBe(true);
    expect(isWeekend('2026-01-12')).toBe(false);
  });
});

describe('isMarketOpen: timings, weekends, holidays and special sessions at fixed instants', () => {
  const cal = calendar();

  it('NSE trades 09:15 to 15:30 IST on a weekday, [open, close)', () => {
    expect(cal.isMarketOpen('NSE', ist('2026-01-05', '09:14') + 59_999)).toBe(false);
    expect(cal.isMarketOpen('NSE', ist('2026-01-05', '09:15'))).toBe(true);
    expect(cal.isMarketOpen('NSE', ist('2026-01-05', '15:29') + 59_999)).toBe(true);
    expect(cal.isMarketOpen('NSE', ist('2026-01-05', '15:30'))).toBe(false);
  });

  it('derivative exchanges follow their own timings', () => {
    const at = ist('2026-01-05', '15:35');
    expect(cal.isMarketOpen('NSE', at)).toBe(false);
    expect(cal.isMarketOpen('NFO', at)).toBe(true);
    expect(cal.isMarketOpen('BFO', at)).toBe(true);
    expect(cal.isMarketOpen('NFO', ist('2026-01-05', '15:40'))).toBe(false);
    expect(cal.isMarketOpen('CDS', ist('2026-01-05', '09:00'))).toBe(true);
    expect(cal.isMarketOpen('CDS', ist('2026-01-05', '17:00'))).toBe(false);
    expect(cal.isMarketOpen('MCX', ist('2026-01-05', '23:54'))).toBe(true);
    expect(cal.isMarketOpen('MCX', ist('2026-01-05', '23:55'))).toBe(false);
  });

  it('index exchanges follow their cash market; unknown exchanges are never open', () => {
    expect(cal.isMarketOpen('NSE_INDEX', ist('2026-01-05', '10:00'))).toBe(true);
    expect(cal.isMarketOpen('bse_index', ist('2026-01-05', '10:00'))).toBe(true);
    expect(cal.isMarketOpen('NSE_INDEX', ist('2026-01-26', '10:00'))).toBe(false);
    expect(cal.sessionOn('NSE_INDEX', '2026-01-05')!.exchange).toBe('NSE_INDEX');
    expect(cal.isMarketOpen('NYSE', ist('2026-01-05', '10:00'))).toBe(false);
    expect(cal.sessionOn('NYSE', '2026-01-05')).toBeUndefined();
  });

  it('weekends are closed, except CRYPTO, which trades the whole day every day', () => {
    expect(cal.isMarketOpen('NSE', ist('2026-01-10', '10:00'))).toBe(false);
    expect(cal.isMarketOpen('MCX', ist('2026-01-11', '20:00'))).toBe(false);
    expect(cal.isMarketOpen('CRYPTO', ist('2026-01-10', '00:00'))).toBe(true);
    expect(cal.isMarketOpen('CRYPTO', ist('2026-01-10', '23:59') + 59_999)).toBe(true);
    expect(cal.isMarketOpen('CRYPTO', ist('2026-01-26', '12:00'))).toBe(true);
  });

  it('a trading holiday closes the exchanges it lists; MCX trades its evening session when listed open', () => {
    // Holi, 2026-03-03: NSE/BSE and derivatives closed; MCX evening 17:00-23:55.
    for (const e of ['NSE', 'BSE', 'NFO', 'BFO', 'CDS', 'BCD']) {
      expect(cal.isMarketOpen(e, ist('2026-03-03', '11:00')), e).toBe(false);
    }
    expect(cal.isMarketOpen('MCX', ist('2026-03-03', '10:00'))).toBe(false);
    expect(cal.isMarketOpen('MCX', ist('2026-03-03', '16:59'))).toBe(false);
    expect(cal.isMarketOpen('MCX', ist('2026-03-03', '17:00'))).toBe(true);
    expect(cal.isMarketOpen('MCX', ist('2026-03-03', '23:54'))).toBe(true);
    expect(cal.isMarketOpen('MCX', ist('2026-03-03', '23:55'))).toBe(false);
    // NCO cannot be named by a holiday: it keeps its timing.
    expect(cal.isMarketOpen('NCO', ist('2026-03-03', '10:00'))).toBe(true);
    // Christmas closes MCX too; 2026-01-15 (special closure) keeps MCX's evening.
    expect(cal.isMarketOpen('MCX', ist('2026-12-25', '20:00'))).toBe(false);
    expect(cal.isMarketOpen('NSE', ist('2026-01-15', '10:00'))).toBe(false);
    expect(cal.isMarketOpen('MCX', ist('2026-01-15', '20:00'))).toBe(true);
    // New Year 2025: MCX's morning session only.
    expect(cal.isMarketOpen('MCX', ist('2025-01-01', '10:00'))).toBe(true);
    expect(cal.isMarketOpen('MCX', ist('2025-01-01', '18:00'))).toBe(false);
    expect(cal.isMarketOpen('NSE', ist('2025-01-01', '10:00'))).toBe(true);
  });

  it('a currency-only trading holiday closes CDS and BCD, not equity', () => {
    expect(cal.isMarketOpen('CDS', ist('2025-02-19', '10:00'))).toBe(false);
    expect(cal.isMarketOpen('BCD', ist('2025-02-19', '10:00'))).toBe(false);
    expect(cal.isMarketOpen('NSE', ist('2025-02-19', '10:00'))).toBe(true);
    expect(cal.sessionOn('CDS', '2025-02-19')).toMatchObject({
      open: false,
      reason: 'holiday',
      holiday: 'Chhatrapati Shivaji Maharaj Jayanti',
    });
  });

  it('a settlement holiday does not close trading; the session names it', () => {
    const c = calendar([
      {
        id: 1001,
        holiday_date: '2026-11-18',
        description: 'Settlement closed',
        holiday_type: 'SETTLEMENT_HOLIDAY',
        closed_exchanges: ['CDS'],
        open_exchanges: [],
      } as CalendarHoliday & { holiday_date: string },
    ]);
    expect(c.isMarketOpen('CDS', ist('2026-11-18', '10:00'))).toBe(true);
    expect(c.sessionOn('CDS', '2026-11-18')).toMatchObject({
      open: true,
      reason: 'regular',
      holiday: 'Settlement closed',
    });
    expect(c.sessionOn('NSE', '2026-11-18')!.holiday).toBeNull();
  });

  it('a special session opens an exchange on a weekend or a holiday, for its hours only', () => {
    const muhurat: CalendarHoliday & { holiday_date: string } = {
      id: 1000,
      holiday_date: '2026-11-08', // Sunday
      description: 'Muhurat trading',
      holiday_type: 'SPECIAL_SESSION',
      closed_exchanges: ['CDS'],
      open_exchanges: [{ exchange: 'NSE', start_time: '18:00', end_time: '19:15' }],
    };
    const c = calendar([muhurat]);
    expect(c.isMarketOpen('NSE', ist('2026-11-08', '17:59'))).toBe(false);
    expect(c.isMarketOpen('NSE', ist('2026-11-08', '18:00'))).toBe(true);
    expect(c.isMarketOpen('NSE', ist('2026-11-08', '19:15'))).toBe(false);
    expect(c.isMarketOpen('BSE', ist('2026-11-08', '18:30'))).toBe(false);
    expect(c.sessionOn('NSE', '2026-11-08')).toEqual({
      exchange: 'NSE',
      date: '2026-11-08',
      open: true,
      reason: 'special_session',
      start_time: '18:00',
      end_time: '19:15',
      start_ms: ist('2026-11-08', '18:00'),
      end_ms: ist('2026-11-08', '19:15'),
      holiday: 'Muhurat trading',
    });
  });

  it('sessionsOn lists every exchange with a timing, in table order', () => {
    const s = cal.sessionsOn('2026-01-26');
    expect(s.map((x) => x.exchange)).toEqual(DEFAULT_TIMINGS.map((t) => t.exchange));
    expect(s.filter((x) => x.open).map((x) => x.exchange)).toEqual(['NCO', 'CRYPTO']);
    expect(s.find((x) => x.exchange === 'NSE')).toMatchObject({ reason: 'holiday', holiday: 'Republic Day' });
  });
});

describe('Snapshot: a late reload never overwrites a newer one', () => {
  it('keeps the value of the reload that started last', async () => {
    const releases: Array<(v: number) => void> = [];
    const snap = new Snapshot(0, () => new Promise<number>((resolve) => releases.push(resolve)));
    const first = snap.reload();
    const second = snap.reload();
    releases[1]!(2);
    await second;
    releases[0]!(1);
    await first;
    expect(snap.value).toBe(2);
  });
});
