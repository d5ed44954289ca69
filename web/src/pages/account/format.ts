/** Words and figures shared by the account pages (docs/rules/web.md#account-pages). */

const inr = new Intl.NumberFormat('en-IN', { style: 'currency', currency: 'INR', maximumFractionDigits: 2 });
const int = new Intl.NumberFormat('en-IN');

/** ₹1,00,00,000.00 in Indian grouping; a dash for no number. */
export const rupees = (n: number | null | undefined): string =>
  typeof n === 'number' && Number.isFinite(n) ? inr.format(n) : '—';

/** 12,345 (Indian grouping). */
export const count = (n: number): string => int.format(n);

/** A time in the browser's zone, or a dash. */
export const when = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toLocaleString([], { dateStyle: 'medium', timeStyle: 'medium' }) : '—';

/** "3 minutes ago", "in 9 hours" — relative to now, in words. */
export function fromNow(iso: string, now = Date.now()): string {
  const diff = new Date(iso).getTime() - now;
  const abs = Math.abs(diff);
  const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  if (abs < 60_000) return rtf.format(Math.round(diff / 1000), 'second');
  if (abs < 3_600_000) return rtf.format(Math.round(diff / 60_000), 'minute');
  if (abs < 86_400_000) return rtf.format(Math.round(diff / 3_600_000), 'hour');
  return rtf.format(Math.round(diff / 86_400_000), 'day');
}

/** Bytes as KB / MB with one decimal. */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** A broker id as people write it: zerodha → Zerodha. */
export const brokerLabel = (name: string): string => (name ? name[0]!.toUpperCase() + name.slice(1) : name);
