/**
 * The desk's book table (docs/rules/web.md#desk-books): every row the server answered (orders,
 * trades, positions, holdings, the Action Center's queue), sortable by any column, narrowed by a
 * text filter and the page's own select filters, and exported as CSV — the rows shown, in the
 * order shown, with every column (also the ones only the file carries). Rows are memoised plain
 * table elements (the only per-row component is the page's `RowButton`), so a book of 500 orders
 * draws at once and a live refresh re-renders only the rows whose data changed.
 */
import {
  Alert,
  Button,
  Group,
  Modal,
  NativeSelect,
  Stack,
  Text,
  TextInput,
  VisuallyHidden,
} from '@mantine/core';
import { memo, useMemo, useState, type ReactNode } from 'react';
import classes from './BookTable.module.css';
import { Empty, ErrorState } from './states';

export interface BookColumn<R> {
  /** Stable id (the sort key). */
  key: string;
  /** The header, and the CSV's column name. */
  label: string;
  /** The value sorted on and written to the CSV. */
  value: (row: R) => string | number;
  /** What the cell shows (default: the value). */
  render?: (row: R) => ReactNode;
  /** Numbers: right-aligned, sorted numerically. */
  numeric?: boolean;
  /** Only in the CSV (the screen has too little room for every field). */
  csvOnly?: boolean;
  /** Only on the screen (a combination of fields the CSV carries one by one). */
  screenOnly?: boolean;
}

/** A select filter of the page (status, side, exchange…): its options are the values present. */
export interface BookFilter<R> {
  key: string;
  label: string;
  value: (row: R) => string;
  /** Options always offered (besides the values present), e.g. every order status. */
  options?: readonly string[];
}

export interface BookTableProps<R> {
  /** The table's accessible name; also names the CSV file. */
  label: string;
  /** What one row is called, singular and plural ("order", "orders"). */
  noun: [string, string];
  rows: readonly R[];
  columns: readonly BookColumn<R>[];
  rowKey: (row: R) => string;
  filters?: readonly BookFilter<R>[];
  /** The last cell of a row (its buttons), or nothing. */
  actions?: (row: R) => ReactNode;
  /** Said when the book has no row at all. */
  empty: ReactNode;
  /** Initial sort (default: as the server sent them). */
  sort?: { key: string; desc: boolean };
  /** Buttons beside the CSV export (cancel all, close all…). */
  toolbar?: ReactNode;
}

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

/** A rupee amount as the books show it: Indian grouping, 2 decimals (up to 4 when it has them). */
export function rupees(v: number): string {
  return v.toLocaleString('en-IN', { minimumFractionDigits: 2, maximumFractionDigits: 4 });
}

/** A P&L figure: signed, coloured by the caller. */
export function signedRupees(v: number): string {
  return `${v > 0 ? '+' : ''}${rupees(v)}`;
}

/** A signed amount with the rupee sign after the sign (−₹1.00, +₹2.50). */
export function signedInr(v: number): string {
  return `${v < 0 ? '-' : v > 0 ? '+' : ''}₹${rupees(Math.abs(v))}`;
}

