/** The shield's trackers on `/logs/security`: 404s (with clear) and refused API keys (digests only). */
import { Button } from '@mantine/core';
import { DataTable, type DataColumn } from '../components/DataTable';
import { Empty } from '../components/states';
import {
  useClear404Mutation,
  type ApiKeyTracker,
  type NotFoundTracker,
} from '../features/security/api/security';
import { formatCount } from '../format-number';
import { istStamp } from '../ist-time';

/** A tracked address: the 404 tracker's (with paths) or the invalid API key tracker's (digests). */
export type Tracker = Partial<NotFoundTracker & ApiKeyTracker> &
  Pick<NotFoundTracker, 'ip' | 'count' | 'last_seen'>;

const when = (iso: string | null) => (iso === null ? '—' : istStamp(iso));

function Clear404({ ip }: { ip: string }) {
  const clear = useClear404Mutation();
  return (
    <Button
      size="xs"
      variant="light"
      onClick={() => clear.mutate(ip)}
      loading={clear.isPending}
      aria-label={`Clear the 404 count of ${ip}`}
    >
      Clear
    </Button>
  );
}

export function TrackerTable({
  rows,
  items,
  label,
}: {
  rows: Tracker[];
  items: 'paths' | 'key_digests';
  label: string;
}) {
  if (rows.length === 0) return <Empty>Nothing tracked.</Empty>;
  const columns: DataColumn<Tracker>[] = [
    { key: 'ip', label: 'Address', cell: (t) => t.ip, td: { ff: 'monospace' } },
    { key: 'count', label: 'Count', cell: (t) => formatCount(t.count) },
    {
      key: 'items',
      label: items === 'paths' ? 'Paths' : 'Keys',
      cell: (t) =>
        items === 'paths' ? (t.paths ?? []).slice(0, 5).join(', ') : `${(t.key_digests ?? []).length} key(s)`,
    },
    { key: 'seen', label: 'Last seen', cell: (t) => when(t.last_seen) },
    ...(items === 'paths' ? [{ key: 'clear', cell: (t: Tracker) => <Clear404 ip={t.ip} /> }] : []),
  ];
  return (
    <DataTable label={label} minWidth={600} striped rows={rows} rowKey={(t) => t.ip} columns={columns} />
  );
}
