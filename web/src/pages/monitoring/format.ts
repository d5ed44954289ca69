/** Number and time formats of the monitoring pages (docs/rules/web.md#field-messages: said in words). */

const int = new Intl.NumberFormat('en-IN');
const dec = new Intl.NumberFormat('en-IN', { maximumFractionDigits: 2 });

/** 12,345 (Indian grouping above a lakh: 1,23,456). */
export const count = (n: number) => int.format(n);
/** Milliseconds with at most 2 decimals: `12.5 ms`. */
export const millis = (n: number) => `${dec.format(n)} ms`;
/** A percent with at most 2 decimals: `95.24 %`. */
export const percent = (n: number) => `${dec.format(n)} %`;
/** A time in the browser's zone, seconds included. */
export const when = (iso: string) => new Date(iso).toLocaleString();
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
