/**
 * The exchange's session as the sandbox keeps it (docs/rules/sandbox.md#sessions-and-holidays):
 * whether an exchange is in session at an instant, by the market calendar (timings, holidays,
 * special sessions), and when it is not, the sentence an order refused for it carries — why it is
 * closed and when it opens next. Pure: the calendar is handed in.
 */
import type { ExchangeSession } from '../../market/timings.service.js';
import { istDateOf, istInstant } from '../../market/timings.service.js';

/** The calendar's answer for one exchange on one IST date (undefined: the exchange has no timing). */
export type SessionOn = (exchange: string, date: string) => ExchangeSession | undefined;

/** How far ahead the next open is looked for (a fortnight covers every Indian holiday run). */
const LOOKAHEAD_DAYS = 14;
const DAY_MS = 86_400_000;

/** Whether `exchange` is in session at `now` (an exchange the calendar does not know is). */
export function inSession(sessionOn: SessionOn, exchange: string, now: number): boolean {
  const s = sessionOn(exchange, istDateOf(now));
  if (s === undefined) return true;
  return s.open && now >= s.start_ms! && now < s.end_ms!;
}

/** The next session of `exchange` that starts after `now`, within the lookahead. */
export function nextOpen(sessionOn: SessionOn, exchange: string, now: number): ExchangeSession | undefined {
  for (let d = 0; d <= LOOKAHEAD_DAYS; d++) {
    const s = sessionOn(exchange, istDateOf(now + d * DAY_MS));
    if (s?.open && s.start_ms! > now) return s;
  }
  return undefined;
}

const WEEKDAY = new Intl.DateTimeFormat('en-IN', {
  timeZone: 'Asia/Kolkata',
  weekday: 'short',
  day: 'numeric',
  month: 'short',
});

/**
 * Why `exchange` takes no order at `now`, in words, or undefined when it is in session:
 * `NSE is closed (Sunday): its session runs 09:15–15:30 IST on trading days; it opens next Mon,
 * 30 Nov, 09:15 IST`.
 */
export function closedReason(sessionOn: SessionOn, exchange: string, now: number): string | undefined {
  if (inSession(sessionOn, exchange, now)) return undefined;
  const today = sessionOn(exchange, istDateOf(now))!;
  const why =
    today.reason === 'weekend'
      ? new Date(Date.parse(`${today.date}T12:00:00Z`)).getUTCDay() === 6
        ? 'Saturday'
        : 'Sunday'
      : today.reason === 'holiday'
        ? `holiday: ${today.holiday ?? 'market holiday'}`
        : now < (today.start_ms ?? 0)
          ? `before its ${today.start_time} IST open`
          : `after its ${today.end_time} IST close`;
  const next = nextOpen(sessionOn, exchange, now);
  const opens = next
    ? `; it opens next ${WEEKDAY.format(istInstant(next.date, next.start_time!))}, ${next.start_time} IST${
        next.reason === 'special_session' && next.holiday ? ` (special session: ${next.holiday})` : ''
      }`
    : '';
  return `${exchange} is closed (${why})${opens}`;
}
