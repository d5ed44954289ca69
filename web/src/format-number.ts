/**
 * Numbers as the console shows them (docs/rules/web.md#number-formats): one writing everywhere,
 * Indian digit grouping (1,23,456.00: thousands, then lakhs and crores), whatever the browser's
 * own locale. Money has exactly two decimals; a price keeps the third and fourth decimal a tick
 * of 0.0025 needs; counts and quantities are whole numbers. Negative zero reads as zero, and a
 * value that is not a number (a field the answer did not carry) as a dash.
 */

const COUNT = new Intl.NumberFormat('en-IN', { maximumFractionDigits: 0, signDisplay: 'negative' });
const MONEY = new Intl.NumberFormat('en-IN', {
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
  signDisplay: 'negative',
});
const SIGNED_MONEY = new Intl.NumberFormat('en-IN', {
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
  signDisplay: 'exceptZero',
});
const PRICE = new Intl.NumberFormat('en-IN', {
  minimumFractionDigits: 2,
  maximumFractionDigits: 4,
  signDisplay: 'negative',
});
const DECIMAL = new Intl.NumberFormat('en-IN', { maximumFractionDigits: 2, signDisplay: 'negative' });
const ONE_DECIMAL = new Intl.NumberFormat('en-IN', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** What a missing or non-numeric value shows. */
export const NO_NUMBER = '—';

const num = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
};

/** A count or a quantity: a whole number, grouped (`2,04,182`, `-70`). */
export function formatCount(v: unknown): string {
  const n = num(v);
  return n === undefined ? NO_NUMBER : COUNT.format(n);
}

/** An amount of money without the sign of the currency: two decimals (`2,04,182.00`). */
export function formatMoney(v: unknown): string {
  const n = num(v);
  return n === undefined ? NO_NUMBER : MONEY.format(n);
}

/** An amount of money in rupees: `₹2,04,182.00`, `-₹6.50`. */
export function formatRupees(v: unknown): string {
  const n = num(v);
  if (n === undefined) return NO_NUMBER;
  const s = MONEY.format(n);
  return s.startsWith('-') ? `-₹${s.slice(1)}` : `₹${s}`;
}

/** A gain or loss: signed unless zero (`+830.00`, `-6.50`, `0.00`). */
export function formatSignedMoney(v: unknown): string {
  const n = num(v);
  return n === undefined ? NO_NUMBER : SIGNED_MONEY.format(n);
}

/** A gain or loss in rupees, the sign before the rupee sign: `+₹1,555.00`, `-₹6.50`, `₹0.00`. */
export function formatSignedRupees(v: unknown): string {
  const n = num(v);
  if (n === undefined) return NO_NUMBER;
  const s = SIGNED_MONEY.format(n);
  return s.startsWith('-') || s.startsWith('+') ? `${s[0]}₹${s.slice(1)}` : `₹${s}`;
}

/** A price: two decimals, up to four when the price has them (a tick of 0.0025): `820.10`, `83.1225`. */
export function formatPrice(v: unknown): string {
  const n = num(v);
  return n === undefined ? NO_NUMBER : PRICE.format(n);
}

/** A price that may be absent (0: no trigger, nothing filled yet): a dash then. */
export function formatPriceOrDash(v: unknown): string {
  const n = num(v);
  return n === undefined || n === 0 ? '–' : PRICE.format(n);
}

/** A measured figure: at most two decimals, none when whole (`12.5`, `1,200`). */
export function formatDecimal(v: unknown): string {
  const n = num(v);
  return n === undefined ? NO_NUMBER : DECIMAL.format(n);
}

/** Milliseconds: `12.5 ms`. */
export const formatMillis = (v: unknown): string => `${formatDecimal(v)} ms`;

/** A percentage (of 100): `95.24 %`. */
export const formatPercent = (v: unknown): string => `${formatDecimal(v)} %`;

/** A signed percentage, as P&L shows it: `+1.25 %`, `-0.40 %`. */
export const formatSignedPercent = (v: unknown): string => `${formatSignedMoney(v)} %`;

/** A size in bytes, in binary units with one decimal above a kilobyte: `512 B`, `1.5 MB`. */
export function formatBytes(v: unknown): string {
  const n = num(v);
  if (n === undefined) return NO_NUMBER;
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = Math.abs(n);
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  const shown = i === 0 ? COUNT.format(value) : ONE_DECIMAL.format(value);
  return `${n < 0 ? '-' : ''}${shown} ${units[i]!}`;
}
