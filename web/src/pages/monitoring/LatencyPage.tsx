/**
 * `/logs/latency` (docs/rules/web.md#latency-page): order latency over a chosen window — p50, p90,
 * p95, p99 and the shares under 100, 150 and 200 ms as figures, the histogram and the series of
 * total latency, the same figures per broker and per API type, and the recent orders' latencies.
 */
import { Badge, Card, Container, Group, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { api } from '../../api/client';
import { Empty, ErrorState, Loading } from '../../components/states';
import { Figures } from './Figures';
import { istDateTime } from '../../ist-time';
import { count, millis, percent } from './format';
import { LatencyHistogram, LatencySeries, type HistogramBar, type LatencyPoint } from './LatencyCharts';
import { WindowPicker, windowLabel } from './WindowPicker';

interface Summary {
  count: number;
  avg_ms: number;
  min_ms: number;
  max_ms: number;
  p50_ms: number;
  p90_ms: number;
  p95_ms: number;
  p99_ms: number;
  sla_100ms: number;
  sla_150ms: number;
  sla_200ms: number;
}
interface LatencyStats {
  window_hours: number;
  since: string;
  until: string;
  overall: Summary;
  by_broker: Record<string, Summary>;
  by_api_type: Record<string, Summary>;
  histogram: HistogramBar[];
  series: { bucket: 'minute' | 'hour'; bucket_ms: number; points: LatencyPoint[] };
}
interface LatencyLog {
  id: number;
  label: string;
  broker: string;
  symbol: string;
  order_id: string | null;
  status: string;
  total_latency_ms: number;
  broker_ms: number;
  validation_ms: number;
  overhead_ms: number;
  created_at: string;
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card withBorder component="section" aria-label={title}>
      <Title order={2} size="h4" mb="sm">
        {title}
      </Title>
      {children}
    </Card>
  );
}

