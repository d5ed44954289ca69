/**
 * A book's rows as CSV (docs/rules/web.md#desk-books): the file a trader downloads, built from the
 * rows on screen under the book's columns, RFC 4180 quoting, spreadsheet formulas neutralised.
 */
import type { BookColumn } from './BookTable';

/** One CSV field: quoted when it holds a comma, quote or line break; formula starts neutralised. */
export function csvField(v: string | number): string {
  let s = String(v);
  // A spreadsheet runs a cell starting with = + - @ as a formula: prefix text ones with a quote.
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The CSV text of `rows` under `columns` (header first, CRLF line ends as RFC 4180 says). */
export function toCsv<R>(rows: readonly R[], columns: readonly BookColumn<R>[]): string {
  const lines = [columns.map((c) => csvField(c.label)).join(',')];
  for (const r of rows) lines.push(columns.map((c) => csvField(c.value(r))).join(','));
  return lines.join('\r\n') + '\r\n';
}

/** Offers `text` as a file download (no server round trip: the rows are already here). */
export function downloadCsv(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
