/**
 * `/analyzer` (docs/rules/web.md#account-pages): the signed-in user's analyzer-mode requests and
 * answers (refreshed by live order events: query key `['analyzer-log']`), the sandbox account's
 * funds with the realised P&L gross, its charges and net (docs/rules/sandbox.md#charges-booked),
 * its equity day by day (analyzer/EquityCard.tsx), a day's contract note and every fill as CSV
 * (analyzer/Downloads.tsx), the configuration's facts (starting funds, leverage, MIS square-off, automatic reset) as
 * read-only facts, the price source in use with its newest quote, and "Reset account" after a
 * confirmation. No API key is ever on the page: the server drops credential fields.
 */
import {
  Alert,
  Badge,
  Button,
  Card,
  Code,
  Container,
  Group,
  Modal,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { Fragment, useState } from 'react';
import { useMode, useSession } from '../../api/auth';
import { ModeCard } from '../../components/ModeCard';
import { useLive } from '../../api/live';
import { LiveStatus } from '../../components/LiveStatus';
import { Empty, ErrorState, Loading } from '../../components/states';
import {
  useAnalyzerLog,
  useResetSandboxMutation,
  useSandboxAccount,
  type AnalyzerLog as Log,
  type SandboxAccount as Account,
} from '../../features/account/api/sandbox';
import { fromNow, rupees, when } from './format';
import { Downloads } from './analyzer/Downloads';
import { EquityCard } from './analyzer/EquityCard';
import { Settings } from './analyzer/SettingsTables';

type Entry = Log['data'][number];

function Figure({
  label,
  value,
  tone,
  note,
}: {
  label: string;
  value: string;
  tone?: number;
  /** A line under the figure (what it is made of). */
  note?: string;
}) {
  return (
    <Card withBorder padding="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text
        size="xl"
        fw={700}
        c={tone === undefined || tone === 0 ? undefined : tone > 0 ? 'teal' : 'red'}
        aria-label={`${label}: ${value}`}
        style={{ fontVariantNumeric: 'tabular-nums', overflowWrap: 'anywhere' }}
      >
        {value}
      </Text>
      {note && (
        <Text size="xs" c="dimmed">
          {note}
        </Text>
      )}
    </Card>
  );
}

/** The account's funds: the balances, then the realised P&L gross, its charges and net. */
function Funds({ f }: { f: Account['funds'] }) {
  return (
    <Stack gap="sm">
      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }}>
        <Figure label="Available" value={rupees(f.available)} note="Already net of the charges" />
        <Figure label="Used margin" value={rupees(f.used_margin)} />
        <Figure label="Unrealised P&L" value={rupees(f.unrealised_pnl)} tone={f.unrealised_pnl} />
        <Figure label="Started with" value={rupees(f.starting_funds)} />
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, xs: 3 }} data-testid="realised-figures">
        <Figure
          label="Realised P&L (gross)"
          value={rupees(f.realised_pnl)}
          tone={f.realised_pnl}
          note="Before charges"
        />
        <Figure
          label="Charges"
          value={rupees(f.charges)}
          note="Brokerage, STT, exchange, SEBI, stamp duty, GST"
        />
        <Figure
          label="Net realised P&L"
          value={rupees(f.net_realised_pnl)}
          tone={f.net_realised_pnl}
          note="Realised P&L less charges"
        />
      </SimpleGrid>
    </Stack>
  );
}

function PriceSource({ p }: { p: Account['price_source'] }) {
  const what =
    p.name === 'broker'
      ? 'The connected broker’s quotes (market data)'
      : p.name === 'simulated'
        ? 'Simulated demo prices — not market data'
        : 'A scripted feed — not market data';
  return (
    <Stack gap="xs">
      <Group gap="sm">
        <Text fw={600} data-testid="price-source">
          {what}
        </Text>
        {p.demo && <Badge color="yellow">Demo prices</Badge>}
      </Group>
      <Text size="sm" c="dimmed">
        Setting: SANDBOX_PRICE_SOURCE = {p.configured}
        {p.configured === 'auto' && ' (the broker’s quotes when a broker is configured, else simulated)'}.
        {p.configured !== 'auto' &&
          p.configured !== p.name &&
          ' The source in use was replaced after the server started (a demo or test feed).'}
      </Text>
      <Text data-testid="last-quote">
        {p.last_quote_at
          ? `Last quote ${when(p.last_quote_at)} (${fromNow(p.last_quote_at)}).`
          : 'No quote yet: the source has priced nothing since the server started.'}
      </Text>
    </Stack>
  );
}

