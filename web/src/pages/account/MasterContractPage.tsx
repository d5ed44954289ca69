/**
 * `/master-contract` (docs/rules/web.md#account-pages): the instrument master in use (broker, rows
 * by exchange and instrument type, when it was loaded), the latest import's result in words, and
 * for the administrator "Download now" — a background download whose progress the page follows by
 * asking the status route every second while it runs — and, beside it, the upload of an
 * instrument file (`MasterContractUpload.tsx`), followed the same way while its import runs.
 */
import '@mantine/core/styles/Progress.css';
import {
  Alert,
  Badge,
  Button,
  Card,
  Container,
  Group,
  NativeSelect,
  Progress,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { BROKERS, isBroker } from '../../../../src/domain/brokers';
import { useSession } from '../../api/auth';
import { Empty, ErrorState, Loading } from '../../components/states';
import {
  importRunning as running,
  useContractStatus,
  useDownloadContractMutation,
  useRefreshContractStatus,
  useUploadsOnTheirWay,
  type ContractStatus as Status,
} from '../../features/account/api/master-contract';
import { brokerLabel, bytes, count, when } from './format';
import { UploadFile } from './MasterContractUpload';

type ByExchange = Status['by_exchange'];

/** The uploaded file's name when the run was an upload (its source is `upload:<name>`). */
const uploadedName = (source: string | null | undefined) =>
  source?.startsWith('upload:') ? source.slice('upload:'.length) : undefined;

/** Rows by exchange: the exchange's total and its instrument types, largest first. */
function ExchangeTable({ byExchange, label }: { byExchange: ByExchange; label: string }) {
  const rows = Object.entries(byExchange)
    .map(([exchange, types]) => ({
      exchange,
      total: Object.values(types).reduce((a, b) => a + b, 0),
      types: Object.entries(types).sort((a, b) => b[1] - a[1]),
    }))
    .sort((a, b) => b.total - a.total);
  if (rows.length === 0) return <Empty>No rows.</Empty>;
  return (
    <Table.ScrollContainer minWidth={320}>
      <Table striped aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Exchange</Table.Th>
            <Table.Th ta="right">Instruments</Table.Th>
            <Table.Th>By type</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((r) => (
            <Table.Tr key={r.exchange}>
              <Table.Td fw={600}>{r.exchange}</Table.Td>
              <Table.Td ta="right">{count(r.total)}</Table.Td>
              <Table.Td>
                <Text size="sm" c="dimmed">
                  {r.types.map(([t, n]) => `${t} ${count(n)}`).join(' · ')}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function LiveContract({ s }: { s: Status }) {
  const live = s.live;
  if (!live)
    return (
      <Empty>
        No master contract is loaded yet: symbol search and orders cannot find instruments until one is
        downloaded.
      </Empty>
    );
  return (
    <Stack>
      <Text data-testid="contract-summary">
        {brokerLabel(live.broker)} master contract: {count(live.total_symbols)} instruments, loaded{' '}
        {when(live.loaded_at)}.
      </Text>
      <ExchangeTable byExchange={live.by_exchange} label="Instruments by exchange" />
    </Stack>
  );
}

/**
 * The running import's progress, as the server reports it: bytes of the file read, rows read and
 * skipped so far. For a file this tab is uploading, whose size it knows, the bar shows how much of
 * it has been read; for a download it only shows that one runs.
 */
function ImportProgress({ s, uploadSize }: { s: Status; uploadSize: number | undefined }) {
  const upload = uploadedName(s.source) !== undefined;
  const p = s.progress;
  const of = upload && uploadSize ? ` of ${bytes(uploadSize)}` : '';
  return (
    <Stack gap={4} data-testid="import-progress">
      {upload && uploadSize && p ? (
        <Progress
          value={Math.min(100, (p.bytes / uploadSize) * 100)}
          aria-label={`Upload read: ${Math.floor(Math.min(100, (p.bytes / uploadSize) * 100))} %`}
        />
      ) : (
        <Progress value={100} striped animated aria-label={upload ? 'Upload running' : 'Download running'} />
      )}
      <Text size="sm" c="dimmed">
        {p
          ? `Read ${bytes(p.bytes)}${of}: ${count(p.rows)} instruments, ${count(p.skipped)} skipped so far.`
          : upload
            ? 'Receiving the file…'
            : 'Starting the download…'}
      </Text>
    </Stack>
  );
}

function ImportResult({ s, uploadSize }: { s: Status; uploadSize: number | undefined }) {
  if (s.import_id === null) return <Empty>No import has run yet.</Empty>;
  const badge =
    s.status === 'success' ? (
      <Badge color="teal">Succeeded</Badge>
    ) : s.status === 'error' ? (
      <Badge color="red">Failed</Badge>
    ) : (
      <Badge color="blue">Running</Badge>
    );
  const reasons = Object.entries(s.skipped_by_reason).sort((a, b) => b[1] - a[1]);
  return (
    <Stack>
      <Group gap="sm">
        {badge}
        {/* A refusal may quote a file's header: one long word, wrapped anywhere on a phone. */}
        <Text data-testid="import-message" style={{ overflowWrap: 'anywhere' }}>
          {s.message}
        </Text>
      </Group>
      {running(s) && <ImportProgress s={s} uploadSize={uploadSize} />}
      <Table variant="vertical" withTableBorder maw={560} aria-label="Latest import">
        <Table.Tbody>
          <Table.Tr>
            <Table.Th w={140}>Broker</Table.Th>
            <Table.Td>{s.broker ? brokerLabel(s.broker) : '—'}</Table.Td>
          </Table.Tr>
          {s.source && (
            <Table.Tr>
              <Table.Th>File</Table.Th>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>
                {uploadedName(s.source) !== undefined ? `${uploadedName(s.source)} (uploaded)` : s.source}
              </Table.Td>
            </Table.Tr>
          )}
          <Table.Tr>
            <Table.Th>Started</Table.Th>
            <Table.Td>{when(s.started_at)}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Finished</Table.Th>
            <Table.Td>
              {s.last_updated ? when(s.last_updated) : 'Not yet'}
              {s.duration_ms !== null &&
                s.duration_ms > 0 &&
                ` (took ${(s.duration_ms / 1000).toFixed(1)} s)`}
            </Table.Td>
          </Table.Tr>
          {!running(s) && (
            <Table.Tr>
              <Table.Th>Rows</Table.Th>
              <Table.Td>
                {count(s.total_symbols)} read, {count(s.skipped)} skipped
              </Table.Td>
            </Table.Tr>
          )}
        </Table.Tbody>
      </Table>
      {reasons.length > 0 && (
        <Table aria-label="Skipped rows by reason" maw={560}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Why rows were skipped</Table.Th>
              <Table.Th ta="right">Rows</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {reasons.map(([why, n]) => (
              <Table.Tr key={why}>
                <Table.Td>{why}</Table.Td>
                <Table.Td ta="right">{count(n)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

function DownloadNow({ s }: { s: Status }) {
  // The latest run's broker when the download knows it (an upload may have been a Fyers file).
  const [broker, setBroker] = useState<string>(s.broker && isBroker(s.broker) ? s.broker : BROKERS[0]);
  // Answered 202 Accepted: the import runs in the background.
  const download = useDownloadContractMutation();
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        Fetches the broker’s published instrument file and replaces the contract in use once the import
        succeeds; a failed import leaves the current one in place.
      </Text>
      {download.isError && <ErrorState error={download.error} title="Download not started" />}
      {download.isSuccess && !running(s) && s.import_id === download.data.import_id && (
        <Alert color={s.status === 'success' ? 'green' : 'red'} role="status">
          {s.message}
        </Alert>
      )}
      <Group align="flex-end">
        <NativeSelect
          label="Broker"
          data={BROKERS.map((b) => ({ value: b, label: brokerLabel(b) }))}
          value={broker}
          onChange={(e) => setBroker(e.currentTarget.value)}
          disabled={running(s)}
        />
        <Button onClick={() => download.mutate(broker)} loading={download.isPending} disabled={running(s)}>
          Download now
        </Button>
      </Group>
    </Stack>
  );
}

export default function MasterContractPage() {
  const session = useSession();
  const refreshStatus = useRefreshContractStatus();
  // The size of the file this tab is uploading, while its answer has not come.
  const uploads = useUploadsOnTheirWay();
  const uploading = uploads.length > 0;
  // While an import runs (or this tab sends a file) its progress is followed; otherwise the page
  // is still.
  const status = useContractStatus(uploading);
  const s = status.data;
  const admin = session.data?.is_admin === true;
  return (
    <Container size="lg">
      <Title order={1} size="h2" mb="md">
        Master contract
      </Title>
      {status.isPending && <Loading label="Loading the master contract…" />}
      {status.isError && (
        <ErrorState error={status.error} title="The master contract status could not be read" />
      )}
      {s && (
        <Stack gap="lg">
          <Card withBorder>
            <Title order={2} size="h4" mb="sm">
              Contract in use
            </Title>
            <LiveContract s={s} />
          </Card>
          <Card withBorder>
            <Title order={2} size="h4" mb="sm">
              Latest import
            </Title>
            <ImportResult s={s} uploadSize={uploading ? uploads[0] : undefined} />
          </Card>
          {admin ? (
            <SimpleGrid cols={{ base: 1, md: 2 }}>
              <Card withBorder>
                <Title order={2} size="h4" mb="sm">
                  Download
                </Title>
                <DownloadNow s={s} />
              </Card>
              <Card withBorder>
                <Title order={2} size="h4" mb="sm">
                  Upload a file
                </Title>
                {s.upload && s.upload.formats.length > 0 ? (
                  <UploadFile
                    formats={s.upload.formats}
                    maxBytes={s.upload.max_bytes}
                    prefer={[s.live?.broker, s.broker]}
                    busy={running(s)}
                    onSettled={() => void refreshStatus()}
                  />
                ) : (
                  <Text c="dimmed">This server takes no instrument file uploads.</Text>
                )}
              </Card>
            </SimpleGrid>
          ) : (
            <Card withBorder>
              <Title order={2} size="h4" mb="sm">
                Download or upload
              </Title>
              <Text c="dimmed">Only the administrator can download or upload the master contract.</Text>
            </Card>
          )}
        </Stack>
      )}
    </Container>
  );
}
