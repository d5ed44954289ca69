/** The shield's trackers on `/logs/security`: 404s (with clear) and refused API keys (digests only). */
import { Button, Table } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { Empty } from '../components/states';
import { formatCount } from '../format-number';
import { istStamp } from '../ist-time';

export interface Tracker {
  ip: string;
  count: number;
  paths?: string[];
  key_digests?: string[];
  first_seen: string | null;
  last_seen: string | null;
}

const when = (iso: string | null) => (iso === null ? '—' : istStamp(iso));

function Clear404({ ip }: { ip: string }) {
  const queryClient = useQueryClient();
  const clear = useMutation({
    mutationFn: () => api('POST', '/security/clear-404', { ip }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['security'] }),
  });
  return (
    <Button
      size="xs"
      variant="light"
      onClick={() => clear.mutate()}
      loading={clear.isPending}
      aria-label={`Clear the 404 count of ${ip}`}
    >
      Clear
    </Button>
  );
}

export function TrackerTable({
  rows,
  items,
  label,
}: {
  rows: Tracker[];
  items: 'paths' | 'key_digests';
  label: string;
}) {
  if (rows.length === 0) return <Empty>Nothing tracked.</Empty>;
  return (
    <Table.ScrollContainer minWidth={600}>
      <Table striped aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Address</Table.Th>
            <Table.Th>Count</Table.Th>
            <Table.Th>{items === 'paths' ? 'Paths' : 'Keys'}</Table.Th>
            <Table.Th>Last seen</Table.Th>
            {items === 'paths' && <Table.Th />}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((t) => (
            <Table.Tr key={t.ip}>
              <Table.Td ff="monospace">{t.ip}</Table.Td>
              <Table.Td>{formatCount(t.count)}</Table.Td>
              <Table.Td>
                {items === 'paths'
                  ? (t.paths ?? []).slice(0, 5).join(', ')
                  : `${(t.key_digests ?? []).length} key(s)`}
              </Table.Td>
              <Table.Td>{when(t.last_seen)}</Table.Td>
              {items === 'paths' && (
                <Table.Td>
                  <Clear404 ip={t.ip} />
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
