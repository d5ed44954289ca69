/** Words and figures shared by the account pages (docs/rules/web.md#account-pages). */
import { NO_NUMBER } from '../../format-number';
import { istStamp } from '../../ist-time';

/** Amounts, counts and sizes as every page writes them (web/src/format-number.ts). */
export { formatBytes as bytes, formatCount as count, formatRupees as rupees } from '../../format-number';

/** A time in IST, as every page writes it (docs/rules/web.md#times-in-ist), or a dash. */
export const when = (iso: string | null | undefined): string => (iso ? istStamp(iso) : NO_NUMBER);

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

const BROKER_NAMES: Readonly<Record<string, string>> = { angel: 'Angel One' };

/** A broker id as people write it: zerodha → Zerodha, angel → Angel One. */
export const brokerLabel = (name: string): string =>
  BROKER_NAMES[name] ?? (name ? name[0]!.toUpperCase() + name.slice(1) : name);
