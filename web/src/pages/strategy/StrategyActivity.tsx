/**
 * A strategy's activity on its page: its runs with their state (`stop_pending` visible until the
 * run's fills prove it flat: docs/rules/strategies.md#stop), the event trail as a timeline
 * filtered by kind and severity (#events-with-transitions), and the webhook's delivery audit with
 * each result code and HTTP status (#webhook-audit). Every query's key starts with
 * ['desk', 'strategy', id]: a live order event refreshes them, and they refresh every few seconds
 * for what no order event announces (a refused delivery, a stop confirmed flat).
 */
import { Badge, Card, Group, NativeSelect, SimpleGrid, Table, Text, Timeline, Title } from '@mantine/core';
import '@mantine/core/styles/Timeline.css';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { EVENT_KINDS, SEVERITIES } from '../../../../src/modules/strategies/strategy.types';
import { api } from '../../api/client';
import { Empty, ErrorState, Loading } from '../../components/states';
import { formatMillis } from '../../format-number';
import { ModeBadge, ResultBadge, RunStateBadge, SEVERITY_COLOR, SeverityBadge } from './badges';
import { istTime, strategyKey, type Delivery, type Run, type Strategy, type StrategyEvent } from './model';

/** How often the activity refreshes besides live order events. */
export const ACTIVITY_REFRESH_MS = 3_000;

