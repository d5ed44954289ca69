/**
 * One scanner's deliveries (docs/rules/scanner.md#scanner-audit): the last 100 alerts it received,
 * refreshed every 10 s, each with its result and, on demand, every symbol's outcome.
 */
import { Button, Card, Group, Table, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { api } from '../../../api/client';
import { Empty, ErrorState, Loading } from '../../../components/states';
import { OutcomeBadge, ResultBadge, when } from '../shared';
import { BASE, KEY, type Delivery, type Scanner } from './scanner';

export function Deliveries({ scanner, onClose }: { scanner: Scanner; onClose: () => void }) {
  const list = useQuery({
    queryKey: [...KEY, scanner.id, 'deliveries'],
    queryFn: () => api<{ data: Delivery[] }>('GET', `${BASE}/${scanner.id}/deliveries?limit=100`),
    refetchInterval: 10_000,
  });
  const [open, setOpen] = useState<Set<number>>(new Set());
  const toggle = (id: number) =>
    setOpen((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  return (
    <Card withBorder>
      <Group justify="space-between" mb="sm">
        <Title order={2} size="h4">
          Deliveries of {scanner.name}
        </Title>
        <Group gap="xs">
          <Button size="xs" variant="default" onClick={() => void list.refetch()}>
            Refresh
          </Button>
          <Button size="xs" variant="default" onClick={onClose}>
            Close
          </Button>
        </Group>
      </Group>
      {list.isPending && <Loading label="Loading deliveries…" />}
      {list.isError && <ErrorState error={list.error} />}
      {list.data && list.data.data.length === 0 && (
        <Empty>No alert has reached this scanner yet. Paste its webhook URL into Chartink’s alert.</Empty>
      )}
      {list.data && list.data.data.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label={`Deliveries of ${scanner.name}`} striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time (IST)</Table.Th>
                <Table.Th>Result</Table.Th>
                <Table.Th>HTTP</Table.Th>
                <Table.Th>Action</Table.Th>
                <Table.Th>Message</Table.Th>
                <Table.Th>Symbols</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.data.data.map((d) => (
                <Fragment key={d.id}>
                  <Table.Tr data-testid="delivery-row">
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>{when(d.ts)}</Table.Td>
                    <Table.Td>
                      <ResultBadge result={d.result} />
                    </Table.Td>
                    <Table.Td>{d.http_status}</Table.Td>
                    <Table.Td>{d.action ?? '—'}</Table.Td>
                    <Table.Td>{d.message}</Table.Td>
                    <Table.Td>
                      {d.results && d.results.length > 0 ? (
                        <Button
                          size="xs"
                          variant="subtle"
                          aria-expanded={open.has(d.id)}
                          onClick={() => toggle(d.id)}
                        >
                          {open.has(d.id) ? 'Hide' : 'Show'} {d.results.length}
                        </Button>
                      ) : (
                        '—'
                      )}
                    </Table.Td>
                  </Table.Tr>
                  {open.has(d.id) && d.results && (
                    <Table.Tr>
                      <Table.Td colSpan={6}>
                        <Table aria-label={`Symbols of the delivery at ${when(d.ts)}`}>
                          <Table.Thead>
                            <Table.Tr>
                              <Table.Th>Symbol</Table.Th>
                              <Table.Th>Outcome</Table.Th>
                              <Table.Th>Quantity</Table.Th>
                              <Table.Th>Order id or message</Table.Th>
                            </Table.Tr>
                          </Table.Thead>
                          <Table.Tbody>
                            {d.results.map((r) => (
                              <Table.Tr key={r.symbol}>
                                <Table.Td ff="monospace">{r.symbol}</Table.Td>
                                <Table.Td>
                                  <OutcomeBadge status={r.status} />
                                </Table.Td>
                                <Table.Td>{r.quantity ?? '—'}</Table.Td>
                                <Table.Td>{r.orderid ?? r.message ?? '—'}</Table.Td>
                              </Table.Tr>
                            ))}
                          </Table.Tbody>
                        </Table>
                      </Table.Td>
                    </Table.Tr>
                  )}
                </Fragment>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Card>
  );
}
