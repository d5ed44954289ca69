/**
 * When MIS positions are squared off (docs/rules/sandbox.md#day-boundary-jobs): per exchange at a
 * configured IST time (NSE/BSE and their F&O 15:15, CDS/BCD 16:45, MCX 23:30 by default;
 * `SANDBOX_SQUARE_OFF`). On a day whose session does not contain that time (a special session such
 * as Muhurat trading in the evening) the square-off falls 15 minutes before the session ends
 * instead.
 */
import { istInstant } from '../../market/timings.service.js';
import { SESSION_END_MARGIN_MS } from '../../../domain/sandbox.js';

/** The bounds of an exchange's session on a day (from `MarketCalendar.sessionOn`). */
export interface SessionBounds {
  start_ms: number | null;
  end_ms: number | null;
}

/** The square-off instant of `exchange` on `date`, or undefined when it has no square-off time. */
export function squareOffAt(
  times: Readonly<Record<string, string>>,
  exchange: string,
  date: string,
  session?: SessionBounds,
): number | undefined {
  const hhmm = times[exchange];
  if (!hhmm) return undefined;
  const at = istInstant(date, hhmm);
  const { start_ms: start, end_ms: end } = session ?? { start_ms: null, end_ms: null };
  if (start !== null && end !== null && (at < start || at >= end)) return end - SESSION_END_MARGIN_MS;
  return at;
}