const field = (v: unknown, k: string): string | undefined => {
  if (v === null || typeof v !== 'object') return undefined;
  const x = (v as Record<string, unknown>)[k];
  return x === undefined || x === null ? undefined : String(x);
};

/** The order in a request, in words: "BUY 5 SBIN on NSE (MARKET, MIS)". */
function orderWords(req: unknown): string {
  const action = field(req, 'action');
  const symbol = field(req, 'symbol');
  if (!action || !symbol) return '—';
  const qty = field(req, 'quantity') ?? '';
  const exchange = field(req, 'exchange');
  const kind = [field(req, 'pricetype'), field(req, 'product')].filter(Boolean).join(', ');
  return `${action} ${qty} ${symbol}${exchange ? ` on ${exchange}` : ''}${kind ? ` (${kind})` : ''}`;
}

/** `order.placed` → "Order placed". */
const eventWords = (event: string): string => {
  const w = event.replace(/[._]+/g, ' ').trim();
  return w ? w[0]!.toUpperCase() + w.slice(1) : event;
};

function LogRow({ e }: { e: Entry }) {
  const [open, setOpen] = useState(false);
  const failed = e.status_code >= 400;
  const message = field(e.response, 'message');
  return (
    <Fragment>
      <Table.Tr data-testid="analyzer-log-row">
        <Table.Td style={{ whiteSpace: 'nowrap' }}>{when(e.created_at)}</Table.Td>
        <Table.Td ff="monospace">{e.api_type}</Table.Td>
        <Table.Td>{orderWords(e.request)}</Table.Td>
        <Table.Td style={{ whiteSpace: 'nowrap' }}>
          <Badge color={failed ? 'red' : 'teal'} variant="light" style={{ overflow: 'visible' }}>
            {failed ? `Error ${e.status_code}` : `OK ${e.status_code}`}
          </Badge>
        </Table.Td>
        <Table.Td ff="monospace">{e.order_id ?? '—'}</Table.Td>
        <Table.Td>{message ?? eventWords(e.event)}</Table.Td>
        <Table.Td>
          <Button
            size="xs"
            variant="subtle"
            onClick={() => setOpen((o) => !o)}
            aria-expanded={open}
            aria-label={`${open ? 'Hide' : 'Show'} request and answer ${e.id}`}
          >
            {open ? 'Hide' : 'Details'}
          </Button>
        </Table.Td>
      </Table.Tr>
      {open && (
        <Table.Tr>
          <Table.Td colSpan={7}>
            <SimpleGrid cols={{ base: 1, md: 2 }}>
              <Stack gap={4}>
                <Text size="sm" fw={600}>
                  Request
                </Text>
                <Code block data-testid="analyzer-log-request">
                  {JSON.stringify(e.request, null, 2)}
                </Code>
              </Stack>
              <Stack gap={4}>
                <Text size="sm" fw={600}>
                  Answer
                </Text>
                <Code block data-testid="analyzer-log-response">
                  {JSON.stringify(e.response, null, 2)}
                </Code>
              </Stack>
            </SimpleGrid>
          </Table.Td>
        </Table.Tr>
      )}
    </Fragment>
  );
}

