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
import { useMutation, useQuery } from '@tanstack/react-query';
import { api } from '../../api/client';
import { ErrorState, Loading } from '../../components/states';
import { formatBytes, formatCount, formatDecimal, formatMillis } from '../../format-number';
import { istStamp } from '../../ist-time';

type Value = string | number | boolean | null | undefined | Value[] | { [k: string]: Value };
type Snapshot = Record<string, Value>;
interface Probe {
  name: string;
  target: string | null;
  ok: boolean;
  skipped: boolean;
  ms: number;
  detail: string;
}
interface Diagnostics {
  ok: boolean;
  ms: number;
  timeout_ms: number;
  probes: Probe[];
}

const SECTIONS: Array<{ key: string; title: string }> = [
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

function RunDiagnostics() {
  const run = useMutation({
    mutationFn: () => api<{ data: Diagnostics }>('POST', '/admin/api/system/diagnostics'),
  });
  const d = run.data?.data;
  return (
    <Stack>
      <Group>
        <Button onClick={() => run.mutate()} loading={run.isPending}>
          Run diagnostics
        </Button>
        {d && (
          <Text role="status" c={d.ok ? 'green' : 'red'} fw={600}>
            {d.ok ? 'Every probe passed' : 'A probe failed'} in {formatMillis(Math.round(d.ms))}
          </Text>
        )}
      </Group>
      {run.error && <ErrorState error={run.error} title="Diagnostics did not run" />}
      {d && (
        <Table.ScrollContainer minWidth={560}>
          <Table aria-label="Diagnostics" striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Probe</Table.Th>
                <Table.Th>Target</Table.Th>
                <Table.Th>Result</Table.Th>
                <Table.Th ta="right">Time</Table.Th>
                <Table.Th>Detail</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {d.probes.map((p) => (
                <Table.Tr key={p.name}>
                  <Table.Td fw={600}>{p.name}</Table.Td>
                  <Table.Td ff="monospace" fz="xs">
                    {p.target ?? '—'}
                  </Table.Td>
                  <Table.Td>
                    <Badge color={p.skipped ? 'gray' : p.ok ? 'green' : 'red'} variant="light">
                      {p.skipped ? 'skipped' : p.ok ? 'ok' : 'failed'}
                    </Badge>
                  </Table.Td>
                  <Table.Td ta="right" style={{ whiteSpace: 'nowrap' }}>
                    {p.skipped ? '—' : formatMillis(Math.round(p.ms))}
                  </Table.Td>
                  <Table.Td style={{ wordBreak: 'break-word' }}>{p.detail}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {d && (
        <Text size="xs" c="dimmed">
          Each probe is cut after {formatMillis(d.timeout_ms)}.
        </Text>
      )}
    </Stack>
  );
}

export default function SystemPage() {
  const snap = useQuery({
    queryKey: ['admin', 'system'],
    queryFn: () => api<{ data: Snapshot }>('GET', '/admin/api/system'),
  });
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
        <Card withBorder>
          <Title order={2} size="h4" mb="sm">
            Diagnostics
          </Title>
          <Text size="sm" c="dimmed" mb="sm">
            Probes the database, this service over HTTP (loopback and its public address), Redis and the
            broker’s API host, all at once.
          </Text>
          <RunDiagnostics />
        </Card>
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
