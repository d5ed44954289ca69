/**
 * `/logs/traffic` (docs/rules/web.md#traffic-page): requests and errors over a chosen window —
 * totals, status classes, a chart per minute or hour, the busiest paths and client addresses,
 * the endpoint groups, and the request table with filters and paging. Refreshed every 30 s.
 */
import { Anchor, Card, Container, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import type uPlot from 'uplot';
import { api } from '../../api/client';
import { Empty, ErrorState, Loading } from '../../components/states';
import { Figures } from './Figures';
import { bucketStarts, count, millis, percent, share } from './format';
import { NO_FILTERS, TrafficRequests, type RequestFilters } from './TrafficRequests';
import {
  COUNT_AXIS_VALUES,
  COUNT_INCREMENTS,
  countValue,
  IST_TIME_AXIS,
  IST_TIME_SERIES,
  UPlotChart,
} from './UPlotChart';
import { WindowPicker, windowLabel } from './WindowPicker';

interface Totals {
  requests: number;
  errors: number;
  server_errors: number;
  avg_ms: number;
}
interface TrafficStats {
  since: string;
  until: string;
  totals: Totals;
  groups: Array<Totals & { endpoint_group: string; p95_ms: number }>;
  status_classes: Record<'1xx' | '2xx' | '3xx' | '4xx' | '5xx', number>;
  top_paths: Array<{ path: string; requests: number; errors: number }>;
  top_ips: Array<{ ip: string; requests: number; errors: number }>;
  series: {
    bucket: 'minute' | 'hour';
    bucket_ms: number;
    points: Array<{ ts: string; requests: number; errors: number }>;
  };
}

const BLUE = '#1c7ed6';
const RED = '#e03131';

function RequestsChart({ stats, hours }: { stats: TrafficStats; hours: string }) {
  const { series } = stats;
  const data = useMemo<uPlot.AlignedData>(() => {
    const byTs = new Map(series.points.map((p) => [Date.parse(p.ts), p]));
    const xs = bucketStarts(Date.parse(stats.since), Date.parse(stats.until), series.bucket_ms);
    return [
      xs.map((t) => t / 1000),
      xs.map((t) => byTs.get(t)?.requests ?? 0),
      xs.map((t) => byTs.get(t)?.errors ?? 0),
    ];
  }, [series, stats.since, stats.until]);
  const options = useMemo<Omit<uPlot.Options, 'width' | 'height'>>(
    () => ({
      series: [
        IST_TIME_SERIES,
        { label: 'Requests', stroke: BLUE, fill: 'rgba(28,126,214,0.12)', width: 2, value: countValue },
        { label: 'Errors', stroke: RED, fill: 'rgba(224,49,49,0.10)', width: 2, value: countValue },
      ],
      axes: [IST_TIME_AXIS, { size: 56, incrs: COUNT_INCREMENTS, values: COUNT_AXIS_VALUES }],
      scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      cursor: { drag: { x: false, y: false } },
    }),
    [],
  );
  const peak = Math.max(0, ...series.points.map((p) => p.requests));
  const label =
    `Requests and errors per ${series.bucket} over the last ${windowLabel(hours)}: ` +
    `${count(stats.totals.requests)} requests, ${count(stats.totals.errors)} errors, ` +
    `at most ${count(peak)} requests in one ${series.bucket}.`;
  return <UPlotChart options={options} data={data} label={label} testId="traffic-chart" />;
}

function TopTable({
  rows,
  caption,
  column,
  onPick,
}: {
  rows: Array<{ key: string; requests: number; errors: number }>;
  caption: string;
  column: string;
  onPick: (key: string) => void;
}) {
  if (rows.length === 0) return <Empty>No request in this window.</Empty>;
  return (
    <Table.ScrollContainer minWidth={320}>
      <Table striped aria-label={caption} fz="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{column}</Table.Th>
            <Table.Th ta="right">Requests</Table.Th>
            <Table.Th ta="right">Errors</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr key={r.key}>
              <Table.Td ff="monospace" style={{ wordBreak: 'break-all' }}>
                <Anchor
                  component="button"
                  type="button"
                  inherit
                  onClick={() => onPick(r.key)}
                  aria-label={`Show the requests of ${r.key}`}
                >
                  {r.key}
                </Anchor>
              </Table.Td>
              <Table.Td ta="right">{count(r.requests)}</Table.Td>
              <Table.Td ta="right" c={r.errors > 0 ? 'red' : undefined}>
                {count(r.errors)}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function GroupsTable({ groups }: { groups: TrafficStats['groups'] }) {
  if (groups.length === 0) return <Empty>No request in this window.</Empty>;
  return (
    <Table.ScrollContainer minWidth={600}>
      <Table striped aria-label="Endpoint groups" fz="sm">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Route</Table.Th>
            <Table.Th ta="right">Requests</Table.Th>
            <Table.Th ta="right">Errors</Table.Th>
            <Table.Th ta="right">Server errors</Table.Th>
            <Table.Th ta="right">Average</Table.Th>
            <Table.Th ta="right">p95</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {groups.slice(0, 20).map((g) => (
            <Table.Tr key={g.endpoint_group}>
              <Table.Td ff="monospace" style={{ wordBreak: 'break-all' }}>
                {g.endpoint_group}
              </Table.Td>
              <Table.Td ta="right">{count(g.requests)}</Table.Td>
              <Table.Td ta="right">{count(g.errors)}</Table.Td>
              <Table.Td ta="right">{count(g.server_errors)}</Table.Td>
              <Table.Td ta="right">{millis(g.avg_ms)}</Table.Td>
              <Table.Td ta="right">{millis(g.p95_ms)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Card withBorder component="section" aria-label={title}>
      <Title order={2} size="h4" mb="sm">
        {title}
      </Title>
      {children}
    </Card>
  );
}

export default function TrafficPage() {
  const [hours, setHours] = useState('24');
  const [filters, setFilters] = useState<RequestFilters>(NO_FILTERS);
  const stats = useQuery({
    queryKey: ['traffic', 'stats', hours],
    queryFn: () =>
      api<TrafficStats>('GET', '/logs/api/traffic/stats?' + new URLSearchParams({ hours }).toString()),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
  const s = stats.data;
  const pick = (patch: Partial<RequestFilters>) => {
    setFilters({ ...NO_FILTERS, ...patch });
    document.getElementById('traffic-requests')?.scrollIntoView({ behavior: 'smooth' });
  };
  const classes = s?.status_classes;
  const total = s?.totals.requests ?? 0;

  return (
    <Container size="xl" px={0}>
      <Group justify="space-between" align="flex-end" mb="md" wrap="wrap">
        <div>
          <Title order={1} size="h2">
            Traffic
          </Title>
          <Text size="sm" c="dimmed">
            Every request this install answered. Webhook tokens and query strings are never stored.
          </Text>
        </div>
        <WindowPicker value={hours} onChange={setHours} />
      </Group>
      {stats.isPending && <Loading label="Loading traffic…" />}
      {stats.isError && !s && <ErrorState error={stats.error} title="Traffic not loaded" />}
      {s && classes && (
        <Stack gap="lg">
          <Figures
            label="Traffic totals"
            items={[
              { label: 'Requests', value: count(s.totals.requests) },
              {
                label: 'Errors',
                value: count(s.totals.errors),
                color: s.totals.errors > 0 ? 'red' : undefined,
                hint: `${percent(Math.round(share(s.totals.errors, total) * 100) / 100)} of requests (4xx and 5xx)`,
              },
              {
                label: 'Server errors',
                value: count(s.totals.server_errors),
                color: s.totals.server_errors > 0 ? 'red' : undefined,
                hint: '5xx answers',
              },
              { label: 'Average time', value: millis(s.totals.avg_ms) },
            ]}
          />
          <Section title={`Requests and errors per ${s.series.bucket}`}>
            {total === 0 ? (
              <Empty>No request in this window.</Empty>
            ) : (
              <RequestsChart stats={s} hours={hours} />
            )}
          </Section>
          <Section title="Status classes">
            <Figures
              label="Requests by status class"
              items={(['2xx', '3xx', '4xx', '5xx'] as const).map((c) => ({
                label: c,
                value: count(classes[c]),
                color:
                  c === '5xx' && classes[c] > 0
                    ? 'red'
                    : c === '4xx' && classes[c] > 0
                      ? 'orange'
                      : undefined,
                hint: percent(Math.round(share(classes[c], total) * 100) / 100),
              }))}
            />
          </Section>
          <SimpleGrid cols={{ base: 1, md: 2 }}>
            <Section title="Top paths">
              <TopTable
                rows={s.top_paths.map((r) => ({ key: r.path, requests: r.requests, errors: r.errors }))}
                caption="Top paths"
                column="Path"
                onPick={(path) => pick({ path })}
              />
            </Section>
            <Section title="Top client addresses">
              <TopTable
                rows={s.top_ips.map((r) => ({ key: r.ip, requests: r.requests, errors: r.errors }))}
                caption="Top client addresses"
                column="Address"
                onPick={(ip) => pick({ ip })}
              />
            </Section>
          </SimpleGrid>
          <Section title="Routes">
            <GroupsTable groups={s.groups} />
          </Section>
        </Stack>
      )}
      {/* Fetched alongside the stats, not after them. */}
      <div id="traffic-requests" style={{ marginTop: 'var(--mantine-spacing-lg)' }}>
        <Section title="Requests">
          <TrafficRequests hours={hours} filters={filters} onFilters={setFilters} />
        </Section>
      </div>
    </Container>
  );
}