/** A price that may be absent (0: no trigger, not filled yet): a dash then. */
export function priceOrDash(v: number): string {
  return v === 0 ? '–' : rupees(v);
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

interface RowProps<R> {
  /** The row's key, also on the element (`data-key`) so a test or a script finds the row. */
  id: string;
  row: R;
  columns: readonly BookColumn<R>[];
  actions?: (row: R) => ReactNode;
}

/** One row: re-rendered only when its data (or the columns) change; plain elements only. */
const BookRow = memo(function BookRow<R>({ id, row, columns, actions }: RowProps<R>) {
  return (
    <tr data-testid="book-row" data-key={id}>
      {columns.map((c) => (
        <td key={c.key} className={c.numeric ? classes.num : undefined}>
          {c.render ? c.render(row) : c.value(row)}
        </td>
      ))}
      {actions && <ActionCell content={actions(row)} />}
    </tr>
  );
}) as <R>(p: RowProps<R>) => ReactNode;

/** The row's buttons, kept in view at the right; empty (no shadow) when the row has none. */
function ActionCell({ content }: { content: ReactNode }) {
  return (
    <td className={classes.actionCell}>
      {content ? <div className={classes.actions}>{content}</div> : null}
    </td>
  );
}

/** A row's action button: a plain button (hundreds of rows may carry two each). */
export function RowButton({
  tone = 'blue',
  label,
  children,
  onClick,
}: {
  tone?: 'blue' | 'red' | 'solid' | 'gray';
  /** The accessible name, naming the row ("Cancel order 12"). */
  label: string;
  children: ReactNode;
  onClick: () => void;
}) {
  return (
    <button type="button" className={classes.rowButton} data-tone={tone} aria-label={label} onClick={onClick}>
      {children}
    </button>
  );
}

export function BookTable<R>(props: BookTableProps<R>) {
  const { label, noun, rows, columns, rowKey, filters = [], actions, empty, toolbar } = props;
  const [text, setText] = useState('');
  const [chosen, setChosen] = useState<Record<string, string>>({});
  const [sort, setSort] = useState<{ key: string; desc: boolean } | undefined>(props.sort);
  const shownColumns = useMemo(() => columns.filter((c) => !c.csvOnly), [columns]);

  const shown = useMemo(() => {
    const q = text.trim().toLowerCase();
    let out = rows.filter((r) => {
      for (const f of filters) {
        const want = chosen[f.key];
        if (want && f.value(r) !== want) return false;
      }
      if (!q) return true;
      return columns.some((c) => String(c.value(r)).toLowerCase().includes(q));
    });
    const col = sort && columns.find((c) => c.key === sort.key);
    if (sort && col) {
      const dir = sort.desc ? -1 : 1;
      out = out
        .map((r, i) => ({ r, i, v: col.value(r) }))
        .sort((a, b) => {
          const c =
            typeof a.v === 'number' && typeof b.v === 'number'
              ? a.v - b.v
              : String(a.v).localeCompare(String(b.v), undefined, { numeric: true });
          return c !== 0 ? c * dir : a.i - b.i;
        })
        .map((x) => x.r);
    }
    return out;
  }, [rows, filters, chosen, text, sort, columns]);

  const filterOptions = useMemo(
    () =>
      filters.map((f) => {
        const present = new Set<string>(f.options ?? []);
        for (const r of rows) present.add(f.value(r));
        return [...present].sort();
      }),
    [filters, rows],
  );

  const toggleSort = (key: string) =>
    setSort((s) => (s?.key !== key ? { key, desc: false } : s.desc ? undefined : { key, desc: true }));

  const narrowed = text.trim() !== '' || Object.values(chosen).some(Boolean);
  const exportCsv = () => {
    const day = new Date().toISOString().slice(0, 10);
    downloadCsv(
      `${slug(label)}-${day}.csv`,
      toCsv(
        shown,
        columns.filter((c) => !c.screenOnly),
      ),
    );
  };

  // An empty book says so, without filters to narrow nothing.
  if (rows.length === 0) return <Empty>{empty}</Empty>;

  return (
    <Stack gap="sm">
      <Group align="flex-end" justify="space-between" wrap="wrap">
        <Group align="flex-end" wrap="wrap">
          <TextInput
            label="Filter"
            placeholder="Any column: symbol, id, status…"
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            w={260}
          />
          {filters.map((f, i) => (
            <NativeSelect
              key={f.key}
              label={f.label}
              value={chosen[f.key] ?? ''}
              onChange={(e) => {
                const v = e.currentTarget.value;
                setChosen((c) => ({ ...c, [f.key]: v }));
              }}
              data={[{ value: '', label: 'All' }, ...filterOptions[i]!.map((o) => ({ value: o, label: o }))]}
            />
          ))}
          {narrowed && (
            <Button
              variant="subtle"
              onClick={() => {
                setText('');
                setChosen({});
              }}
            >
              Clear filters
            </Button>
          )}
        </Group>
        <Group>
          {toolbar}
          <Button variant="default" onClick={exportCsv} disabled={shown.length === 0}>
            Export CSV
          </Button>
        </Group>
      </Group>
      <Text size="sm" c="dimmed" data-testid="book-count" aria-live="polite">
        {rows.length} {rows.length === 1 ? noun[0] : noun[1]}
        {narrowed ? `, ${shown.length} shown` : ''}
      </Text>
      {shown.length === 0 ? (
        <Empty>No {noun[0]} matches the filters.</Empty>
      ) : (
        <div className={classes.scroll}>
          <table className={classes.table} aria-label={label}>
            <thead>
              <tr>
                {shownColumns.map((c) => {
                  const active = sort?.key === c.key;
                  return (
                    <th
                      key={c.key}
                      className={c.numeric ? classes.num : undefined}
                      aria-sort={active ? (sort.desc ? 'descending' : 'ascending') : 'none'}
                    >
                      <button
                        type="button"
                        className={classes.sort}
                        onClick={() => toggleSort(c.key)}
                        aria-label={`Sort by ${c.label}`}
                      >
                        {c.label}
                        {active ? (sort.desc ? ' ▼' : ' ▲') : ''}
                      </button>
                    </th>
                  );
                })}
                {actions && (
                  <th className={classes.actionCell}>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {shown.map((r) => (
                <BookRow key={rowKey(r)} id={rowKey(r)} row={r} columns={shownColumns} actions={actions} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Stack>
  );
}

/** What the server answered to an action: its message, or the error's. */
export interface Outcome {
  ok: boolean;
  message: string;
}

/** The server's answer to the last action, above the book until dismissed. */
export function OutcomeAlert({ outcome, onClose }: { outcome: Outcome | undefined; onClose: () => void }) {
  if (!outcome) return null;
  return (
    <Alert
      color={outcome.ok ? 'green' : 'red'}
      title={outcome.ok ? 'Done' : 'Not done'}
      role={outcome.ok ? 'status' : 'alert'}
      withCloseButton
      closeButtonLabel="Dismiss"
      onClose={onClose}
      data-testid="book-outcome"
    >
      {outcome.message}
    </Alert>
  );
}

/**
 * A confirmation for a destructive action: says what will happen, runs it on confirm, shows the
 * server's refusal inside (the dialog stays open), and closes on success.
 */
export function ConfirmModal({
  opened,
  title,
  children,
  confirmLabel,
  dismissLabel = 'Back',
  color = 'red',
  pending,
  error,
  onConfirm,
  onClose,
}: {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  dismissLabel?: string;
  color?: string;
  pending: boolean;
  error: unknown;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Modal opened={opened} onClose={onClose} title={title}>
      <Stack>
        {children}
        {error ? <ErrorState error={error} title="Not done" /> : null}
        <Group>
          <Button color={color} loading={pending} onClick={onConfirm}>
            {confirmLabel}
          </Button>
          <Button variant="default" onClick={onClose}>
            {dismissLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** The message of an error as the server worded it. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : 'The server could not be reached.';
}
