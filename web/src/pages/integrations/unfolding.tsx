/**
 * What a scanner's deliveries and a flow's runs share: a panel headed by its title with Refresh
 * and Close, and rows that unfold on demand into a table of their parts (a delivery's symbols, a
 * run's nodes).
 */
import { Button, Group, Table, Title } from '@mantine/core';
import { useState, type ReactNode } from 'react';

/** The panel's title, and its Refresh and Close buttons. */
export function PanelHeader({
  title,
  onRefresh,
  onClose,
}: {
  title: string;
  onRefresh: () => void;
  onClose: () => void;
}) {
  return (
    <Group justify="space-between" mb="sm">
      <Title order={2} size="h4">
        {title}
      </Title>
      <Group gap="xs">
        <Button size="xs" variant="default" onClick={onRefresh}>
          Refresh
        </Button>
        <Button size="xs" variant="default" onClick={onClose}>
          Close
        </Button>
      </Group>
    </Group>
  );
}

/** Which rows are unfolded, by id. */
export function useUnfolded() {
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
export function UnfoldCell({
  count,
  open,
  onToggle,
}: {
  count: number;
  open: boolean;
  onToggle: () => void;
}) {
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

/** The row unfolded below its row: a table named `label`, one row of `cells` per part. */
export function UnfoldedRow<T>({
  colSpan,
  label,
  columns,
  parts,
  partKey,
  cells,
}: {
  colSpan: number;
  label: string;
  columns: readonly string[];
  parts: readonly T[];
  partKey: (part: T) => string;
  cells: (part: T) => ReactNode;
}) {
  return (
    <Table.Tr>
      <Table.Td colSpan={colSpan}>
        <Table aria-label={label}>
          <Table.Thead>
            <Table.Tr>
              {columns.map((c) => (
                <Table.Th key={c}>{c}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {parts.map((p) => (
              <Table.Tr key={partKey(p)}>{cells(p)}</Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.Td>
    </Table.Tr>
  );
}
