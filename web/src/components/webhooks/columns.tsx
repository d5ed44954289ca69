/**
 * A column of a webhook page's table (the sources, their deliveries or runs): its heading, its
 * cell, and how the cell is set (kept on one line, monospace, bold). On a phone a source's
 * columns become the rows of its card, each labelled by its heading.
 */
import { Table } from '@mantine/core';
import type { ReactNode } from 'react';
import { ResultBadge } from './badges';

export interface Column<T> {
  header: string;
  cell(row: T): ReactNode;
  /** On one line (times, figures with units). */
  nowrap?: boolean;
  /** In monospace (symbols, addresses, codes). */
  mono?: boolean;
  /** In bold (the row's name). */
  strong?: boolean;
  /**
   * In a phone's card: left out (`false`: the card's title or badge shows it already), or its
   * value set as text (`'text'`) or as it is (`'block'`: a badge, a switch); by default text
   * when the value is a string or a number.
   */
  card?: false | 'text' | 'block';
}

export function Cell<T>({ column, row }: { column: Column<T>; row: T }) {
  return (
    <Table.Td
      fw={column.strong ? 600 : undefined}
      ff={column.mono ? 'monospace' : undefined}
      style={column.nowrap ? { whiteSpace: 'nowrap' } : undefined}
    >
      {column.cell(row)}
    </Table.Td>
  );
}

/** The table's heading row: the columns' headings, and `extra` empty or named headings after them. */
export function HeaderRow<T>({ columns, extra = [] }: { columns: readonly Column<T>[]; extra?: string[] }) {
  return (
    <Table.Thead>
      <Table.Tr>
        {columns.map((c) => (
          <Table.Th key={c.header}>{c.header}</Table.Th>
        ))}
        {extra.map((h, i) => (
          <Table.Th key={`extra-${i}`}>{h}</Table.Th>
        ))}
      </Table.Tr>
    </Table.Thead>
  );
}

/**
 * The first columns of every webhook audit: when the delivery came (IST, written by `time`) and
 * its result code as a badge.
 */
export function receivedColumns<D extends { ts: number | string; result: string }>(
  time: (ts: number | string) => string,
): Column<D>[] {
  return [
    { header: 'Time (IST)', cell: (d) => time(d.ts), nowrap: true },
    { header: 'Result', cell: (d) => <ResultBadge result={d.result} /> },
  ];
}
