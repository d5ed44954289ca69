import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import { badRequest, notFound } from '../../platform/errors.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import type { TimingRow, TimingsRepository } from './timings.repository.js';

// ---- IST calendar arithmetic. India has one zone, UTC+05:30, and no daylight saving time. ----

/** IST is UTC+05:30 all year. */
export const IST_OFFSET_MS = 330 * 60_000;
const DAY_MS = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;
/** Dates the calendar accepts (a typo such as 0202 or 20266 is a 400, not a silent empty answer). */
export const MIN_YEAR = 2000;
export const MAX_YEAR = 2100;

/** True when `s` is a real calendar date `YYYY-MM-DD` between {@link MIN_YEAR} and {@link MAX_YEAR}. */
export function isIsoDate(s: string): boolean {
  const m = ISO_DATE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < MIN_YEAR || y > MAX_YEAR) return false;
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/** A checked date, or a 400 naming `field`. */
export function requireIsoDate(s: string, field: string): string {
  if (!isIsoDate(s)) {
    const msg = `must be a real calendar date written YYYY-MM-DD (years ${MIN_YEAR}-${MAX_YEAR})`;
    throw badRequest(`${field} ${msg}`, { [field]: [msg] });
  }
  return s;
}

/** Minutes after midnight of an `HH:MM` time (00:00-23:59), or undefined. */
export function parseHhmm(s: string): number | undefined {
  const m = HHMM.exec(s);
  return m ? Number(m[1]) * 60 + Number(m[2]) : undefined;
}

/** A checked `HH:MM`, or a 400 naming `field`. */
export function requireHhmm(s: string, field: string): string {
  if (parseHhmm(s) === undefined) {
    const msg = 'must be a time written HH:MM, 00:00 to 23:59 (IST)';
    throw badRequest(`${field} ${msg}`, { [field]: [msg] });
  }
  return s;
}

/** Epoch ms of 00:00 IST on `date` (`YYYY-MM-DD`). */
export function istMidnight(date: string): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return Date.UTC(y, m - 1, d) - IST_OFFSET_MS;
}

/** Epoch ms of `hhmm` IST on `date`. */
export function istInstant(date: string, hhmm: string): number {
  return istMidnight(date) + (parseHhmm(hhmm) ?? 0) * 60_000;
}

/** The IST calendar date (`YYYY-MM-DD`) of an instant. */
export function istDateOf(instant: number): string {
  return new Date(instant + IST_OFFSET_MS).toISOString().slice(0, 10);
}

/** The IST wall-clock time (`HH:MM`) of an instant. */
export function istTimeOf(instant: number): string {
  return new Date(instant + IST_OFFSET_MS).toISOString().slice(11, 16);
}

/** Saturday or Sunday. */
export function isWeekend(date: string): boolean {
  const day = new Date(istMidnight(date) + IST_OFFSET_MS).getUTCDay();
  return day === 0 || day === 6;
}

/**
 * The window `[start, end)` of a session on `date`. A session ending at 23:59 runs to the end of
 * the day, so `00:00`-`23:59` (CRYPTO) is the whole day rather than missing its last minute.
 */
export function sessionWindow(date: string, start: string, end: string): { startMs: number; endMs: number } {
  return {
    startMs: istInstant(date, start),
    endMs: end === '23:59' ? istMidnight(date) + DAY_MS : istInstant(date, end),
  };
}

// ---- Caches kept in memory and reloaded on every change, here and on other instances. ----

/**
 * A snapshot of a table kept in memory. Each change reloads it; a reload that started earlier but
 * finishes later never overwrites a newer one.
 */
export class Snapshot<T> {
  private seq = 0;
  private applied = 0;

  constructor(
    public value: T,
    private readonly load: () => Promise<T>,
  ) {}

  async reload(): Promise<void> {
    const mine = ++this.seq;
    const next = await this.load();
    if (mine > this.applied) {
      this.applied = mine;
      this.value = next;
    }
  }
}

/**
 * Keeps `snapshot` in step across instances (ARCHITECTURE.md "Scale-out"): returns `changed()`,
 * which reloads this instance's copy and then tells the others through the bus; a message from
 * another instance reloads this one. The bus also delivers to this process, so the publisher's own
 * message (tagged with this cache's id) is skipped: it has already reloaded.
 */
