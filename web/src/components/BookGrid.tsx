/**
 * The table of a book (docs/rules/web.md#desk-books): its rows as plain, memoised table elements,
 * or on a phone (docs/rules/web.md#phone-width) as cards — the lead cell (the symbol) as the
 * title, the row's buttons beside it, then the figures the page put first, each under its label.
 * BookTable draws it under its filters; the dashboard draws it bare.
 */
import { VisuallyHidden } from '@mantine/core';
import { memo, useMemo, type CSSProperties, type ReactNode } from 'react';
import type { BookColumn } from './BookTable';
import classes from './BookTable.module.css';

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
