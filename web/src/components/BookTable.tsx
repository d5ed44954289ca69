/**
 * The desk's book table (docs/rules/web.md#desk-books): every row the server answered (orders,
 * trades, positions, holdings, the Action Center's queue), sortable by any column, narrowed by a
 * text filter and the page's own select filters, and exported as CSV — the rows shown, in the
 * order shown, with every column (also the ones only the file carries). Rows are memoised plain
 * table elements (the only per-row component is the page's `RowButton`), so a book of 500 orders
 * draws at once and a live refresh re-renders only the rows whose data changed. On a phone
 * (docs/rules/web.md#phone-width) each row is a card instead — its lead cell (the symbol) as the
 * title, the row's buttons beside it, then the figures the page put first (quantity, LTP, P&L…)
 * each under its label — so no column is off the screen; a select sorts instead of the headers.
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
import { memo, useCallback, useId, useMemo, useState, type CSSProperties, type ReactNode } from 'react';
import { formatCount } from '../format-number';
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
  /** Kept on one line in the table (a time, a symbol with its exchange); a phone's card wraps it. */
  nowrap?: boolean;
  /** Only in the CSV (the screen has too little room for every field). */
  csvOnly?: boolean;
  /** Only on the screen (a combination of fields the CSV carries one by one). */
  screenOnly?: boolean;
  /**
   * Where the cell goes on a phone's card (docs/rules/web.md#phone-width): `'lead'` is the card's
   * title (one column, the symbol), a number places the figure among the first ones (lower
   * first, before the unnumbered, which follow in column order), `false` leaves it off the card
   * (it stays in the table on a wider screen and in the CSV).
   */
  phone?: 'lead' | number | false;
  /** Leaves the figure off this row's phone card when it says nothing (a trigger of 0: none). */
  phoneSkip?: (row: R) => boolean;
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

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** How one column's cells are drawn: computed once per column list, shared by every row. */
interface CellLayout {
  className: string | undefined;
  style: CSSProperties | undefined;
  /** The label a phone's card shows above the figure (none for the lead cell). */
  label: string | undefined;
}

/** Each column's class (numbers, the lead cell, off the phone card) and its place on the card. */
function layoutOf<R>(columns: readonly BookColumn<R>[]): CellLayout[] {
  return columns.map((c, i) => {
    const lead = c.phone === 'lead';
    const names = [
      c.numeric ? classes.num : '',
      c.nowrap ? classes.nowrap : '',
      lead ? classes.lead : '',
      c.phone === false ? classes.offPhone : '',
    ].filter(Boolean);
    const order = typeof c.phone === 'number' ? c.phone : lead || c.phone === false ? undefined : 100 + i;
    return {
      className: names.length > 0 ? names.join(' ') : undefined,
      style: order === undefined ? undefined : ({ '--card-order': order } as CSSProperties),
      label: lead ? undefined : c.label,
    };
  });
}

interface RowProps<R> {
  /** The row's key, also on the element (`data-key`) so a test or a script finds the row. */
  id: string;
  row: R;
  columns: readonly BookColumn<R>[];
  layout: readonly CellLayout[];
  actions?: (row: R) => ReactNode;
}