function RequestLog({ refetchInterval }: { refetchInterval: number | false }) {
  const log = useAnalyzerLog(refetchInterval);
  if (log.isPending) return <Loading label="Loading the analyzer log…" />;
  if (log.isError) return <ErrorState error={log.error} title="The analyzer log could not be read" />;
  const rows = log.data.data;
  if (rows.length === 0)
    return <Empty>No analyzer request yet: orders sent while analyzer mode is on are listed here.</Empty>;
  const errors = rows.filter((r) => r.status_code >= 400).length;
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        The latest {rows.length === 1 ? 'request' : `${rows.length} requests`}, newest first;{' '}
        {errors === 0 ? 'no errors' : errors === 1 ? '1 error' : `${errors} errors`}.
      </Text>
      <Table.ScrollContainer minWidth={860}>
        <Table striped highlightOnHover aria-label="Analyzer requests">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Time</Table.Th>
              <Table.Th>Call</Table.Th>
              <Table.Th>Order</Table.Th>
              <Table.Th miw={120}>Result</Table.Th>
              <Table.Th style={{ whiteSpace: 'nowrap' }}>Order id</Table.Th>
              <Table.Th>Answer</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((e) => (
              <LogRow key={e.id} e={e} />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}

export default function AnalyzerPage() {
  const live = useLive();
  const mode = useMode(true);
  const { data: user } = useSession();
  const account = useSandboxAccount(live.refetchInterval);
  const [confirming, setConfirming] = useState(false);
  const reset = useResetSandboxMutation({ onSuccess: () => setConfirming(false) });
  const a = account.data;
  return (
    <Container size="lg">
      <Group justify="space-between" mb="md">
        <Title order={1} size="h2">
          Analyzer
        </Title>
        <LiveStatus state={live.state} />
      </Group>
      <Stack gap="lg">
        <ModeCard isAdmin={user?.is_admin === true} />
        {mode.data && !mode.data.analyze_mode && (
          <Alert color="blue" role="status">
            Analyzer mode is off: orders go to the broker. The sandbox below keeps what it had.
          </Alert>
        )}
        {reset.isSuccess && (
          <Alert color="green" role="status" withCloseButton onClose={() => reset.reset()}>
            {reset.data.message}
          </Alert>
        )}
        {account.isPending && <Loading label="Loading the sandbox account…" />}
        {account.isError && (
          <ErrorState error={account.error} title="The sandbox account could not be read" />
        )}
        {a && (
          <>
            <Card withBorder>
              <Group justify="space-between" mb="sm">
                <Title order={2} size="h4">
                  Sandbox account
                </Title>
                <Button color="red" variant="light" onClick={() => setConfirming(true)}>
                  Reset account
                </Button>
              </Group>
              <Funds f={a.funds} />
              <Text size="sm" c="dimmed" mt="sm" data-testid="last-reset">
                Last reset {when(a.funds.reset_at)}.
              </Text>
            </Card>
            <EquityCard refetchInterval={live.refetchInterval} />
            <Downloads />
            <Card withBorder>
              <Title order={2} size="h4" mb="sm">
                Price source
              </Title>
              <PriceSource p={a.price_source} />
            </Card>
            <Card withBorder>
              <Title order={2} size="h4" mb="xs">
                Configuration
              </Title>
              <Text size="sm" c="dimmed" mb="sm">
                Set by the server’s SANDBOX_* settings; shown here as facts.
              </Text>
              <Settings s={a.settings} />
            </Card>
          </>
        )}
        <Card withBorder>
          <Title order={2} size="h4" mb="sm">
            Analyzer requests
          </Title>
          <RequestLog refetchInterval={live.refetchInterval} />
        </Card>
      </Stack>
      <Modal opened={confirming} onClose={() => setConfirming(false)} title="Reset the sandbox account?">
        <Stack>
          <Text>
            Every sandbox order, trade, position and holding of yours is deleted, open orders are cancelled,
            and the funds start again at {rupees(a?.settings.starting_funds)}. The analyzer log is kept. Your
            broker account is not touched.
          </Text>
          {reset.isError && <ErrorState error={reset.error} title="Not reset" />}
          <Group>
            <Button color="red" loading={reset.isPending} onClick={() => reset.mutate()}>
              Reset account
            </Button>
            <Button variant="default" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Container>
  );
}
