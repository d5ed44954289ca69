import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import { fromDbBool } from '../../platform/db/database.js';
import { badRequest, notFound } from '../../platform/errors.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import { SEED_HOLIDAYS, type SeedHoliday } from './holiday-seed.js';
import type { HolidaysRepository, NewHoliday, StoredHoliday } from './holidays.repository.js';
import {
  istDateOf,
  istTimeOf,
  parseHhmm,
  requireHhmm,
  requireIsoDate,
  sessionWindow,
  Snapshot,
  syncAcrossInstances,
  type CalendarHoliday,
  type HolidaySource,
} from './timings.service.js';
import { HOLIDAY_EXCHANGES } from '../../domain/exchanges.js';

/** TRADING_HOLIDAY: closure; SETTLEMENT_HOLIDAY: settlement closed, trading open; SPECIAL_SESSION. */
export const HOLIDAY_TYPES = ['TRADING_HOLIDAY', 'SETTLEMENT_HOLIDAY', 'SPECIAL_SESSION'] as const;
export type HolidayType = (typeof HOLIDAY_TYPES)[number];

const TOPIC = 'market-holidays';
const ORDER = new Map<string, number>(HOLIDAY_EXCHANGES.map((e, i) => [e, i]));
const byExchange = (a: string, b: string) =>
  (ORDER.get(a) ?? 99) - (ORDER.get(b) ?? 99) || a.localeCompare(b);
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/** An exchange trading a special session on a holiday. */
export interface OpenExchangeView {
  exchange: string;
  /** `HH:MM` IST. */
  start_time: string;
  end_time: string;
  /** Epoch ms of the same times on the holiday's date. */
  start_ms: number;
  end_ms: number;
}

/** A holiday as the routes and the calendar show it. */
export interface HolidayView extends CalendarHoliday {
  id: number;
  holiday_date: string;
  description: string;
  holiday_type: string;
  year: number;
  closed_exchanges: string[];
  open_exchanges: OpenExchangeView[];
}

export interface NewHolidayInput {
  holiday_date: string;
  description: string;
  holiday_type?: string;
  /** Exchange codes closed on that date. */
  exchanges?: string[];
  /** Exchanges open for a special session, `HH:MM` IST. */
  open_exchanges?: Array<{ exchange: string; start_time: string; end_time: string }>;
}

function toView({ holiday, exchanges }: StoredHoliday): HolidayView {
  const open = exchanges
    .filter((e) => fromDbBool(e.is_open) && e.start_time !== null && e.end_time !== null)
    .map((e) => ({
      exchange: e.exchange_code,
      start_time: istTimeOf(e.start_time!),
      // A session ending at 23:59 is stored as the next midnight (sessionWindow): shown as 23:59.
      end_time: istDateOf(e.end_time!) === holiday.holiday_date ? istTimeOf(e.end_time!) : '23:59',
      start_ms: e.start_time!,
      end_ms: e.end_time!,
    }))
    .sort((a, b) => byExchange(a.exchange, b.exchange));
  return {
    id: holiday.id,
    holiday_date: holiday.holiday_date,
    description: holiday.description,
    holiday_type: holiday.holiday_type,
    year: holiday.year,
    closed_exchanges: exchanges
      .filter((e) => !fromDbBool(e.is_open))
      .map((e) => e.exchange_code)
      .sort(byExchange),
    open_exchanges: open,
  };
}

/** A quoted, bounded echo of client input for an error message. */
const shown = (s: string) => JSON.stringify(s.length > 20 ? `${s.slice(0, 20)}…` : s);

function checkExchange(code: string, field: string): string {
  if (!(HOLIDAY_EXCHANGES as readonly string[]).includes(code)) {
    const msg = `unknown exchange code ${shown(code)}; use ${HOLIDAY_EXCHANGES.join(', ')}`;
    throw badRequest(`${field}: ${msg}`, { [field]: [msg] });
  }
  return code;
}

