/**
 * Writing CSV (RFC 4180) that a spreadsheet opens safely: a field is quoted when it holds a comma,
 * a quote or a line break, and a text field that a spreadsheet would read as a formula (starting
 * with `=`, `+`, `-`, `@`, a tab or a carriage return: OWASP's "CSV injection") is prefixed with
 * `'`, so a strategy named `=HYPERLINK(…)` is shown, never run. Numbers are written as they are.
 */

/** One field, quoted when needed (no formula guard: for values that are never user text). */
export function csvField(v: string | number): string {
  const s = String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One text field that may hold user text: formula-guarded, then quoted when needed. */
export function csvText(v: string): string {
  return csvField(/^[=+\-@\t\r]/.test(v) ? `'${v}` : v);
}

/** One line of cells: numbers as they are, text through {@link csvText}; CRLF-terminated. */
export function csvRow(cells: readonly (string | number)[]): string {
  return cells.map((c) => (typeof c === 'number' ? csvField(c) : csvText(c))).join(',') + '\r\n';
}
