/**
 * A flow's runs (docs/rules/flow.md#flow-runs), refreshed every 10 s: each row opens to every
 * node's outcome and its order id or message.
 */
import { Card, Table } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Fragment } from 'react';
import { api } from '../../../api/client';
import { Empty, ErrorState, Loading } from '../../../components/states';
import { OutcomeBadge, ResultBadge, when } from '../common';
import { PanelHeader, UnfoldCell, UnfoldedRow, useUnfolded } from '../unfolding';
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
  const unfolded = useUnfolded();
  return (
    <Card withBorder>
      <PanelHeader title={`Runs of ${flow.name}`} onRefresh={() => void list.refetch()} onClose={onClose} />
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
                    <UnfoldCell
                      count={r.nodes?.length ?? 0}
                      open={unfolded.isOpen(r.id)}
                      onToggle={() => unfolded.toggle(r.id)}
                    />
                  </Table.Tr>
                  {unfolded.isOpen(r.id) && r.nodes && (
                    <UnfoldedRow
                      colSpan={5}
                      label={`Nodes of the run at ${when(r.ts)}`}
                      columns={['Node', 'Type', 'Outcome', 'Order id or message']}
                      parts={r.nodes}
                      partKey={(n) => n.id}
                      cells={(n) => (
                        <>
                          <Table.Td ff="monospace">{n.id}</Table.Td>
                          <Table.Td>{n.type}</Table.Td>
                          <Table.Td>
                            <OutcomeBadge status={n.status} />
                          </Table.Td>
                          <Table.Td>
                            <NodeDetail n={n} />
                          </Table.Td>
                        </>
                      )}
                    />
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
