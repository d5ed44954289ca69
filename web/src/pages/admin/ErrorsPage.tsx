/**
 * `/admin/errors`: the error log — stats by level and origin, the last 24 hours hour by hour,
 * the groups (one line per fingerprint) and the entries with level, origin and text filters.
 * Browser errors reported by the console land here too (docs/rules/web.md#client-errors).
 */
import {
  Badge,
  Button,
  Card,
  Code,
  Container,
  Group,
  Modal,
  NativeSelect,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import '@mantine/core/styles/Tooltip.css';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { DataTable, type DataColumn } from '../../components/DataTable';
import { SectionCard } from '../../components/Section';
import { Empty, ErrorState, Loading } from '../../components/states';
import {
  useErrorEntries,
  useErrorGroups,
  useErrorStats,
  type ErrorEntry as Entry,
  type ErrorGroup,
} from '../../features/admin/api/errors';
import { formatCount } from '../../format-number';
import { istClock, istStamp } from '../../ist-time';

/** The levels the log keeps, mildest first (`ERROR_LEVELS` of error-record.ts). */
const LEVELS = ['warn', 'error', 'fatal'] as const;
const LEVEL_COLOR: Record<string, string> = { warn: 'yellow', error: 'red', fatal: 'grape' };
const when = (iso: string) => istStamp(iso);

function LevelBadge({ level }: { level: string }) {
  return (
    <Badge color={LEVEL_COLOR[level] ?? 'gray'} variant="light" size="sm">
      {level}
    </Badge>
  );
}

function Figure({ label, value }: { label: string; value: number }) {
  return (
    <Card withBorder padding="sm">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="xl" fw={700}>
        {formatCount(value)}
      </Text>
    </Card>
  );
}

function StatsCard() {
  const stats = useErrorStats();
  if (stats.isPending) return <Loading />;
  if (stats.isError) return <ErrorState error={stats.error} />;
  const s = stats.data.data;
  return (
    <Stack gap="xs">
      <SimpleGrid cols={{ base: 2, sm: 4, md: 7 }}>
        <Figure label="Total" value={s.total} />
        {LEVELS.map((l) => (
          <Figure key={l} label={l} value={s.by_level[l] ?? 0} />
        ))}
        <Figure label="Browser" value={s.by_origin.client ?? 0} />
        <Figure label="Last hour" value={s.last_hour} />
        <Figure label="Last 24 h" value={s.last_24h} />
      </SimpleGrid>
      <Text size="xs" c="dimmed">
        Kept: the newest {formatCount(s.retention.max_rows)} entries, at most {s.retention.max_age_days} days.
        {s.dropped > 0 ? ` ${formatCount(s.dropped)} entries were dropped under load.` : ''}
      </Text>
    </Stack>
  );
}

/** The listed entries of the last 24 hours, hour by hour (bars scaled to the busiest hour). */
function ByHour({ entries }: { entries: Entry[] }) {
  const now = Date.now();
  const hour = 3_600_000;
  const buckets = Array.from({ length: 24 }, (_, i) => {
    const start = Math.floor(now / hour) * hour - (23 - i) * hour;
    const n: Record<string, number> = {};
    for (const e of entries) {
      const t = Date.parse(e.time);
      if (t >= start && t < start + hour) n[e.level] = (n[e.level] ?? 0) + 1;
    }
    return { start, n, total: Object.values(n).reduce((a, b) => a + b, 0) };
  });
  const max = Math.max(1, ...buckets.map((b) => b.total));
  if (buckets.every((b) => b.total === 0)) return <Empty>No error in the last 24 hours of this list.</Empty>;
  return (
    <>
      <Group
        gap={2}
        align="flex-end"
        h={90}
        role="img"
        aria-label="Errors per hour, last 24 hours"
        wrap="nowrap"
      >
        {buckets.map((b) => (
          <Tooltip
            key={b.start}
            label={`${istClock(b.start)} IST: ${LEVELS.map((l) => `${b.n[l] ?? 0} ${l}`).join(', ')}`}
          >
            <Stack gap={0} justify="flex-end" style={{ flex: 1, height: '100%' }}>
              {[...LEVELS].reverse().map((l) =>
                b.n[l] ? (
                  <div
                    key={l}
                    style={{
                      height: `${(b.n[l] / max) * 100}%`,
                      background: `var(--mantine-color-${LEVEL_COLOR[l]}-6)`,
                    }}
                  />
                ) : null,
              )}
              {b.total === 0 && <div style={{ height: 1, background: 'var(--mantine-color-gray-3)' }} />}
            </Stack>
          </Tooltip>
        ))}
      </Group>
      <Group justify="space-between" aria-hidden>
        <Text size="xs" c="dimmed">
          24 hours ago
        </Text>
        <Text size="xs" c="dimmed">
          now
        </Text>
      </Group>
    </>
  );
}

const GROUP_COLUMNS: DataColumn<ErrorGroup>[] = [
  { key: 'level', label: 'Level', cell: (g) => <LevelBadge level={g.level} /> },
  { key: 'pattern', label: 'Pattern', cell: (g) => g.pattern, td: { style: { wordBreak: 'break-word' } } },
  { key: 'module', label: 'Module', cell: (g) => g.module ?? '—' },
  { key: 'count', label: 'Count', cell: (g) => formatCount(g.count), numeric: true },
  { key: 'last', label: 'Last seen', cell: (g) => when(g.last_seen) },
];

function Groups({ level }: { level: string }) {
  const groups = useErrorGroups(level);
  if (groups.isPending) return <Loading />;
  if (groups.isError) return <ErrorState error={groups.error} />;
  const rows = groups.data.data.groups;
  if (rows.length === 0) return <Empty>No error is logged.</Empty>;
  return (
    <DataTable
      label="Error groups"
      minWidth={720}
      striped
      rows={rows}
      rowKey={(g) => g.fingerprint}
      columns={GROUP_COLUMNS}
    />
  );
}

function EntryDetail({ entry }: { entry: Entry }) {
  const rows: Array<[string, string | null]> = [
    ['Time', when(entry.time)],
    ['Origin', entry.origin],
    ['Module', entry.module],
    ['Request', entry.request.path ? `${entry.request.method ?? ''} ${entry.request.path}` : null],
    ['Page', entry.url],
    ['Browser', entry.user_agent],
    ['Exception', entry.exception],
  ];
  return (
    <Stack gap="xs">
      <Text fw={600} style={{ wordBreak: 'break-word' }}>
        {entry.message}
      </Text>
      {rows
        .filter(([, v]) => v)
        .map(([k, v]) => (
          <Text key={k} size="sm">
            <Text span c="dimmed">
              {k}:
            </Text>{' '}
            {v}
          </Text>
        ))}
      {entry.stack && (
        <Code block style={{ maxHeight: 300, overflow: 'auto' }}>
          {entry.stack}
        </Code>
      )}
      {entry.component_stack && <Code block>{entry.component_stack}</Code>}
    </Stack>
  );
}

const entryColumns = (open: (e: Entry) => void): DataColumn<Entry>[] => [
  { key: 'time', label: 'Time', cell: (e) => when(e.time), td: { style: { whiteSpace: 'nowrap' } } },
  { key: 'level', label: 'Level', cell: (e) => <LevelBadge level={e.level} /> },
  { key: 'origin', label: 'Origin', cell: (e) => (e.origin === 'client' ? 'browser' : 'server') },
  { key: 'message', label: 'Message', cell: (e) => e.message, td: { style: { wordBreak: 'break-word' } } },
  {
    key: 'where',
    label: 'Where',
    cell: (e) => e.request.path ?? e.module ?? '—',
    td: { ff: 'monospace', fz: 'xs' },
  },
  {
    key: 'details',
    cell: (e) => (
      <Button size="xs" variant="subtle" onClick={() => open(e)} aria-label={`Details of entry ${e.id}`}>
        Details
      </Button>
    ),
  },
];

export default function ErrorsPage() {
  const [level, setLevel] = useState('');
  const [origin, setOrigin] = useState('');
  const [text, setText] = useState('');
  const [q] = useDebouncedValue(text.trim(), 300);
  const [open, setOpen] = useState<Entry | undefined>();
  const list = useErrorEntries(level, origin, q);
  const entries = list.data?.data.entries ?? [];
  return (
    <Container size="xl">
      <Title order={1} size="h2" mb="md">
        Error log
      </Title>
      <Stack gap="lg">
        <SectionCard title="By level and origin">
          <StatsCard />
        </SectionCard>
        <Card withBorder>
          <Group justify="space-between" align="flex-end" wrap="wrap" mb="md">
            <Title order={2} size="h4">
              Entries
            </Title>
            <Group align="flex-end" wrap="wrap">
              <NativeSelect
                label="Level"
                data={[
                  { value: '', label: 'All levels' },
                  ...LEVELS.map((l) => ({ value: l, label: `${l} and above` })),
                ]}
                value={level}
                onChange={(e) => setLevel(e.currentTarget.value)}
              />
              <NativeSelect
                label="Origin"
                data={[
                  { value: '', label: 'Server and browser' },
                  { value: 'server', label: 'Server' },
                  { value: 'client', label: 'Browser' },
                ]}
                value={origin}
                onChange={(e) => setOrigin(e.currentTarget.value)}
              />
              <TextInput
                label="Text"
                placeholder="Message, module or path"
                maxLength={200}
                value={text}
                onChange={(e) => setText(e.currentTarget.value)}
              />
            </Group>
          </Group>
          <Text size="sm" fw={500} mb={4}>
            Per hour, last 24 hours
          </Text>
          {list.data && <ByHour entries={entries} />}
          {list.isPending && <Loading />}
          {list.isError && <ErrorState error={list.error} />}
          {list.data && entries.length === 0 && (
            <Empty>{level || origin || q ? 'No entry matches these filters.' : 'No error is logged.'}</Empty>
          )}
          {entries.length > 0 && (
            <DataTable
              label="Error entries"
              minWidth={760}
              maxHeight={520}
              mt="md"
              striped
              highlightOnHover
              stickyHeader
              rows={entries}
              rowKey={(e) => e.id}
              columns={entryColumns(setOpen)}
            />
          )}
        </Card>
        <SectionCard title="Groups">
          <Groups level={level} />
        </SectionCard>
      </Stack>
      <Modal opened={open !== undefined} onClose={() => setOpen(undefined)} title="Error entry" size="lg">
        {open && <EntryDetail entry={open} />}
      </Modal>
    </Container>
  );
}
