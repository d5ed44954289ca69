/**
 * A flow's runs (docs/rules/flow.md#flow-runs), refreshed every 10 s: each row opens to every
 * node's outcome and its order id or message.
 */
import { Button, Card, Group, Table, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import { api } from '../../../api/client';
import { Empty, ErrorState, Loading } from '../../../components/states';
import { OutcomeBadge, ResultBadge, when } from '../shared';
import { BASE, KEY, type Flow, type NodeOutcome, type Run } from './model';

function NodeDetail({ n }: { n: NodeOutcome }) {
  if (n.orderid) return <>order {n.orderid}</>;
  if (n.message) return <>{n.message}</>;
  if (n.result !== undefined) return <>condition {n.result ? 'held' : 'did not hold'}</>;
  return <>—</>;
}

export function Runs({ flow, onClose }: { flow: Flow; onClose: () => void }) {
  const list = useQuery({
    queryKey: [...KEY, flow.id, 'runs'],
    queryFn: () => api<{ data: Run[] }>('GET', `${BASE}/${flow.id}/runs?limit=100`),
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
          Runs of {flow.name}
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
      {list.isPending && <Loading label="Loading runs…" />}
      {list.isError && <ErrorState error={list.error} />}
      {list.data && list.data.data.length === 0 && <Empty>This flow has not run yet.</Empty>}
      {list.data && list.data.data.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label={`Runs of ${flow.name}`} striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time (IST)</Table.Th>
                <Table.Th>Result</Table.Th>
                <Table.Th>Symbol</Table.Th>
                <Table.Th>Message</Table.Th>
                <Table.Th>Nodes</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.data.data.map((r) => (
                <Fragment key={r.id}>
                  <Table.Tr data-testid="run-row">
                    <Table.Td style={{ whiteSpace: 'nowrap' }}>{when(r.ts)}</Table.Td>
                    <Table.Td>
                      <ResultBadge result={r.result} />
                    </Table.Td>
                    <Table.Td ff="monospace">{r.symbol ?? '—'}</Table.Td>
                    <Table.Td>{r.message}</Table.Td>
                    <Table.Td>
                      {r.nodes && r.nodes.length > 0 ? (
                        <Button
                          size="xs"
                          variant="subtle"
                          aria-expanded={open.has(r.id)}
                          onClick={() => toggle(r.id)}
                        >
                          {open.has(r.id) ? 'Hide' : 'Show'} {r.nodes.length}
                        </Button>
                      ) : (
                        '—'
                      )}
                    </Table.Td>
                  </Table.Tr>
                  {open.has(r.id) && r.nodes && (
                    <Table.Tr>
                      <Table.Td colSpan={5}>
                        <Table aria-label={`Nodes of the run at ${when(r.ts)}`}>
                          <Table.Thead>
                            <Table.Tr>
                              <Table.Th>Node</Table.Th>
                              <Table.Th>Type</Table.Th>
                              <Table.Th>Outcome</Table.Th>
                              <Table.Th>Order id or message</Table.Th>
                            </Table.Tr>
                          </Table.Thead>
                          <Table.Tbody>
                            {r.nodes.map((n) => (
                              <Table.Tr key={n.id}>
                                <Table.Td ff="monospace">{n.id}</Table.Td>
                                <Table.Td>{n.type}</Table.Td>
                                <Table.Td>
                                  <OutcomeBadge status={n.status} />
                                </Table.Td>
                                <Table.Td>
                                  <NodeDetail n={n} />
                                </Table.Td>
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
