/**
 * One scanner's deliveries (docs/rules/scanner.md#scanner-audit): the last 100 alerts it received,
 * refreshed every 10 s, each with its result and, on demand, every symbol's outcome.
 */
import { Card, Table } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Fragment } from 'react';
import { api } from '../../../api/client';
import { Empty, ErrorState, Loading } from '../../../components/states';
import { OutcomeBadge, ResultBadge, when } from '../common';
import { PanelHeader, UnfoldCell, UnfoldedRow, useUnfolded } from '../unfolding';
import { BASE, KEY, type Delivery, type Scanner } from './scanner';

export function Deliveries({ scanner, onClose }: { scanner: Scanner; onClose: () => void }) {
  const list = useQuery({
    queryKey: [...KEY, scanner.id, 'deliveries'],
    queryFn: () => api<{ data: Delivery[] }>('GET', `${BASE}/${scanner.id}/deliveries?limit=100`),
    refetchInterval: 10_000,
  });
  const unfolded = useUnfolded();
  return (
    <Card withBorder>
      <PanelHeader
        title={`Deliveries of ${scanner.name}`}
        onRefresh={() => void list.refetch()}
        onClose={onClose}
      />
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
                    <UnfoldCell
                      count={d.results?.length ?? 0}
                      open={unfolded.isOpen(d.id)}
                      onToggle={() => unfolded.toggle(d.id)}
                    />
                  </Table.Tr>
                  {unfolded.isOpen(d.id) && d.results && (
                    <UnfoldedRow
                      colSpan={6}
                      label={`Symbols of the delivery at ${when(d.ts)}`}
                      columns={['Symbol', 'Outcome', 'Quantity', 'Order id or message']}
                      parts={d.results}
                      partKey={(r) => r.symbol}
                      cells={(r) => (
                        <>
                          <Table.Td ff="monospace">{r.symbol}</Table.Td>
                          <Table.Td>
                            <OutcomeBadge status={r.status} />
                          </Table.Td>
                          <Table.Td>{r.quantity ?? '—'}</Table.Td>
                          <Table.Td>{r.orderid ?? r.message ?? '—'}</Table.Td>
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