/** Validates a holiday and turns it into rows (`HH:MM` → epoch ms of that date in IST). */
export function toNewHoliday(input: NewHolidayInput): NewHoliday {
  const date = requireIsoDate(input.holiday_date, 'holiday_date');
  const description = input.description.trim();
  if (description.length === 0 || description.length > 150 || CONTROL.test(description)) {
    const msg = 'must be 1 to 150 characters without control characters';
    throw badRequest(`description ${msg}`, { description: [msg] });
  }
  const type = input.holiday_type ?? 'TRADING_HOLIDAY';
  if (!(HOLIDAY_TYPES as readonly string[]).includes(type)) {
    const msg = `must be one of ${HOLIDAY_TYPES.join(', ')}`;
    throw badRequest(`holiday_type ${msg}`, { holiday_type: [msg] });
  }
  const closed = (input.exchanges ?? []).map((c) => checkExchange(c, 'exchanges'));
  const open = (input.open_exchanges ?? []).map((o) => {
    checkExchange(o.exchange, 'open_exchanges');
    requireHhmm(o.start_time, 'open_exchanges.start_time');
    requireHhmm(o.end_time, 'open_exchanges.end_time');
    if (parseHhmm(o.start_time)! >= parseHhmm(o.end_time)!) {
      const msg = `${o.exchange}: start_time must be before end_time`;
      throw badRequest(`open_exchanges: ${msg}`, { open_exchanges: [msg] });
    }
    return o;
  });
  const seen = new Set<string>();
  for (const code of [...closed, ...open.map((o) => o.exchange)]) {
    if (seen.has(code)) {
      const msg = `${code} is listed more than once (an exchange is either closed or open)`;
      throw badRequest(`exchanges: ${msg}`, { exchanges: [msg] });
    }
    seen.add(code);
  }
  if (type === 'SPECIAL_SESSION' && open.length === 0) {
    const msg = 'a SPECIAL_SESSION needs at least one open exchange with its start_time and end_time';
    throw badRequest(msg, { open_exchanges: [msg] });
  }
  if (type === 'TRADING_HOLIDAY' && closed.length === 0 && open.length === 0) {
    const msg = 'a TRADING_HOLIDAY must close (or open a session on) at least one exchange';
    throw badRequest(msg, { exchanges: [msg] });
  }
  return {
    holiday_date: date,
    description,
    holiday_type: type,
    year: Number(date.slice(0, 4)),
    exchanges: [
      ...closed.map((c) => ({ exchange_code: c, is_open: false, start_time: null, end_time: null })),
      ...open.map((o) => {
        const w = sessionWindow(date, o.start_time, o.end_time);
        return { exchange_code: o.exchange, is_open: true, start_time: w.startMs, end_time: w.endMs };
      }),
    ],
  };
}

const fromSeed = (s: SeedHoliday): NewHoliday =>
  toNewHoliday({
    holiday_date: s.date,
    description: s.description,
    holiday_type: s.type,
    exchanges: [...s.closed],
    open_exchanges: s.open.map((o) => ({ exchange: o.exchange, start_time: o.start, end_time: o.end })),
  });

/**
 * Market holidays (`/admin/api/holidays`) and the calendar's synchronous view of them: every
 * holiday is cached in memory by date, reloaded on each change here and on other instances.
 */
export class HolidaysService implements HolidaySource {
  private readonly cache: Snapshot<Map<string, HolidayView[]>>;
  private readonly changed: () => Promise<void>;

  constructor(
    private readonly repo: HolidaysRepository,
    private readonly clock: Clock,
    bus: InvalidationBus,
    log: Logger,
  ) {
    this.cache = new Snapshot(new Map(), async () => {
      const byDate = new Map<string, HolidayView[]>();
      for (const h of (await repo.listAll()).map(toView)) {
        byDate.set(h.holiday_date, [...(byDate.get(h.holiday_date) ?? []), h]);
      }
      return byDate;
    });
    this.changed = syncAcrossInstances(bus, TOPIC, this.cache, log);
  }

  /** Seeds 2025 and 2026 into an empty table, then loads the cache. */
  async start(): Promise<void> {
    await this.repo.seedIfEmpty(SEED_HOLIDAYS.map(fromSeed));
    await this.cache.reload();
  }

  /** The current year in IST (the default of `GET /admin/api/holidays`). */
  currentYear(): number {
    return Number(istDateOf(this.clock.now()).slice(0, 4));
  }

  async list(year: number): Promise<HolidayView[]> {
    return (await this.repo.listYear(year)).map(toView);
  }

  async add(input: NewHolidayInput): Promise<HolidayView> {
    const id = await this.repo.create(toNewHoliday(input));
    await this.changed();
    return toView((await this.repo.find(id))!);
  }

  async remove(id: number): Promise<void> {
    if (!(await this.repo.delete(id))) throw notFound(`No holiday with id ${id}`);
    await this.changed();
  }

  count(): Promise<number> {
    return this.repo.count();
  }

  /** Holidays on an IST date, from the cache (synchronous). */
  onDate(date: string): readonly HolidayView[] {
    return this.cache.value.get(date) ?? [];
  }
}
