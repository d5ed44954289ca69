/**
 * The traffic page's request table (docs/rules/web.md#traffic-page): filters by status (class or
 * code), method, path and client address, 50 rows a page, newest first. Paths are shown as stored:
 * webhook tokens masked by the server.
 */
import '@mantine/core/styles/Pagination.css';
import { Badge, Button, Group, NativeSelect, Pagination, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useEffect, useState } from 'react';
import { ApiError, fieldError, onlyFieldErrors } from '../../api/client';
import { DataTable, type DataColumn } from '../../components/DataTable';
import { Empty, ErrorState, Loading } from '../../components/states';
import { useTrafficRequests, type TrafficList } from '../../features/monitoring/api/monitoring';
import { istTime } from '../../ist-time';
import { count, millis } from './format';

const PAGE_SIZE = 50;

/** Filters the page may set from outside (a top path or address clicked). */
export interface RequestFilters {
  status: string;
  method: string;
  path: string;
  ip: string;
}
export const NO_FILTERS: RequestFilters = { status: '', method: '', path: '', ip: '' };

const STATUS_OPTIONS = [
  { value: '', label: 'Any status' },
  { value: '2xx', label: '2xx success' },
  { value: '3xx', label: '3xx redirect' },
  { value: '4xx', label: '4xx client error' },
  { value: '5xx', label: '5xx server error' },
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const METHOD_OPTIONS = [{ value: '', label: 'Any method' }, ...METHODS.map((m) => ({ value: m, label: m }))];
const FILTER_FIELDS = ['status', 'method', 'path', 'ip'];

const statusColor = (s: number) => (s >= 500 ? 'red' : s >= 400 ? 'orange' : s >= 300 ? 'gray' : 'green');

const COLUMNS: DataColumn<TrafficList['data'][number]>[] = [
  { key: 'time', label: 'Time (IST)', cell: (r) => istTime(r.ts), td: { style: { whiteSpace: 'nowrap' } } },
  { key: 'ip', label: 'Client address', cell: (r) => r.ip, td: { ff: 'monospace' } },
  { key: 'method', label: 'Method', cell: (r) => r.method },
  {
    key: 'path',
    label: 'Path',
    cell: (r) => r.path,
    td: { ff: 'monospace', style: { wordBreak: 'break-all' } },
  },
  {
    key: 'status',
    label: 'Status',
    cell: (r) => (
      <Badge color={statusColor(r.status)} variant="light">
        {r.status}
      </Badge>
    ),
  },
  {
    key: 'duration',
    label: 'Duration',
    numeric: true,
    cell: (r) => millis(r.duration_ms),
    td: { style: { whiteSpace: 'nowrap' } },
  },
];

export function TrafficRequests({
  hours,
  filters,
  onFilters,
}: {
  hours: string;
  filters: RequestFilters;
  onFilters: (f: RequestFilters) => void;
}) {
  const [page, setPage] = useState(1);
  // Typed text is sent once the typing pauses, not on every key.
  const [path] = useDebouncedValue(filters.path.trim(), 300);
  const [ip] = useDebouncedValue(filters.ip.trim(), 300);
  const { status, method } = filters;
  useEffect(() => setPage(1), [hours, status, method, path, ip]);

  const params = new URLSearchParams({
    hours,
    limit: String(PAGE_SIZE),
    offset: String((page - 1) * PAGE_SIZE),
  });
  if (status) params.set('status', status);
  if (method) params.set('method', method);
  if (path) params.set('path', path);
  // The server refuses other characters with a pattern in its message: say it in words here.
  const ipInvalid = ip !== '' && !/^[0-9A-Fa-f:.]{1,45}$/.test(ip);
  if (ip && !ipInvalid) params.set('ip', ip);
  const list = useTrafficRequests(params.toString());
  const err = list.error;
  const set = (patch: Partial<RequestFilters>) => onFilters({ ...filters, ...patch });
  const filtered = Object.values(filters).some((v) => v !== '');
  const data = list.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / PAGE_SIZE)) : 1;

  return (
    <Stack gap="sm">
      <form role="search" aria-label="Filter requests" onSubmit={(e) => e.preventDefault()}>
        <Group align="flex-end" gap="sm" wrap="wrap">
          <NativeSelect
            label="Status"
            data={STATUS_OPTIONS}
            value={status}
            onChange={(e) => set({ status: e.currentTarget.value })}
            miw={175}
          />
          <NativeSelect
            label="Method"
            data={METHOD_OPTIONS}
            value={method}
            onChange={(e) => set({ method: e.currentTarget.value })}
            miw={130}
          />
          <TextInput
            label="Path contains"
            placeholder="/api/v1/placeorder"
            value={filters.path}
            onChange={(e) => set({ path: e.currentTarget.value })}
            error={fieldError(err, 'path')}
            miw={200}
            style={{ flex: 1 }}
          />
          <TextInput
            label="IP address"
            description={'A range ends in "." or ":"'}
            placeholder="203.0.113.7"
            value={filters.ip}
            onChange={(e) => set({ ip: e.currentTarget.value })}
            error={
              ipInvalid
                ? 'An address has only digits, the letters a to f, "." and ":".'
                : fieldError(err, 'ip')
            }
            miw={180}
          />
          {filtered && (
            <Button variant="default" onClick={() => onFilters(NO_FILTERS)}>
              Clear filters
            </Button>
          )}
        </Group>
      </form>
      {list.isPending && <Loading label="Loading requests…" />}
      {err && !(err instanceof ApiError && onlyFieldErrors(err, FILTER_FIELDS)) && (
        <ErrorState error={err} title="Requests not loaded" />
      )}
      {data && data.total === 0 && (
        <Empty>{filtered ? 'No request matches these filters.' : 'No request in this window.'}</Empty>
      )}
      {data && data.total > 0 && (
        <>
          <Text size="sm" c="dimmed" aria-live="polite" data-testid="requests-range">
            Showing {count(data.offset + 1)}–{count(data.offset + data.data.length)} of {count(data.total)}{' '}
            requests
          </Text>
          <DataTable
            label="Requests"
            minWidth={760}
            striped
            highlightOnHover
            fz="sm"
            rows={data.data}
            rowKey={(r, i) => `${r.ts}-${data.offset + i}`}
            columns={COLUMNS}
          />
          {pages > 1 && (
            <Pagination
              total={pages}
              value={page}
              onChange={setPage}
              siblings={1}
              boundaries={1}
              aria-label="Request pages"
              getControlProps={(control) =>
                control === 'previous'
                  ? { 'aria-label': 'Previous page' }
                  : control === 'next'
                    ? { 'aria-label': 'Next page' }
                    : control === 'first'
                      ? { 'aria-label': 'First page' }
                      : { 'aria-label': 'Last page' }
              }
              getItemProps={(n) => ({ 'aria-label': `Page ${n}` })}
            />
          )}
        </>
      )}
    </Stack>
  );
}
