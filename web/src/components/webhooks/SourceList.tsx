/**
 * The list of a user's webhook sources (strategies, scanners, flows): a table on a wide screen; on
 * a phone one card per source — its name and a badge or switch on top, the other columns as
 * labelled rows (or the page's own summary), its buttons below (docs/rules/web.md#phone-width).
 */
import { Button, Card, Group, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { Cell, HeaderRow, type Column } from './columns';
import { usePhone } from './use-phone';

/** A source as its list shows it. */
export interface Source {
  id: number;
  name: string;
}

/** A source's card on a phone. */
export interface SourceCard<T> {
  /** The card's title (by default the name in bold). */
  title?: (row: T) => ReactNode;
  /** Beside the title: the source's state as a badge or a switch. */
  aside: (row: T) => ReactNode;
  /** The card's body instead of the columns as labelled rows. */
  body?: (row: T) => ReactNode;
  /** The labelled rows instead of the table's columns. */
  fields?: readonly Column<T>[];
}

function CardField<T>({ column, row }: { column: Column<T>; row: T }) {
  const value = column.cell(row);
  const asText = column.card === 'text' || (column.card === undefined && typeof value !== 'object');
  return (
    <>
      <Text size="sm" c="dimmed">
        {column.header}
      </Text>
      {asText ? <Text size="sm">{value}</Text> : <div>{value}</div>}
    </>
  );
}

export function SourceList<T extends Source>({
  label,
  rows,
  columns,
  minWidth,
  card,
  actions,
}: {
  /** The list's accessible name ("Scanners"). */
  label: string;
  rows: readonly T[];
  columns: readonly Column<T>[];
  /** Below this width the table scrolls sideways within its card. */
  minWidth: number;
  card: SourceCard<T>;
  /** A source's buttons, in its row's last cell or at the foot of its card. */
  actions?: (row: T) => ReactNode;
}) {
  const phone = usePhone();
  if (phone) {
    const fields = card.fields ?? columns.filter((c) => c.card !== false);
    return (
      <Stack gap="sm" role="list" aria-label={label}>
        {rows.map((r) => (
          <Card key={r.id} withBorder role="listitem" aria-label={r.name} p="sm">
            <Group justify="space-between" mb="xs" wrap="nowrap">
              {card.title ? card.title(r) : <Text fw={700}>{r.name}</Text>}
              {card.aside(r)}
            </Group>
            {card.body ? (
              card.body(r)
            ) : (
              <SimpleGrid cols={2} spacing="xs" verticalSpacing={4} mb={actions ? 'sm' : undefined}>
                {fields.map((c) => (
                  <CardField key={c.header} column={c} row={r} />
                ))}
              </SimpleGrid>
            )}
            {actions?.(r)}
          </Card>
        ))}
      </Stack>
    );
  }
  return (
    <Table.ScrollContainer minWidth={minWidth}>
      <Table aria-label={label} striped highlightOnHover>
        <HeaderRow columns={columns} extra={actions ? [''] : []} />
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr key={r.id}>
              {columns.map((c) => (
                <Cell key={c.header} column={c} row={r} />
              ))}
              {actions && <Table.Td>{actions(r)}</Table.Td>}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

/** What a source's buttons do: open its audit, its form, or the rotate or delete confirmation. */
export interface RowHandlers<T> {
  /** The audit's name (Runs, Deliveries) and what opens it. */
  audit?: { label: string; open: (row: T) => void };
  edit?: (row: T) => void;
  rotate?: (row: T) => void;
  remove?: (row: T) => void;
}

/** A source's buttons: its audit, edit, rotate and delete, each named with the source's name. */
export function RowActions<T extends Source>({ row, on }: { row: T; on: RowHandlers<T> }) {
  const phone = usePhone();
  const button = (text: string, name: string, act: (row: T) => void, color?: string) => (
    <Button size="xs" variant="light" color={color} onClick={() => act(row)} aria-label={name}>
      {text}
    </Button>
  );
  return (
    <Group gap={4} wrap={phone ? 'wrap' : 'nowrap'} justify={phone ? 'flex-start' : 'flex-end'}>
      {on.audit && button(on.audit.label, `${on.audit.label} of ${row.name}`, on.audit.open)}
      {on.edit && button('Edit', `Edit ${row.name}`, on.edit)}
      {on.rotate && button('Rotate', `Rotate the webhook of ${row.name}`, on.rotate, 'orange')}
      {on.remove && button('Delete', `Delete ${row.name}`, on.remove, 'red')}
    </Group>
  );
}
