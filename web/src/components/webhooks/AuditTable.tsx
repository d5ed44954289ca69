/**
 * A webhook source's audit — the deliveries it received, or the runs they started — as a table
 * of the page's columns, newest first. A row with parts (a Chartink alert's symbols, a flow run's
 * nodes) unfolds on demand into a table of them.
 */
import { Button, Table } from '@mantine/core';
import { Fragment, useState } from 'react';
import { Cell, HeaderRow, type Column } from './columns';

/** The parts a row unfolds into: the page's renderer of a row's detail. */
export interface Parts<D, P> {
  /** The heading of the last column, which shows or hides the parts ("Symbols", "Nodes"). */
  header: string;
  of(row: D): readonly P[] | null;
  /** The unfolded table's accessible name. */
  label(row: D): string;
  columns: readonly Column<P>[];
  key(part: P): string;
}

/** Which rows are unfolded, by id. */
function useUnfolded() {
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const toggle = (id: number) =>
    setOpen((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  return { isOpen: (id: number) => open.has(id), toggle };
}

/** A row's last cell: "Show N" / "Hide N" when it has parts, else a dash. */
function UnfoldCell({ count, open, onToggle }: { count: number; open: boolean; onToggle: () => void }) {
  return (
    <Table.Td>
      {count > 0 ? (
        <Button size="xs" variant="subtle" aria-expanded={open} onClick={onToggle}>
          {open ? 'Hide' : 'Show'} {count}
        </Button>
      ) : (
        '—'
      )}
    </Table.Td>
  );
}

/** The row unfolded below its row: a table of its parts. */
function UnfoldedRow<D, P>({ row, parts, colSpan }: { row: D; parts: Parts<D, P>; colSpan: number }) {
  return (
    <Table.Tr>
      <Table.Td colSpan={colSpan}>
        <Table aria-label={parts.label(row)}>
          <HeaderRow columns={parts.columns} />
          <Table.Tbody>
            {(parts.of(row) ?? []).map((p) => (
              <Table.Tr key={parts.key(p)}>
                {parts.columns.map((c) => (
                  <Cell key={c.header} column={c} row={p} />
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.Td>
    </Table.Tr>
  );
}

export function AuditTable<D extends { id: number }, P = unknown>({
  label,
  rows,
  columns,
  minWidth,
  rowTestId,
  parts,
}: {
  /** The table's accessible name. */
  label: string;
  rows: readonly D[];
  columns: readonly Column<D>[];
  minWidth: number;
  /** Each row's test id (`delivery-row`, `run-row`). */
  rowTestId: string;
  parts?: Parts<D, P>;
}) {
  const unfolded = useUnfolded();
  return (
    <Table.ScrollContainer minWidth={minWidth}>
      <Table aria-label={label} striped>
        <HeaderRow columns={columns} extra={parts ? [parts.header] : []} />
        <Table.Tbody>
          {rows.map((d) => (
            <Fragment key={d.id}>
              <Table.Tr data-testid={rowTestId}>
                {columns.map((c) => (
                  <Cell key={c.header} column={c} row={d} />
                ))}
                {parts && (
                  <UnfoldCell
                    count={parts.of(d)?.length ?? 0}
                    open={unfolded.isOpen(d.id)}
                    onToggle={() => unfolded.toggle(d.id)}
                  />
                )}
              </Table.Tr>
              {parts && unfolded.isOpen(d.id) && parts.of(d) && (
                <UnfoldedRow row={d} parts={parts} colSpan={columns.length + 1} />
              )}
            </Fragment>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
