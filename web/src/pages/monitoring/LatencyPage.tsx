/**
 * `/logs/latency` (docs/rules/web.md#latency-page): order latency over a chosen window — p50, p90,
 * p95, p99 and the shares under 100, 150 and 200 ms as figures, the histogram and the series of
 * total latency, the same figures per broker and per API type, and the recent orders' latencies.
 */
import { Badge, Card, SimpleGrid, Stack } from '@mantine/core';
import { useState } from 'react';
import { DataTable, type DataColumn } from '../../components/DataTable';
import { SectionCard } from '../../components/Section';
import { Empty, ErrorState, Loading } from '../../components/states';
import { WindowedPage } from '../../components/WindowedPage';
import {
  useLatencyStats,
  useRecentLatencies,
  type LatencyLog,
  type LatencySummary as Summary,
} from '../../features/monitoring/api/monitoring';
import { Figures } from './Figures';
import { istDateTime } from '../../ist-time';
import { count, millis, percent } from './format';
import { LatencyHistogram, LatencySeries } from './LatencyCharts';
import { WindowPicker, windowLabel } from './WindowPicker';

const ms = (get: (s: Summary) => number) => (r: [string, Summary]) => millis(get(r[1]));
const pc = (get: (s: Summary) => number) => (r: [string, Summary]) => percent(get(r[1]));
const summaryColumns = (name: string): DataColumn<[string, Summary]>[] => [
  { key: 'name', label: name, cell: (r) => r[0], td: { fw: 600 } },
  { key: 'orders', label: 'Orders', cell: (r) => count(r[1].count), numeric: true },
  { key: 'avg', label: 'Average', cell: ms((s) => s.avg_ms), numeric: true },
  { key: 'p50', label: 'p50', cell: ms((s) => s.p50_ms), numeric: true },
  { key: 'p90', label: 'p90', cell: ms((s) => s.p90_ms), numeric: true },
  { key: 'p95', label: 'p95', cell: ms((s) => s.p95_ms), numeric: true },
  { key: 'p99', label: 'p99', cell: ms((s) => s.p99_ms), numeric: true },
  { key: 'sla100', label: 'Under 100 ms', cell: pc((s) => s.sla_100ms), numeric: true },
  { key: 'sla150', label: 'Under 150 ms', cell: pc((s) => s.sla_150ms), numeric: true },
  { key: 'sla200', label: 'Under 200 ms', cell: pc((s) => s.sla_200ms), numeric: true },
];

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
    <DataTable
      label={caption}
      minWidth={820}
      striped
      fz="sm"
      style={{ whiteSpace: 'nowrap' }}
      rows={entries}
      rowKey={(r) => r[0]}
      columns={summaryColumns(name)}
    />
  );
}

const RECENT_COLUMNS: DataColumn<LatencyLog>[] = [
  {
    key: 'time',
    label: 'Time (IST)',
    cell: (r) => istDateTime(r.created_at),
    td: { style: { whiteSpace: 'nowrap' } },
  },
  { key: 'type', label: 'API type', cell: (r) => r.label },
  { key: 'broker', label: 'Broker', cell: (r) => r.broker },
  { key: 'symbol', label: 'Symbol', cell: (r) => r.symbol, td: { ff: 'monospace' } },
  { key: 'order', label: 'Order id', cell: (r) => r.order_id ?? '—', td: { ff: 'monospace' } },
  {
    key: 'status',
    label: 'Status',
    cell: (r) => (
      <Badge color={r.status === 'success' ? 'green' : 'red'} variant="light">
        {r.status}
      </Badge>
    ),
  },
  { key: 'total', label: 'Total', cell: (r) => millis(r.total_latency_ms), numeric: true, td: { fw: 600 } },
  { key: 'brokerms', label: 'Broker', cell: (r) => millis(r.broker_ms), numeric: true },
  { key: 'validation', label: 'Validation', cell: (r) => millis(r.validation_ms), numeric: true },
  { key: 'overhead', label: 'Overhead', cell: (r) => millis(r.overhead_ms), numeric: true },
];

function RecentOrders() {
  const logs = useRecentLatencies();
  if (logs.isPending) return <Loading label="Loading recent orders…" />;
  if (logs.isError) return <ErrorState error={logs.error} title="Recent orders not loaded" />;
  if (logs.data.data.length === 0) return <Empty>No order latency has been recorded yet.</Empty>;
  return (
    <DataTable
      label="Recent order latencies"
      minWidth={900}
      striped
      highlightOnHover
      fz="sm"
      style={{ whiteSpace: 'nowrap' }}
      rows={logs.data.data}
      rowKey={(r) => r.id}
      columns={RECENT_COLUMNS}
    />
  );
}

export default function LatencyPage() {
  const [hours, setHours] = useState('24');
  const stats = useLatencyStats(hours);
  return (
    <WindowedPage
      title="Latency"
      intro="Time from an order request to its answer. Percentiles are nearest-rank over every order in the window."
      controls={<WindowPicker value={hours} onChange={setHours} />}
      query={stats}
      label="Loading latency…"
      errorTitle="Latency not loaded"
    >
      {(s) => {
        const o = s.overall;
        return (
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
                <SectionCard region title="Histogram of total latency">
                  <LatencyHistogram bars={s.histogram} />
                </SectionCard>
                <SectionCard region title={`Total latency per ${s.series.bucket}`}>
                  <LatencySeries
                    points={s.series.points}
                    since={s.since}
                    until={s.until}
                    bucket={s.series.bucket}
                  />
                </SectionCard>
              </SimpleGrid>
            )}
            <SectionCard region title="By broker">
              <SummaryTable rows={s.by_broker} name="Broker" caption="Latency by broker" />
            </SectionCard>
            <SectionCard region title="By API type">
              <SummaryTable rows={s.by_api_type} name="API type" caption="Latency by API type" />
            </SectionCard>
            <SectionCard region title="Recent orders">
              <RecentOrders />
            </SectionCard>
          </Stack>
        );
      }}
    </WindowedPage>
  );
}
