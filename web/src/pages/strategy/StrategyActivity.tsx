/**
 * A strategy's activity on its page: its runs with their state (`stop_pending` visible until the
 * run's fills prove it flat: docs/rules/strategies.md#stop), the event trail as a timeline
 * filtered by kind and severity (#events-with-transitions), and the webhook's delivery audit with
 * each result code and HTTP status (#webhook-audit) — the webhook pages' audit table
 * (components/webhooks). Every query's key starts with ['desk', 'strategy', id]: a live order
 * event refreshes them, and they refresh every few seconds for what no order event announces (a
 * refused delivery, a stop confirmed flat).
 */
import { Badge, Group, NativeSelect, SimpleGrid, Text, Timeline } from '@mantine/core';
import '@mantine/core/styles/Timeline.css';
import { useState } from 'react';
import { EVENT_KINDS, SEVERITIES } from '../../../../src/modules/strategies/strategy.types';
import { AuditCard } from '../../components/webhooks/AuditCard';
import { AuditTable } from '../../components/webhooks/AuditTable';
import { receivedColumns, type Column } from '../../components/webhooks/columns';
import {
  useStrategyDeliveries,
  useStrategyEvents,
  useStrategyRuns,
} from '../../features/strategies/api/strategies';
import type { Delivery, Run, Strategy } from '../../features/strategies/api/types';
import { formatMillis } from '../../format-number';
import { ModeBadge, RunStateBadge, SEVERITY_COLOR, SeverityBadge } from './badges';
import { istTime } from './model';

/** A time the run may not have reached yet. */
const maybe = (t: string | null) => (t ? istTime(t) : '—');

const RUN_COLUMNS: Column<Run>[] = [
  { header: 'Run', cell: (r) => <>#{r.id}</> },
  {
    header: 'State',
    cell: (r) => (
      <>
        <RunStateBadge status={r.status} />
        {r.status === 'stop_pending' && (
          <Text size="xs" c="dimmed">
            Waiting for the exits to fill
          </Text>
        )}
      </>
    ),
  },
  { header: 'Mode', cell: (r) => <ModeBadge mode={r.mode} /> },
  { header: 'Started (IST)', cell: (r) => istTime(r.started_at), nowrap: true },
  { header: 'Stop requested', cell: (r) => maybe(r.stop_requested_at), nowrap: true },
  { header: 'Stopped', cell: (r) => maybe(r.stopped_at), nowrap: true },
];

export function RunsCard({ strategy }: { strategy: Strategy }) {
  return (
    <AuditCard
      title="Runs"
      query={useStrategyRuns(strategy.id)}
      loading="Loading runs…"
      empty={
        strategy.kind === 'signal'
          ? 'No run yet: the first accepted signal opens one.'
          : 'No run yet: a start (from this page or the webhook) opens one.'
      }
    >
      {(rows) => (
        <AuditTable label="Runs" rows={rows} columns={RUN_COLUMNS} minWidth={640} rowTestId="run-row" />
      )}
    </AuditCard>
  );
}

export function EventsCard({ strategy }: { strategy: Strategy }) {
  const [kind, setKind] = useState('');
  const [severity, setSeverity] = useState('');
  const legName = (id: number | null) => {
    if (id === null) return undefined;
    const leg = strategy.legs.find((l) => l.id === id);
    return leg ? (leg.symbol ?? `${leg.underlying} ${leg.option_type}`) : `leg ${id}`;
  };
  const filters = (
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
        data={[{ value: '', label: 'All severities' }, ...SEVERITIES.map((s) => ({ value: s, label: s }))]}
        value={severity}
        onChange={(e) => setSeverity(e.currentTarget.value)}
      />
    </SimpleGrid>
  );
  return (
    <AuditCard
      title="Event trail"
      query={useStrategyEvents(strategy.id, kind, severity)}
      loading="Loading events…"
      empty={kind || severity ? 'No event matches these filters.' : 'No event yet.'}
      filters={filters}
    >
      {(rows) => (
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
    </AuditCard>
  );
}

const DELIVERY_COLUMNS: Column<Delivery>[] = [
  ...receivedColumns(istTime),
  { header: 'HTTP', cell: (d) => d.http_status },
  {
    header: 'Action',
    cell: (d) => (
      <>
        {d.action ?? '—'}
        {d.mode ? ` (${d.mode})` : ''}
      </>
    ),
    mono: true,
  },
  { header: 'Run', cell: (d) => (d.run_id !== null ? `#${d.run_id}` : '—') },
  { header: 'Message', cell: (d) => d.message },
  { header: 'Sender', cell: (d) => d.ip, mono: true },
  { header: 'Time taken', cell: (d) => formatMillis(d.duration_ms), nowrap: true },
];

export function DeliveriesCard({ strategy }: { strategy: Strategy }) {
  return (
    <AuditCard
      title="Webhook deliveries"
      query={useStrategyDeliveries(strategy.id)}
      loading="Loading deliveries…"
      empty="No alert has reached this strategy’s webhook yet."
    >
      {(rows) => (
        <AuditTable
          label="Webhook deliveries"
          rows={rows}
          columns={DELIVERY_COLUMNS}
          minWidth={760}
          rowTestId="delivery-row"
        />
      )}
    </AuditCard>
  );
}