export function syncAcrossInstances<T>(
  bus: InvalidationBus,
  topic: string,
  snapshot: Snapshot<T>,
  log: Logger,
): () => Promise<void> {
  const self = randomUUID();
  bus.subscribe(topic, (origin) => {
    if (origin === self) return;
    snapshot.reload().catch((err: unknown) => log.warn({ err, topic }, 'market data cache reload failed'));
  });
  return async () => {
    await snapshot.reload();
    bus.publish(topic, self);
  };
}

// ---- Timings ----

/** The spec's defaults, seeded when the table is empty (IST). */
export const DEFAULT_TIMINGS: ReadonlyArray<{ exchange: string; start_time: string; end_time: string }> = [
  { exchange: 'NSE', start_time: '09:15', end_time: '15:30' },
  { exchange: 'BSE', start_time: '09:15', end_time: '15:30' },
  // Derivatives close 10 minutes after cash: the closing auction applies to cash only.
  { exchange: 'NFO', start_time: '09:15', end_time: '15:40' },
  { exchange: 'BFO', start_time: '09:15', end_time: '15:40' },
  { exchange: 'CDS', start_time: '09:00', end_time: '17:00' },
  { exchange: 'BCD', start_time: '09:00', end_time: '17:00' },
  { exchange: 'MCX', start_time: '09:00', end_time: '23:55' },
  { exchange: 'NCO', start_time: '09:00', end_time: '23:55' },
  { exchange: 'CRYPTO', start_time: '00:00', end_time: '23:59' },
];

/** Exchanges that trade every day of the week (never closed by a weekend or an exchange holiday). */
export const ALWAYS_OPEN_EXCHANGES: ReadonlySet<string> = new Set(['CRYPTO']);

/** Index "exchanges" follow their cash market's calendar. */
export const EXCHANGE_ALIASES: Readonly<Record<string, string>> = {
  NSE_INDEX: 'NSE',
  BSE_INDEX: 'BSE',
  MCX_INDEX: 'MCX',
};

export interface TimingView {
  exchange: string;
  start_time: string;
  end_time: string;
  /** ISO-8601 UTC of the last change. */
  updated_at: string;
}

const TOPIC = 'market-timings';

const view = (r: TimingRow): TimingView => ({
  exchange: r.exchange,
  start_time: r.start_time,
  end_time: r.end_time,
  updated_at: new Date(r.updated_at).toISOString(),
});

/** Per-exchange opening times (`/admin/api/timings`), cached in memory for the calendar. */
export class TimingsService {
  private readonly cache: Snapshot<Map<string, TimingView>>;
  private readonly changed: () => Promise<void>;

  constructor(
    private readonly repo: TimingsRepository,
    private readonly clock: Clock,
    bus: InvalidationBus,
    log: Logger,
  ) {
    this.cache = new Snapshot(
      new Map(),
      async () => new Map((await repo.list()).map((r) => [r.exchange, view(r)])),
    );
    this.changed = syncAcrossInstances(bus, TOPIC, this.cache, log);
  }

  /** Seeds the defaults into an empty table and loads the cache. */
  async start(): Promise<void> {
    await this.repo.seedIfEmpty(DEFAULT_TIMINGS, this.clock.now());
    await this.cache.reload();
  }

  async list(): Promise<TimingView[]> {
    return (await this.repo.list()).map(view);
  }

  /** Sets an exchange's open and close; 404 for an exchange without a timing row. */
  async update(exchangeRaw: string, startTime: string, endTime: string): Promise<TimingView> {
    const exchange = exchangeRaw.trim().toUpperCase();
    requireHhmm(startTime, 'start_time');
    requireHhmm(endTime, 'end_time');
    if (parseHhmm(startTime)! >= parseHhmm(endTime)!) {
      throw badRequest('start_time must be before end_time', { end_time: ['must be after start_time'] });
    }
    if (!(await this.repo.update(exchange, startTime, endTime, this.clock.now()))) {
      throw notFound(`No timing for exchange ${JSON.stringify(exchange.slice(0, 16))}`);
    }
    await this.changed();
    return view((await this.repo.find(exchange))!);
  }

  count(): Promise<number> {
    return this.repo.count();
  }

  /** The cached timing of an exchange (synchronous). */
  timing(exchange: string): TimingView | undefined {
    return this.cache.value.get(exchange);
  }

  /** Exchanges with a timing, in table order (synchronous). */
  exchanges(): string[] {
    return [...this.cache.value.keys()];
  }
}

// ---- The market calendar: what the order and sandbox code ask. ----

