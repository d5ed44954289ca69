/**
 * The desk's book table (docs/rules/web.md#desk-books): every row the server answered (orders,
 * trades, positions, holdings, the Action Center's queue), sortable by any column, narrowed by a
 * text filter and the page's own select filters, and exported as CSV — the rows shown, in the
 * order shown, with every column (also the ones only the file carries: book-csv.ts). The rows
 * are BookGrid's (memoised plain table elements; a card per row on a phone); on a phone the select
 * filters fold under one button and a select sorts instead of the headers
 * (docs/rules/web.md#phone-width). What an action shows is BookActions.tsx.
 */
import { Button, Group, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { useCallback, useId, useMemo, useState, type ReactNode } from 'react';
import { formatCount } from '../format-number';
import { BookGrid, type BookSort } from './BookGrid';
import classes from './BookTable.module.css';
import { downloadCsv, toCsv } from './book-csv';
import { Empty } from './states';

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

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

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