function SummaryTable({
  rows,
  name,
  caption,
}: {
  rows: Record<string, Summary>;
  name: string;
  caption: string;
}) {
  const entries = Object.entries(rows).sort((a, b) => b[1].count - a[1].count);
  if (entries.length === 0) return <Empty>No order in this window.</Empty>;
  return (
    <Table.ScrollContainer minWidth={820}>
      <Table striped aria-label={caption} fz="sm" style={{ whiteSpace: 'nowrap' }}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{name}</Table.Th>
            <Table.Th ta="right">Orders</Table.Th>
            <Table.Th ta="right">Average</Table.Th>
            <Table.Th ta="right">p50</Table.Th>
            <Table.Th ta="right">p90</Table.Th>
            <Table.Th ta="right">p95</Table.Th>
            <Table.Th ta="right">p99</Table.Th>
            <Table.Th ta="right">Under 100 ms</Table.Th>
            <Table.Th ta="right">Under 150 ms</Table.Th>
            <Table.Th ta="right">Under 200 ms</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {entries.map(([key, s]) => (
            <Table.Tr key={key}>
              <Table.Td fw={600}>{key}</Table.Td>
              <Table.Td ta="right">{count(s.count)}</Table.Td>
              <Table.Td ta="right">{millis(s.avg_ms)}</Table.Td>
              <Table.Td ta="right">{millis(s.p50_ms)}</Table.Td>
              <Table.Td ta="right">{millis(s.p90_ms)}</Table.Td>
              <Table.Td ta="right">{millis(s.p95_ms)}</Table.Td>
              <Table.Td ta="right">{millis(s.p99_ms)}</Table.Td>
              <Table.Td ta="right">{percent(s.sla_100ms)}</Table.Td>
              <Table.Td ta="right">{percent(s.sla_150ms)}</Table.Td>
              <Table.Td ta="right">{percent(s.sla_200ms)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function RecentOrders() {
  const logs = useQuery({
    queryKey: ['latency', 'logs'],
    queryFn: () => api<{ data: LatencyLog[] }>('GET', '/logs/api/latency/logs?limit=50'),
    refetchInterval: 30_000,
  });
  if (logs.isPending) return <Loading label="Loading recent orders…" />;
  if (logs.isError) return <ErrorState error={logs.error} title="Recent orders not loaded" />;
  if (logs.data.data.length === 0) return <Empty>No order latency has been recorded yet.</Empty>;
  return (
    <Table.ScrollContainer minWidth={900}>
      <Table
        striped
        highlightOnHover
        aria-label="Recent order latencies"
        fz="sm"
        style={{ whiteSpace: 'nowrap' }}
      >
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Time (IST)</Table.Th>
            <Table.Th>API type</Table.Th>
            <Table.Th>Broker</Table.Th>
            <Table.Th>Symbol</Table.Th>
            <Table.Th>Order id</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th ta="right">Total</Table.Th>
            <Table.Th ta="right">Broker</Table.Th>
            <Table.Th ta="right">Validation</Table.Th>
            <Table.Th ta="right">Overhead</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {logs.data.data.map((r) => (
            <Table.Tr key={r.id}>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>{istDateTime(r.created_at)}</Table.Td>
              <Table.Td>{r.label}</Table.Td>
              <Table.Td>{r.broker}</Table.Td>
              <Table.Td ff="monospace">{r.symbol}</Table.Td>
              <Table.Td ff="monospace">{r.order_id ?? '—'}</Table.Td>
              <Table.Td>
                <Badge color={r.status === 'success' ? 'green' : 'red'} variant="light">
                  {r.status}
                </Badge>
              </Table.Td>
              <Table.Td ta="right" fw={600}>
                {millis(r.total_latency_ms)}
              </Table.Td>
              <Table.Td ta="right">{millis(r.broker_ms)}</Table.Td>
              <Table.Td ta="right">{millis(r.validation_ms)}</Table.Td>
              <Table.Td ta="right">{millis(r.overhead_ms)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export default function LatencyPage() {
  const [hours, setHours] = useState('24');
  const stats = useQuery({
    queryKey: ['latency', 'stats', hours],
    queryFn: () =>
      api<LatencyStats>('GET', '/logs/api/latency/stats?' + new URLSearchParams({ hours }).toString()),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
  const s = stats.data;
  const o = s?.overall;
  return (
    <Container size="xl" px={0}>
      <Group justify="space-between" align="flex-end" mb="md" wrap="wrap">
        <div>
          <Title order={1} size="h2">
            Latency
          </Title>
          <Text size="sm" c="dimmed">
            Time from an order request to its answer. Percentiles are nearest-rank over every order in the
            window.
          </Text>
        </div>
        <WindowPicker value={hours} onChange={setHours} />
      </Group>
      {stats.isPending && <Loading label="Loading latency…" />}
      {stats.isError && !s && <ErrorState error={stats.error} title="Latency not loaded" />}
      {s && o && (
        <Stack gap="lg">
          <Figures
            label="Latency figures"
            items={[
              { label: 'Orders', value: count(o.count), hint: `in the last ${windowLabel(hours)}` },
              { label: 'p50', value: millis(o.p50_ms), hint: 'median total' },
              { label: 'p90', value: millis(o.p90_ms) },
              { label: 'p95', value: millis(o.p95_ms) },
              { label: 'p99', value: millis(o.p99_ms), hint: `max ${millis(o.max_ms)}` },
              { label: 'Under 100 ms', value: percent(o.sla_100ms), hint: 'share of orders' },
              { label: 'Under 150 ms', value: percent(o.sla_150ms), hint: 'share of orders' },
              { label: 'Under 200 ms', value: percent(o.sla_200ms), hint: 'share of orders' },
            ]}
          />
          {o.count === 0 ? (
            <Card withBorder>
              <Empty>No order was placed in the last {windowLabel(hours)}.</Empty>
            </Card>
          ) : (
            <SimpleGrid cols={{ base: 1, md: 2 }}>
              <Section title="Histogram of total latency">
                <LatencyHistogram bars={s.histogram} />
              </Section>
              <Section title={`Total latency per ${s.series.bucket}`}>
                <LatencySeries
                  points={s.series.points}
                  since={s.since}
                  until={s.until}
                  bucket={s.series.bucket}
                />
              </Section>
            </SimpleGrid>
          )}
          <Section title="By broker">
            <SummaryTable rows={s.by_broker} name="Broker" caption="Latency by broker" />
          </Section>
          <Section title="By API type">
            <SummaryTable rows={s.by_api_type} name="API type" caption="Latency by API type" />
          </Section>
          <Section title="Recent orders">
            <RecentOrders />
          </Section>
        </Stack>
      )}
    </Container>
  );
}
