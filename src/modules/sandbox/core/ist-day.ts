/**
 * The IST calendar date of an instant, with the last day asked for remembered: a placement asks
 * three times (the order's and the position's `day`, the MIS square-off phase), and formatting a
 * date each time was ~2% of an analyzer order's CPU. IST has no daylight saving: a day is 24 h.
 * The memo holds only a pure function's last answer, so it is shared safely.
 */
import { istDateOf, istMidnight } from '../../market/timings.service.js';

const DAY_MS = 86_400_000;
let last = { start: 0, end: 0, date: '' };

/** Same as `istDateOf(now)`. */
export function istDay(now: number): string {
  if (now >= last.start && now < last.end) return last.date;
  const date = istDateOf(now);
  const start = istMidnight(date);
  last = { start, end: start + DAY_MS, date };
  return date;
}
