/**
 * `/logs/traffic` (docs/rules/web.md#traffic-page): requests and errors over a chosen window —
 * totals, status classes, a chart per minute or hour, the busiest paths and client addresses,
 * the endpoint groups, and the request table with filters and paging. Refreshed every 30 s.
 */
import { Anchor, SimpleGrid, Stack } from '@mantine/core';
import { useMemo, useState } from 'react';
import type uPlot from 'uplot';
import { DataTable, type DataColumn } from '../../components/DataTable';
import { SectionCard } from '../../components/Section';
import { Empty } from '../../components/states';
import { WindowedPage } from '../../components/WindowedPage';
import { useTrafficStats, type TrafficStats } from '../../features/monitoring/api/monitoring';
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

interface TopRow {
  key: string;
  requests: number;
  errors: number;
}

function TopTable({
  rows,
  caption,
  column,
  onPick,
}: {
  rows: TopRow[];
  caption: string;
  column: string;
  onPick: (key: string) => void;
}) {
  if (rows.length === 0) return <Empty>No request in this window.</Empty>;
  const columns: DataColumn<TopRow>[] = [
    {
      key: 'key',
      label: column,
      cell: (r) => (
        <Anchor
          component="button"
          type="button"
          inherit
          onClick={() => onPick(r.key)}
          aria-label={`Show the requests of ${r.key}`}
        >
          {r.key}
        </Anchor>
      ),
      td: { ff: 'monospace', style: { wordBreak: 'break-all' } },
    },
    { key: 'requests', label: 'Requests', cell: (r) => count(r.requests), numeric: true },
    {
      key: 'errors',
      label: 'Errors',
      cell: (r) => count(r.errors),
      numeric: true,
      td: (r) => (r.errors > 0 ? { c: 'red' } : {}),
    },
  ];
  return (
    <DataTable
      label={caption}
      minWidth={320}
      striped
      fz="sm"
      rows={rows}
      rowKey={(r) => r.key}
      columns={columns}
    />
  );
}

const GROUP_COLUMNS: DataColumn<TrafficStats['groups'][number]>[] = [
  {
    key: 'route',
    label: 'Route',
    cell: (g) => g.endpoint_group,
    td: { ff: 'monospace', style: { wordBreak: 'break-all' } },
  },
  { key: 'requests', label: 'Requests', cell: (g) => count(g.requests), numeric: true },
  { key: 'errors', label: 'Errors', cell: (g) => count(g.errors), numeric: true },
  { key: 'server', label: 'Server errors', cell: (g) => count(g.server_errors), numeric: true },
  { key: 'avg', label: 'Average', cell: (g) => millis(g.avg_ms), numeric: true },
  { key: 'p95', label: 'p95', cell: (g) => millis(g.p95_ms), numeric: true },
];

function GroupsTable({ groups }: { groups: TrafficStats['groups'] }) {
  if (groups.length === 0) return <Empty>No request in this window.</Empty>;
  return (
    <DataTable
      label="Endpoint groups"
      minWidth={600}
      striped
      fz="sm"
      rows={groups.slice(0, 20)}
      rowKey={(g) => g.endpoint_group}
      columns={GROUP_COLUMNS}
    />
  );
}

export default function TrafficPage() {
  const [hours, setHours] = useState('24');
  const [filters, setFilters] = useState<RequestFilters>(NO_FILTERS);
  const stats = useTrafficStats(hours);
  const pick = (patch: Partial<RequestFilters>) => {
    setFilters({ ...NO_FILTERS, ...patch });
    document.getElementById('traffic-requests')?.scrollIntoView({ behavior: 'smooth' });
  };

  return (
    <WindowedPage
      title="Traffic"
      intro="Every request this install answered. Webhook tokens and query strings are never stored."
      controls={<WindowPicker value={hours} onChange={setHours} />}
      query={stats}
      label="Loading traffic…"
      errorTitle="Traffic not loaded"
      footer={
        // Fetched alongside the stats, not after them.
        <div id="traffic-requests" style={{ marginTop: 'var(--mantine-spacing-lg)' }}>
          <SectionCard region title="Requests">
            <TrafficRequests hours={hours} filters={filters} onFilters={setFilters} />
          </SectionCard>
        </div>
      }
    >
      {(s) => {
        const classes = s.status_classes;
        const total = s.totals.requests;
        return (
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
            <SectionCard region title={`Requests and errors per ${s.series.bucket}`}>
              {total === 0 ? (
                <Empty>No request in this window.</Empty>
              ) : (
                <RequestsChart stats={s} hours={hours} />
              )}
            </SectionCard>
            <SectionCard region title="Status classes">
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
            </SectionCard>
            <SimpleGrid cols={{ base: 1, md: 2 }}>
              <SectionCard region title="Top paths">
                <TopTable
                  rows={s.top_paths.map((r) => ({ key: r.path, requests: r.requests, errors: r.errors }))}
                  caption="Top paths"
                  column="Path"
                  onPick={(path) => pick({ path })}
                />
              </SectionCard>
              <SectionCard region title="Top client addresses">
                <TopTable
                  rows={s.top_ips.map((r) => ({ key: r.ip, requests: r.requests, errors: r.errors }))}
                  caption="Top client addresses"
                  column="Address"
                  onPick={(ip) => pick({ ip })}
                />
              </SectionCard>
            </SimpleGrid>
            <SectionCard region title="Routes">
              <GroupsTable groups={s.groups} />
            </SectionCard>
          </Stack>
        );
      }}
    </WindowedPage>
  );
}
