/**
 * `/admin/system`: the install's snapshot section by section (host, runtime, hardware, build,
 * configuration — secrets only as "set"/"not set" —, brokers, databases, time), the diagnostics
 * probes with each one's result and time, and the report to download (Markdown or text).
 */
import {
  Anchor,
  Badge,
  Button,
  Card,
  Container,
  Group,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { CheckRun } from '../../components/CheckRun';
import { DataTable, type DataColumn } from '../../components/DataTable';
import { SectionCard } from '../../components/Section';
import { ErrorState, Loading } from '../../components/states';
import {
  useDiagnosticsMutation,
  useSystemSnapshot,
  type Diagnostics,
  type SystemSnapshot,
} from '../../features/admin/api/system';
import { formatBytes, formatCount, formatDecimal, formatMillis } from '../../format-number';
import { istStamp } from '../../ist-time';

/** Any value of the snapshot: the page writes each section as rows of labelled values. */
type Value = string | number | boolean | null | undefined | Value[] | { [k: string]: Value };

const SECTIONS: Array<{ key: Exclude<keyof SystemSnapshot, 'mode' | 'databases'>; title: string }> = [
  { key: 'host', title: 'Host' },
  { key: 'runtime', title: 'Runtime' },
  { key: 'hardware', title: 'Hardware' },
  { key: 'build', title: 'Build' },
  { key: 'config', title: 'Configuration' },
  { key: 'brokers', title: 'Brokers' },
  { key: 'time', title: 'Time' },
];

const words = (key: string) =>
  key
    .replace(/_/g, ' ')
    .replace(/\bms\b/, '(ms)')
    .replace(/\bs\b$/, '(s)');

/** Numbers that name rather than count (a port, a process id, a version): written as they are. */
const IDENTIFIER = /(^|_)(port|pid|ppid|uid|gid|year|version|major|minor|id)$/;

function show(key: string, v: Value): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'boolean') {
    if (key.startsWith('secrets_present') || key.endsWith('_set')) return v ? 'set' : 'not set';
    return v ? 'yes' : 'no';
  }
  if (typeof v === 'number') {
    // docs/rules/web.md#number-formats: counts grouped, measures with at most two decimals.
    if (/bytes$/.test(key)) return formatBytes(v);
    if (IDENTIFIER.test(key)) return String(v);
    return Number.isInteger(v) ? formatCount(v) : formatDecimal(v);
  }
  if (Array.isArray(v)) return v.map((x) => show(key, x)).join(', ') || '—';
  if (typeof v === 'object') return JSON.stringify(v);
  return v;
}

/** Nested objects flattened into `a › b` rows. */
function rowsOf(obj: Record<string, Value>, prefix = ''): Array<[string, string, string]> {
  return Object.entries(obj).flatMap(([k, v]) => {
    const path = prefix ? `${prefix} › ${words(k)}` : words(k);
    const id = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const secrets = k === 'secrets_present';
      return rowsOf(v, path).map(([p, val, i]) =>
        secrets
          ? [p, val === 'yes' ? 'set' : val === 'no' ? 'not set' : val, `${id}.${i}`]
          : [p, val, `${id}.${i}`],
      ) as Array<[string, string, string]>;
    }
    return [[path, show(k, v), id]] as Array<[string, string, string]>;
  });
}