/** A holiday as the calendar reads it. */
export interface CalendarHoliday {
  id: number;
  description: string;
  holiday_type: string;
  closed_exchanges: readonly string[];
  open_exchanges: ReadonlyArray<{ exchange: string; start_time: string; end_time: string }>;
}

/** Synchronous holiday lookup by IST date (the holidays service's cache). */
export interface HolidaySource {
  onDate(date: string): readonly CalendarHoliday[];
}

/** Why an exchange is open or closed on a date. */
export type SessionReason = 'regular' | 'special_session' | 'weekend' | 'holiday';

/** One exchange's trading session on one IST date. */
export interface ExchangeSession {
  exchange: string;
  date: string;
  open: boolean;
  reason: SessionReason;
  /** `HH:MM` IST; null when closed. */
  start_time: string | null;
  end_time: string | null;
  /** Epoch ms of the session's start and end (`[start, end)`); null when closed. */
  start_ms: number | null;
  end_ms: number | null;
  /** The holiday that decided the session (special session, closure or settlement holiday). */
  holiday: string | null;
}

/**
 * Sessions by date and exchange. The rules, in order:
 * 1. an exchange listed open by a holiday of that date trades that session's hours only (special
 *    sessions such as Muhurat trading or MCX's evening session on a holiday; also on a weekend);
 * 2. Saturdays and Sundays are closed (CRYPTO never closes);
 * 3. an exchange listed closed by a TRADING_HOLIDAY or a SPECIAL_SESSION is closed; a
 *    SETTLEMENT_HOLIDAY never closes trading (it is reported in `holiday`);
 * 4. otherwise the exchange's normal timing applies.
 * `NSE_INDEX`, `BSE_INDEX` and `MCX_INDEX` follow NSE, BSE and MCX.
 */
export class MarketCalendar {
  constructor(
    private readonly timings: Pick<TimingsService, 'timing' | 'exchanges'>,
    private readonly holidays: HolidaySource,
  ) {}

  /** The session of `exchange` on IST `date`, or undefined when the exchange has no timing. */
  sessionOn(exchangeRaw: string, date: string): ExchangeSession | undefined {
    const asked = exchangeRaw.trim().toUpperCase();
    const exchange = EXCHANGE_ALIASES[asked] ?? asked;
    const timing = this.timings.timing(exchange);
    if (timing === undefined || !isIsoDate(date)) return undefined;
    const closed = (reason: SessionReason, holiday: string | null): ExchangeSession => ({
      exchange: asked,
      date,
      open: false,
      reason,
      start_time: null,
      end_time: null,
      start_ms: null,
      end_ms: null,
      holiday,
    });
    const open = (reason: SessionReason, start: string, end: string, holiday: string | null) => {
      const w = sessionWindow(date, start, end);
      return {
        exchange: asked,
        date,
        open: true,
        reason,
        start_time: start,
        end_time: end,
        start_ms: w.startMs,
        end_ms: w.endMs,
        holiday,
      };
    };
    if (ALWAYS_OPEN_EXCHANGES.has(exchange)) return open('regular', timing.start_time, timing.end_time, null);

    // Holidays of the date in id order: with several rows for one date the first decides.
    const todays = [...this.holidays.onDate(date)].sort((a, b) => a.id - b.id);
    for (const h of todays) {
      const special = h.open_exchanges.find((o) => o.exchange === exchange);
      if (special) return open('special_session', special.start_time, special.end_time, h.description);
    }
    if (isWeekend(date)) return closed('weekend', null);
    const closing = todays.find(
      (h) => h.holiday_type !== 'SETTLEMENT_HOLIDAY' && h.closed_exchanges.includes(exchange),
    );
    if (closing) return closed('holiday', closing.description);
    const settlement = todays.find(
      (h) => h.holiday_type === 'SETTLEMENT_HOLIDAY' && h.closed_exchanges.includes(exchange),
    );
    return open('regular', timing.start_time, timing.end_time, settlement ? settlement.description : null);
  }

  /** Every exchange's session on IST `date`, in timing-table order. */
  sessionsOn(date: string): ExchangeSession[] {
    return this.timings.exchanges().flatMap((e) => this.sessionOn(e, date) ?? []);
  }

  /** Whether `exchange` is in session at `instant` (epoch ms); false for an unknown exchange. */
  isMarketOpen(exchange: string, instant: number): boolean {
    const s = this.sessionOn(exchange, istDateOf(instant));
    return s !== undefined && s.open && instant >= s.start_ms! && instant < s.end_ms!;
  }
}
