/**
 * Market holidays seeded into an empty `market_holidays` table: 2025 and 2026, transcribed from
 * the real NSE data in `shared/data/holidays` (see its README). The service never reads those
 * files; `holiday-seed.test.ts` checks this data against them.
 *
 * Choices (weekends are closed by the calendar anyway, so only weekday dates are listed):
 * - 2025 comes from NSE's holiday master (`nse_holiday_master_2025.json`). A date of the CM/FO
 *   lists closes NSE, BSE, NFO, BFO (BSE follows NSE's CM/FO list) and CDS, BCD (the CD list has
 *   every CM date too). The dates only the CD/IRD lists carry (bank holidays) are
 *   TRADING_HOLIDAYs closing CDS and BCD only: NSE lists them as currency *trading* holidays.
 * - MCX follows the JSON's COM segment (the same half-day pattern MCX publishes): morning closed
 *   and evening open = MCX trades the evening session 17:00-23:55 only; both closed = MCX closed;
 *   morning open and evening closed (New Year) = MCX trades 09:00-17:00 only.
 * - 2026 is NSE's FO list (`nse_fo_holidays_2026.csv`, incl. the special closure 2026-01-15) with
 *   names from `nse_holidays_2024H2-2026_with_descriptions.csv`. No 2026 MCX file exists; MCX is
 *   derived from the 2025 COM pattern: both sessions closed on the national holidays (Republic
 *   Day, Good Friday, Gandhi Jayanti, Christmas), evening session open on every other date.
 * - 23:55 is MCX's close in US winter (23:30 in US summer), as in the timings table.
 */
import { CURRENCY_HOLIDAY_EXCHANGES, NSE_CALENDAR_EXCHANGES } from '../../domain/exchanges.js';

/** One seeded holiday: IST date, name, type, exchanges closed and exchanges open (`HH:MM` IST). */
export interface SeedHoliday {
  date: string;
  description: string;
  type: 'TRADING_HOLIDAY' | 'SETTLEMENT_HOLIDAY' | 'SPECIAL_SESSION';
  closed: readonly string[];
  open: ReadonlyArray<{ exchange: string; start: string; end: string }>;
}

/** Cash, equity derivatives and currency derivatives of NSE and BSE. */
const NSE_BSE = NSE_CALENDAR_EXCHANGES;
const CURRENCY = CURRENCY_HOLIDAY_EXCHANGES;
const MCX_EVENING = [{ exchange: 'MCX', start: '17:00', end: '23:55' }] as const;
const MCX_MORNING = [{ exchange: 'MCX', start: '09:00', end: '17:00' }] as const;

/** Everything closed, MCX included (COM: morning and evening closed). */
const allClosed = (date: string, description: string): SeedHoliday => ({
  date,
  description,
  type: 'TRADING_HOLIDAY',
  closed: [...NSE_BSE, 'MCX'],
  open: [],
});

/** NSE/BSE closed, MCX trading its evening session only (COM: morning closed, evening open). */
const mcxEvening = (date: string, description: string): SeedHoliday => ({
  date,
  description,
  type: 'TRADING_HOLIDAY',
  closed: NSE_BSE,
  open: MCX_EVENING,
});

/**
 * Currency segments closed (CD/IRD-only dates: bank holidays in Mumbai). NSE publishes them in its
 * *trading* holiday master for the currency segment, so CDS/BCD do not trade; equity trades.
 */
const currencyClosed = (date: string, description: string): SeedHoliday => ({
  date,
  description,
  type: 'TRADING_HOLIDAY',
  closed: CURRENCY,
  open: [],
});

export const HOLIDAYS_2025: readonly SeedHoliday[] = [
  // COM only: MCX morning session open, evening closed; NSE/BSE trade normally.
  { date: '2025-01-01', description: 'New year', type: 'TRADING_HOLIDAY', closed: [], open: MCX_MORNING },
  currencyClosed('2025-02-19', 'Chhatrapati Shivaji Maharaj Jayanti'),
  mcxEvening('2025-02-26', 'Mahashivratri'),
  mcxEvening('2025-03-14', 'Holi'),
  mcxEvening('2025-03-31', 'Id-Ul-Fitr (Ramadan Eid)'),
  currencyClosed('2025-04-01', 'Annual Bank Closing'),
  mcxEvening('2025-04-10', 'Shri Mahavir Jayanti'),
  mcxEvening('2025-04-14', 'Dr. Baba Saheb Ambedkar Jayanti'),
  allClosed('2025-04-18', 'Good Friday'),
  mcxEvening('2025-05-01', 'Maharashtra Day'),
  currencyClosed('2025-05-12', 'Buddha Pournima'),
  allClosed('2025-08-15', 'Independence Day / Parsi New Year'),
  mcxEvening('2025-08-27', 'Shri Ganesh Chaturthi'),
  currencyClosed('2025-09-05', 'Id-E-Milad'),
  allClosed('2025-10-02', 'Mahatma Gandhi Jayanti/Dussehra'),
  allClosed('2025-10-21', 'Diwali Laxmi Pujan'),
  mcxEvening('2025-10-22', 'Balipratipada'),
  mcxEvening('2025-11-05', 'Prakash Gurpurb Sri Guru Nanak Dev'),
  allClosed('2025-12-25', 'Christmas'),
];

export const HOLIDAYS_2026: readonly SeedHoliday[] = [
  // Special closure: municipal corporation elections in Maharashtra.
  mcxEvening('2026-01-15', 'Municipal Corporation Election - Maharashtra'),
  allClosed('2026-01-26', 'Republic Day'),
  mcxEvening('2026-03-03', 'Holi'),
  mcxEvening('2026-03-26', 'Shri Ram Navami'),
  mcxEvening('2026-03-31', 'Shri Mahavir Jayanti'),
  allClosed('2026-04-03', 'Good Friday'),
  mcxEvening('2026-04-14', 'Dr. Baba Saheb Ambedkar Jayanti'),
  mcxEvening('2026-05-01', 'Maharashtra Day'),
  mcxEvening('2026-05-28', 'Bakri Id'),
  mcxEvening('2026-06-26', 'Muharram'),
  mcxEvening('2026-09-14', 'Ganesh Chaturthi'),
  allClosed('2026-10-02', 'Mahatma Gandhi Jayanti'),
  mcxEvening('2026-10-20', 'Dussehra'),
  mcxEvening('2026-11-10', 'Diwali Balipratipada'),
  mcxEvening('2026-11-24', 'Prakash Gurpurb Sri Guru Nanak Dev'),
  allClosed('2026-12-25', 'Christmas'),
];

/** What an empty table is seeded with. */
export const SEED_HOLIDAYS: readonly SeedHoliday[] = [...HOLIDAYS_2025, ...HOLIDAYS_2026];
