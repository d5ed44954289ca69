/**
 * A table of rows under a header row, scrolling inside its own box on a narrow screen
 * (docs/rules/web.md#phone-width): the columns say their heading, their cell and how each is set
 * (alignment, width, font). The administration, security, monitoring and profile pages draw
 * their tables with it.
 */
import { Table, type TableProps, type TableTdProps, type TableThProps } from '@mantine/core';
import type { ReactNode } from 'react';

export interface DataColumn<T> {
  /** Unique among the columns. */
  key: string;
  /** The heading (empty for a column of buttons). */
  label?: ReactNode;
  cell: (row: T, index: number) => ReactNode;
  /** Numbers: right-aligned heading and cells. */
  numeric?: boolean;
  th?: TableThProps;
  td?: TableTdProps | ((row: T) => TableTdProps);
}

export function DataTable<T>({
  label,
  rows,
  rowKey,
  columns,
  minWidth,
  maxHeight,
  head = true,
  ...table
}: {
  /** The table's accessible name. */
  label: string;
  rows: readonly T[];
  rowKey: (row: T, index: number) => string | number;
  columns: readonly DataColumn<T>[];
  /** Below this width the table scrolls sideways inside its box. */
  minWidth: number;
  /** Above this height the table scrolls inside its box. */
  maxHeight?: number;
  /** Without the header row (a table of labelled facts). */
  head?: boolean;
} & Omit<TableProps, 'children'>) {
  return (
    <Table.ScrollContainer minWidth={minWidth} {...(maxHeight !== undefined ? { maxHeight } : {})}>
      <DataTableBody label={label} rows={rows} rowKey={rowKey} columns={columns} head={head} {...table} />
    </Table.ScrollContainer>
  );
}

/** The table alone, for a box of its own (an alert, a fixed-width column). */
export function DataTableBody<T>({
  label,
  rows,
  rowKey,
  columns,
  head = true,
  ...table
}: {
  label: string;
  rows: readonly T[];
  rowKey: (row: T, index: number) => string | number;
  columns: readonly DataColumn<T>[];
  head?: boolean;
} & Omit<TableProps, 'children'>) {
  return (
    <Table aria-label={label} {...table}>
      {head && (
        <Table.Thead>
          <Table.Tr>
            {columns.map((c) => (
              <Table.Th key={c.key} {...(c.numeric ? { ta: 'right' as const } : {})} {...c.th}>
                {c.label}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
      )}
      <Table.Tbody>
        {rows.map((r, i) => (
          <Table.Tr key={rowKey(r, i)}>
            {columns.map((c) => (
              <Table.Td
                key={c.key}
                {...(c.numeric ? { ta: 'right' as const } : {})}
                {...(typeof c.td === 'function' ? c.td(r) : c.td)}
              >
                {c.cell(r, i)}
              </Table.Td>
            ))}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