function Section({ title, data }: { title: string; data: Value }) {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return null;
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="sm">
        {title}
      </Title>
      <Table aria-label={title} fz="sm" verticalSpacing={4}>
        <Table.Tbody>
          {rowsOf(data).map(([k, v, id]) => (
            <Table.Tr key={id}>
              <Table.Td c="dimmed" w="45%">
                {k}
              </Table.Td>
              <Table.Td style={{ wordBreak: 'break-word' }}>{v}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Card>
  );
}

function Databases({ rows }: { rows: Value }) {
  if (!Array.isArray(rows)) return null;
  return (
    <Card withBorder>
      <Title order={2} size="h4" mb="sm">
        Databases
      </Title>
      <Table.ScrollContainer minWidth={520}>
        <Table aria-label="Databases" fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Kind</Table.Th>
              <Table.Th>File</Table.Th>
              <Table.Th>Size</Table.Th>
              <Table.Th>Modified</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((r, i) => {
              const d = r as Record<string, Value>;
              return (
                <Table.Tr key={i}>
                  <Table.Td>{show('name', d.name)}</Table.Td>
                  <Table.Td>{show('kind', d.kind)}</Table.Td>
                  <Table.Td style={{ wordBreak: 'break-all' }}>
                    {d.present === false ? 'absent' : show('file', d.file)}
                  </Table.Td>
                  <Table.Td>{show('size_bytes', d.size_bytes)}</Table.Td>
                  <Table.Td>{typeof d.modified === 'string' ? istStamp(d.modified) : '—'}</Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Card>
  );
}

const PROBE_COLUMNS: DataColumn<Diagnostics['probes'][number]>[] = [
  { key: 'probe', label: 'Probe', cell: (p) => p.name, td: { fw: 600 } },
  { key: 'target', label: 'Target', cell: (p) => p.target ?? '—', td: { ff: 'monospace', fz: 'xs' } },
  {
    key: 'result',
    label: 'Result',
    cell: (p) => (
      <Badge color={p.skipped ? 'gray' : p.ok ? 'green' : 'red'} variant="light">
        {p.skipped ? 'skipped' : p.ok ? 'ok' : 'failed'}
      </Badge>
    ),
  },
  {
    key: 'time',
    label: 'Time',
    numeric: true,
    cell: (p) => (p.skipped ? '—' : formatMillis(Math.round(p.ms))),
    td: { style: { whiteSpace: 'nowrap' } },
  },
  { key: 'detail', label: 'Detail', cell: (p) => p.detail, td: { style: { wordBreak: 'break-word' } } },
];

function RunDiagnostics() {
  const run = useDiagnosticsMutation();
  return (
    <CheckRun
      run={run}
      select={(a) => a.data}
      label="Run diagnostics"
      variant="filled"
      errorTitle="Diagnostics did not run"
      summary={(d) => ({
        ok: d.ok,
        text: `${d.ok ? 'Every probe passed' : 'A probe failed'} in ${formatMillis(Math.round(d.ms))}`,
      })}
    >
      {(d) => (
        <>
          <DataTable
            label="Diagnostics"
            minWidth={560}
            striped
            rows={d.probes}
            rowKey={(p) => p.name}
            columns={PROBE_COLUMNS}
          />
          <Text size="xs" c="dimmed">
            Each probe is cut after {formatMillis(d.timeout_ms)}.
          </Text>
        </>
      )}
    </CheckRun>
  );
}

export default function SystemPage() {
  const snap = useSystemSnapshot();
  return (
    <Container size="xl">
      <Group justify="space-between" mb="md" wrap="wrap">
        <Title order={1} size="h2">
          System
        </Title>
        <Group gap="xs">
          {/* A plain link: the browser downloads the file with the session cookie. */}
          <Button component="a" href="/admin/api/system/report?format=md" download variant="default">
            Download the report (Markdown)
          </Button>
          <Anchor href="/admin/api/system/report?format=txt" download size="sm">
            as text
          </Anchor>
        </Group>
      </Group>
      <Stack gap="lg">
        <SectionCard title="Diagnostics">
          <Text size="sm" c="dimmed" mb="sm">
            Probes the database, this service over HTTP (loopback and its public address), Redis and the
            broker’s API host, all at once.
          </Text>
          <RunDiagnostics />
        </SectionCard>
        {snap.isPending && <Loading label="Reading the install’s snapshot…" />}
        {snap.isError && <ErrorState error={snap.error} />}
        {snap.data && (
          <>
            <Group gap="xs">
              <Text>Trading mode:</Text>
              <Badge color={snap.data.data.mode === 'Analyze' ? 'orange' : 'green'} variant="light">
                {show('mode', snap.data.data.mode)}
              </Badge>
            </Group>
            <SimpleGrid cols={{ base: 1, md: 2 }}>
              {SECTIONS.map((s) => (
                <Section key={s.key} title={s.title} data={snap.data.data[s.key]} />
              ))}
            </SimpleGrid>
            <Databases rows={snap.data.data.databases} />
          </>
        )}
      </Stack>
    </Container>
  );
}
