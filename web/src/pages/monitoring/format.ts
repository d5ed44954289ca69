/**
 * Number and time formats of the monitoring pages: the console's one writing of numbers
 * (docs/rules/web.md#number-formats, web/src/format-number.ts) and of times
 * (docs/rules/web.md#times-in-ist, web/src/ist-time.ts), under the names these pages use.
 */
import { formatCount, formatMillis, formatPercent } from '../../format-number';

/** 12,345 (Indian grouping above a lakh: 1,23,456). */
export const count = formatCount;
/** Milliseconds with at most 2 decimals: `12.5 ms`. */
export const millis = formatMillis;
/** A percent with at most 2 decimals: `95.24 %`. */
export const percent = formatPercent;
/** The share `part / whole` as a percent, 0 for an empty whole. */
export const share = (part: number, whole: number) => (whole === 0 ? 0 : (part / whole) * 100);

/** The windows both pages offer: the last `hours` on the server's clock. */
export const WINDOWS = [
  { value: '1', label: '1 hour' },
  { value: '6', label: '6 hours' },
  { value: '24', label: '24 hours' },
  { value: '168', label: '7 days' },
] as const;

/** Every bucket start from `since` to `until` (epoch ms), for a series the server sent sparse. */
export function bucketStarts(since: number, until: number, bucketMs: number): number[] {
  const out: number[] = [];
  for (let t = Math.floor(since / bucketMs) * bucketMs; t <= until; t += bucketMs) out.push(t);
  return out;
}