/** One row: re-rendered only when its data (or the columns) change; plain elements only. */
const BookRow = memo(function BookRow<R>({ id, row, columns, layout, actions }: RowProps<R>) {
  return (
    <tr data-testid="book-row" data-key={id}>
      {columns.map((c, i) => {
        const cell = layout[i]!;
        const skip = c.phoneSkip?.(row) === true;
        return (
          <td
            key={c.key}
            className={skip ? `${cell.className ?? ''} ${classes.offPhone}`.trim() : cell.className}
            style={cell.style}
            data-label={cell.label}
          >
            {c.render ? c.render(row) : c.value(row)}
          </td>
        );
      })}
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

export interface BookSort {
  key: string;
  desc: boolean;
}

export interface BookGridProps<R> {
  /** The table's accessible name. */
  label: string;
  /** The rows to draw, in the order to draw them. */
  rows: readonly R[];
  /** The columns shown (not the CSV-only ones). */
  columns: readonly BookColumn<R>[];
  rowKey: (row: R) => string;
  /** The last cell of a row (its buttons), or nothing. */
  actions?: (row: R) => ReactNode;
  /** The sort shown in the headers, and what a header's click asks for; no sorting without it. */
  sort?: { current: BookSort | undefined; toggle: (key: string) => void };
  /** Scrolls within a box of this height on a wide screen (a book of 500 rows); none by default. */
  scrollHeight?: number;
}

/**
 * The table of a book: plain elements (cheap for hundreds of rows), a card per row on a phone
 * (docs/rules/web.md#phone-width). The desk's books draw it under their filters (BookTable); the
 * dashboard draws it bare.
 */
export function BookGrid<R>({ label, rows, columns, rowKey, actions, sort, scrollHeight }: BookGridProps<R>) {
  const layout = useMemo(() => layoutOf(columns), [columns]);
  return (
    <div
      className={classes.scroll}
      style={scrollHeight ? ({ '--book-max-height': `${scrollHeight}px` } as CSSProperties) : undefined}
    >
      <table className={classes.table} aria-label={label}>
        <thead>
          <tr>
            {columns.map((c, i) => {
              const active = sort?.current?.key === c.key;
              return (
                <th
                  key={c.key}
                  className={layout[i]!.className}
                  aria-sort={
                    sort ? (active ? (sort.current!.desc ? 'descending' : 'ascending') : 'none') : undefined
                  }
                >
                  {sort ? (
                    <button
                      type="button"
                      className={classes.sort}
                      onClick={() => sort.toggle(c.key)}
                      aria-label={`Sort by ${c.label}`}
                    >
                      {c.label}
                      {active ? (sort.current!.desc ? ' ▼' : ' ▲') : ''}
                    </button>
                  ) : (
                    c.label
                  )}
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
          {rows.map((r) => (
            <BookRow
              key={rowKey(r)}
              id={rowKey(r)}
              row={r}
              columns={columns}
              layout={layout}
              actions={actions}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The sort a phone offers in a select (its headers are hidden): each column both ways, or as sent. */
function PhoneSort<R>({
  columns,
  sort,
  onSort,
}: {
  columns: readonly BookColumn<R>[];
  sort: BookSort | undefined;
  onSort: (s: BookSort | undefined) => void;
}) {
  const options = [
    { value: '', label: 'As listed' },
    ...columns.flatMap((c) => [
      { value: `${c.key}:asc`, label: `${c.label} ${c.numeric ? '(low to high)' : '(A to Z)'}` },
      { value: `${c.key}:desc`, label: `${c.label} ${c.numeric ? '(high to low)' : '(Z to A)'}` },
    ]),
  ];
  return (
    <NativeSelect
      label="Sort by"
      hiddenFrom="sm"
      data={options}
      value={sort ? `${sort.key}:${sort.desc ? 'desc' : 'asc'}` : ''}
      onChange={(e) => {
        const [key, dir] = e.currentTarget.value.split(':');
        onSort(key ? { key, desc: dir === 'desc' } : undefined);
      }}
    />
  );
}

export function BookTable<R>(props: BookTableProps<R>) {
  const { label, noun, rows, columns, rowKey, filters = [], actions, empty, toolbar } = props;
  const [text, setText] = useState('');
  const [chosen, setChosen] = useState<Record<string, string>>({});
  const [sort, setSort] = useState<BookSort | undefined>(props.sort);
  // On a phone the select filters and the sort fold under one button (docs/rules/web.md#phone-width).
  const [unfolded, setUnfolded] = useState(false);
  const foldId = useId();
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

  const toggleSort = useCallback(
    (key: string) =>
      setSort((s) => (s?.key !== key ? { key, desc: false } : s.desc ? undefined : { key, desc: true })),
    [],
  );
  const gridSort = useMemo(() => ({ current: sort, toggle: toggleSort }), [sort, toggleSort]);

  const narrowed = text.trim() !== '' || Object.values(chosen).some(Boolean);
  const chosenCount = Object.values(chosen).filter(Boolean).length + (sort ? 1 : 0);
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
            w={{ base: '100%', sm: 260 }}
          />
          <Button
            variant="default"
            hiddenFrom="sm"
            onClick={() => setUnfolded((u) => !u)}
            aria-expanded={unfolded}
            aria-controls={foldId}
          >
            {unfolded ? 'Hide filters' : 'Filters and sort'}
            {chosenCount > 0 ? ` (${chosenCount})` : ''}
          </Button>
          <div id={foldId} className={unfolded ? classes.filters : `${classes.filters} ${classes.folded}`}>
            {filters.map((f, i) => (
              <NativeSelect
                key={f.key}
                label={f.label}
                value={chosen[f.key] ?? ''}
                onChange={(e) => {
                  const v = e.currentTarget.value;
                  setChosen((c) => ({ ...c, [f.key]: v }));
                }}
                data={[
                  { value: '', label: 'All' },
                  ...filterOptions[i]!.map((o) => ({ value: o, label: o })),
                ]}
              />
            ))}
            <PhoneSort columns={shownColumns} sort={sort} onSort={setSort} />
          </div>
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
        {formatCount(rows.length)} {rows.length === 1 ? noun[0] : noun[1]}
        {narrowed ? `, ${formatCount(shown.length)} shown` : ''}
      </Text>
      {shown.length === 0 ? (
        <Empty>No {noun[0]} matches the filters.</Empty>
      ) : (
        <BookGrid
          label={label}
          rows={shown}
          columns={shownColumns}
          rowKey={rowKey}
          actions={actions}
          sort={gridSort}
          scrollHeight={640}
        />
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