export function RunsCard({ strategy }: { strategy: Strategy }) {
  const runs = useQuery({
    queryKey: [...strategyKey(strategy.id), 'runs', 50],
    queryFn: () => api<{ data: Run[] }>('GET', `/strategy/api/strategies/${strategy.id}/runs?limit=50`),
    refetchInterval: ACTIVITY_REFRESH_MS,
  });
  const rows = runs.data?.data ?? [];
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="sm">
        Runs
      </Title>
      {runs.isPending && <Loading label="Loading runs…" />}
      {runs.isError && <ErrorState error={runs.error} />}
      {runs.data && rows.length === 0 && (
        <Empty>
          {strategy.kind === 'signal'
            ? 'No run yet: the first accepted signal opens one.'
            : 'No run yet: a start (from this page or the webhook) opens one.'}
        </Empty>
      )}
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label="Runs" striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Run</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Mode</Table.Th>
                <Table.Th>Started (IST)</Table.Th>
                <Table.Th>Stop requested</Table.Th>
                <Table.Th>Stopped</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((r) => (
                <Table.Tr key={r.id} data-testid="run-row">
                  <Table.Td>#{r.id}</Table.Td>
                  <Table.Td>
                    <RunStateBadge status={r.status} />
                    {r.status === 'stop_pending' && (
                      <Text size="xs" c="dimmed">
                        Waiting for the exits to fill
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <ModeBadge mode={r.mode} />
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{istTime(r.started_at)}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    {r.stop_requested_at ? istTime(r.stop_requested_at) : '—'}
                  </Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    {r.stopped_at ? istTime(r.stopped_at) : '—'}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Card>
  );
}

export function EventsCard({ strategy }: { strategy: Strategy }) {
  const [kind, setKind] = useState('');
  const [severity, setSeverity] = useState('');
  const query = new URLSearchParams({ limit: '200' });
  if (kind) query.set('kind', kind);
  if (severity) query.set('severity', severity);
  const events = useQuery({
    queryKey: [...strategyKey(strategy.id), 'events', kind, severity],
    queryFn: () =>
      api<{ data: StrategyEvent[] }>(
        'GET',
        `/strategy/api/strategies/${strategy.id}/events?${query.toString()}`,
      ),
    refetchInterval: ACTIVITY_REFRESH_MS,
  });
  const rows = events.data?.data ?? [];
  const legName = (id: number | null) => {
    if (id === null) return undefined;
    const leg = strategy.legs.find((l) => l.id === id);
    return leg ? (leg.symbol ?? `${leg.underlying} ${leg.option_type}`) : `leg ${id}`;
  };
  return (
    <Card withBorder>
      <Group justify="space-between" align="flex-end" mb="sm">
        <Title order={2} size="h4">
          Event trail
        </Title>
        <SimpleGrid cols={2} spacing="xs">
          <NativeSelect
            label="Kind"
            size="xs"
            data={[{ value: '', label: 'All kinds' }, ...EVENT_KINDS.map((k) => ({ value: k, label: k }))]}
            value={kind}
            onChange={(e) => setKind(e.currentTarget.value)}
          />
          <NativeSelect
            label="Severity"
            size="xs"
            data={[
              { value: '', label: 'All severities' },
              ...SEVERITIES.map((s) => ({ value: s, label: s })),
            ]}
            value={severity}
            onChange={(e) => setSeverity(e.currentTarget.value)}
          />
        </SimpleGrid>
      </Group>
      {events.isPending && <Loading label="Loading events…" />}
      {events.isError && <ErrorState error={events.error} />}
      {events.data && rows.length === 0 && (
        <Empty>{kind || severity ? 'No event matches these filters.' : 'No event yet.'}</Empty>
      )}
      {rows.length > 0 && (
        <Timeline
          active={rows.length}
          bulletSize={14}
          lineWidth={2}
          aria-label="Events"
          data-testid="event-trail"
        >
          {rows.map((e) => (
            <Timeline.Item
              key={e.id}
              color={SEVERITY_COLOR[e.severity]}
              data-testid="event"
              data-kind={e.kind}
              title={
                <Group gap="xs" wrap="wrap">
                  <Text fw={600} size="sm" ff="monospace">
                    {e.kind}
                  </Text>
                  <SeverityBadge severity={e.severity} />
                  {e.run_id !== null && (
                    <Badge variant="outline" color="gray" style={{ textTransform: 'none' }}>
                      run #{e.run_id}
                    </Badge>
                  )}
                  {legName(e.leg_id) && (
                    <Badge variant="outline" color="gray" style={{ textTransform: 'none' }}>
                      {legName(e.leg_id)}
                    </Badge>
                  )}
                </Group>
              }
            >
              <Text size="sm">{e.message}</Text>
              <Text size="xs" c="dimmed">
                {istTime(e.ts)} IST
              </Text>
            </Timeline.Item>
          ))}
        </Timeline>
      )}
    </Card>
  );
}

export function DeliveriesCard({ strategy }: { strategy: Strategy }) {
  const list = useQuery({
    queryKey: [...strategyKey(strategy.id), 'deliveries'],
    queryFn: () =>
      api<{ data: Delivery[] }>('GET', `/strategy/api/strategies/${strategy.id}/deliveries?limit=100`),
    refetchInterval: ACTIVITY_REFRESH_MS,
  });
  const rows = list.data?.data ?? [];
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="sm">
        Webhook deliveries
      </Title>
      {list.isPending && <Loading label="Loading deliveries…" />}
      {list.isError && <ErrorState error={list.error} />}
      {list.data && rows.length === 0 && <Empty>No alert has reached this strategy’s webhook yet.</Empty>}
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={760}>
          <Table aria-label="Webhook deliveries" striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Time (IST)</Table.Th>
                <Table.Th>Result</Table.Th>
                <Table.Th>HTTP</Table.Th>
                <Table.Th>Action</Table.Th>
                <Table.Th>Run</Table.Th>
                <Table.Th>Message</Table.Th>
                <Table.Th>Sender</Table.Th>
                <Table.Th>Time taken</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((d) => (
                <Table.Tr key={d.id} data-testid="delivery-row">
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{istTime(d.ts)}</Table.Td>
                  <Table.Td>
                    <ResultBadge result={d.result} />
                  </Table.Td>
                  <Table.Td>{d.http_status}</Table.Td>
                  <Table.Td ff="monospace">
                    {d.action ?? '—'}
                    {d.mode ? ` (${d.mode})` : ''}
                  </Table.Td>
                  <Table.Td>{d.run_id !== null ? `#${d.run_id}` : '—'}</Table.Td>
                  <Table.Td>{d.message}</Table.Td>
                  <Table.Td ff="monospace">{d.ip}</Table.Td>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{formatMillis(d.duration_ms)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Card>
  );
}
