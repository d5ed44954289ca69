/**
 * The dashboard (docs/rules/web.md#dashboard): the trading mode with the administrator's switch,
 * funds, today's P&L, open positions and the latest orders — updated from the live socket
 * (docs/rules/web.md#desk-live-updates), not a polling loop while it is up.
 */
import {
  Alert,
  Anchor,
  Button,
  Card,
  Container,
  Group,
  Modal,
  SimpleGrid,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { PAGE_PATHS } from '../../../../src/modules/web/web-pages';
import { MODE_KEY, useMode, useSession } from '../../api/auth';
import { api, ApiError } from '../../api/client';
import { useDeskQuery } from '../../api/desk';
import { useLive } from '../../api/live';
import { DeskGate } from '../../components/DeskGate';
import { LiveStatus } from '../../components/LiveStatus';
import { Empty, ErrorState, Loading } from '../../components/states';
import { useOrderTicket } from '../../components/ticket/ticket-context';

const rupees = (v: unknown): string => {
  const n = Number(v);
  return Number.isFinite(n)
    ? n.toLocaleString('en-IN', { style: 'currency', currency: 'INR', maximumFractionDigits: 2 })
    : '—';
};

function Figure({ label, value, tone }: { label: string; value: string; tone?: 'gain' | 'loss' }) {
  return (
    <Card withBorder padding="md">
      <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
        {label}
      </Text>
      <Text size="xl" fw={700} c={tone === 'gain' ? 'teal' : tone === 'loss' ? 'red' : undefined}>
        {value}
      </Text>
    </Card>
  );
}

const toneOf = (n: number) => (n > 0 ? 'gain' : n < 0 ? 'loss' : undefined);

/** Says why the books cannot be read (no broker session in live mode, for one) in words. */
function BooksError({ error }: { error: unknown }) {
  const noBroker = error instanceof ApiError && (error.status === 404 || error.status === 401);
  return (
    <>
      <ErrorState error={error} title="The books could not be read" />
      {noBroker && (
        <Text mt="xs" size="sm">
          In live mode the books are the broker’s:{' '}
          <Anchor component={Link} to={PAGE_PATHS.broker}>
            connect your broker
          </Anchor>
          .
        </Text>
      )}
    </>
  );
}

/** The mode and, for the administrator, the switch with a confirmation that says what changes. */
function ModeCard({ isAdmin }: { isAdmin: boolean }) {
  const mode = useMode(true);
  const qc = useQueryClient();
  const [confirm, setConfirm] = useState(false);
  // The mode the open confirmation is about: its words stay while it closes after the switch.
  const [asked, setAsked] = useState<{ analyze: boolean }>();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string }>();
  if (mode.isPending) return <Loading label="Reading the mode…" />;
  if (mode.isError) return <ErrorState error={mode.error} />;
  const analyze = mode.data.analyze_mode;
  const target = analyze ? 'Live' : 'Analyzer';
  const from = asked?.analyze ?? analyze;
  const askedTarget = from ? 'Live' : 'Analyzer';
  const switchMode = async () => {
    setBusy(true);
    try {
      const res = await api<{ message?: string }>('POST', `/settings/analyze-mode/${from ? 0 : 1}`);
      setOutcome({ ok: true, text: res.message ?? `${askedTarget} mode is on` });
      // The books follow the mode by themselves (their queries are keyed by it).
      await qc.invalidateQueries({ queryKey: MODE_KEY });
    } catch (err) {
      setOutcome({ ok: false, text: err instanceof Error ? err.message : 'The mode was not switched' });
    } finally {
      setBusy(false);
      setConfirm(false);
    }
  };
  return (
    <Card withBorder padding="md">
      <Group justify="space-between" wrap="nowrap">
        <div>
          <Text size="xs" c="dimmed" tt="uppercase" fw={600}>
            Trading mode
          </Text>
          <Text size="xl" fw={700} c={analyze ? 'orange' : 'green'} data-testid="dashboard-mode">
            {analyze ? 'Analyzer' : 'Live'}
          </Text>
          <Text size="sm" c="dimmed">
            {analyze ? 'Orders go to the sandbox (paper trading).' : 'Orders go to your broker (real money).'}
          </Text>
        </div>
        {isAdmin && (
          <Button
            variant="light"
            color={analyze ? 'green' : 'orange'}
            onClick={() => {
              setAsked({ analyze });
              setConfirm(true);
            }}
          >
            Switch to {target}
          </Button>
        )}
      </Group>
      {outcome && (
        <Alert mt="sm" color={outcome.ok ? 'teal' : 'red'} role="status">
          {outcome.text}
        </Alert>
      )}
      <Modal opened={confirm} onClose={() => setConfirm(false)} title={`Switch to ${askedTarget} mode?`}>
        <Text mb="md">
          {from
            ? 'Every user’s orders — the API, strategies, scanners, flows and this console — will go to the broker and trade real money. The sandbox’s books stay as they are.'
            : 'Every user’s orders will go to the sandbox instead of the broker: nothing reaches the exchange until Live mode is switched on again. Orders already at the broker stay there.'}
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setConfirm(false)}>
            Keep {from ? 'Analyzer' : 'Live'}
          </Button>
          <Button color={from ? 'red' : 'orange'} loading={busy} onClick={() => void switchMode()}>
            Switch to {askedTarget}
          </Button>
        </Group>
      </Modal>
    </Card>
  );
}

function FundsAndPnl({ refetchInterval }: { refetchInterval: number | false }) {
  const funds = useDeskQuery('funds', { refetchInterval });
  const positions = useDeskQuery('positionbook', { refetchInterval });
  if (funds.isPending || positions.isPending) return <Loading label="Reading funds and positions…" />;
  if (funds.isError) return <BooksError error={funds.error} />;
  if (positions.isError) return <BooksError error={positions.error} />;
  const f = funds.data.data;
  const realised = positions.data.data.reduce((a, p) => a + Number(p.realized_pnl), 0);
  const unrealised = positions.data.data.reduce((a, p) => a + Number(p.unrealized_pnl), 0);
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }}>
      <Figure label="Available cash" value={rupees(f.availablecash)} />
      <Figure label="Margin used" value={rupees(f.utiliseddebits)} />
      <Figure label="Realised P&L today" value={rupees(realised)} tone={toneOf(realised)} />
      <Figure label="Unrealised P&L" value={rupees(unrealised)} tone={toneOf(unrealised)} />
    </SimpleGrid>
  );
}

function OpenPositions({ refetchInterval }: { refetchInterval: number | false }) {
  const positions = useDeskQuery('positionbook', { refetchInterval });
  const ticket = useOrderTicket();
  if (positions.isPending) return <Loading label="Reading positions…" />;
  if (positions.isError) return <BooksError error={positions.error} />;
  const open = positions.data.data.filter((p) => p.quantity !== 0);
  if (open.length === 0) return <Empty>No open position.</Empty>;
  return (
    <Table striped aria-label="Open positions">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Symbol</Table.Th>
          <Table.Th>Exchange</Table.Th>
          <Table.Th>Product</Table.Th>
          <Table.Th ta="right">Quantity</Table.Th>
          <Table.Th ta="right">Average</Table.Th>
          <Table.Th ta="right">LTP</Table.Th>
          <Table.Th ta="right">P&L</Table.Th>
          <Table.Th />
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {open.map((p) => (
          <Table.Tr key={`${p.exchange}:${p.symbol}:${p.product}`}>
            <Table.Td>{p.symbol}</Table.Td>
            <Table.Td>{p.exchange}</Table.Td>
            <Table.Td>{p.product}</Table.Td>
            <Table.Td ta="right">{p.quantity}</Table.Td>
            <Table.Td ta="right">{Number(p.average_price).toFixed(2)}</Table.Td>
            <Table.Td ta="right">{Number(p.ltp).toFixed(2)}</Table.Td>
            <Table.Td ta="right" c={Number(p.pnl) < 0 ? 'red' : 'teal'}>
              {Number(p.pnl).toFixed(2)}
            </Table.Td>
            <Table.Td>
              <Button
                size="compact-xs"
                variant="light"
                onClick={() =>
                  ticket.open({
                    symbol: p.symbol,
                    exchange: p.exchange,
                    product: p.product,
                    action: p.quantity > 0 ? 'SELL' : 'BUY',
                    quantity: Math.abs(p.quantity),
                  })
                }
              >
                Exit…
              </Button>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

const LATEST = 10;

function LatestOrders({ refetchInterval }: { refetchInterval: number | false }) {
  const orders = useDeskQuery('orderbook', { refetchInterval });
  if (orders.isPending) return <Loading label="Reading orders…" />;
  if (orders.isError) return <BooksError error={orders.error} />;
  // Newest first: the book's timestamps are IST `YYYY-MM-DD HH:MM:SS`, so text order is time order.
  const latest = [...orders.data.data.orders]
    .sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0))
    .slice(0, LATEST);
  if (latest.length === 0) return <Empty>No order today.</Empty>;
  return (
    <Table striped aria-label="Latest orders">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Time (IST)</Table.Th>
          <Table.Th>Order id</Table.Th>
          <Table.Th>Symbol</Table.Th>
          <Table.Th>Side</Table.Th>
          <Table.Th ta="right">Quantity</Table.Th>
          <Table.Th>Type</Table.Th>
          <Table.Th>Status</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {latest.map((o) => (
          <Table.Tr key={o.orderid}>
            <Table.Td>{o.timestamp}</Table.Td>
            <Table.Td>{o.orderid}</Table.Td>
            <Table.Td>
              {o.symbol}{' '}
              <Text span c="dimmed" size="xs">
                {o.exchange}
              </Text>
            </Table.Td>
            <Table.Td c={o.action === 'BUY' ? 'teal' : 'red'}>{o.action}</Table.Td>
            <Table.Td ta="right">{o.quantity}</Table.Td>
            <Table.Td>{o.pricetype}</Table.Td>
            <Table.Td>{o.order_status}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

interface SecurityStats {
  total_bans: number;
  permanent_bans: number;
  suspicious_ips: number;
  near_threshold_ips: number;
}

/** The administrator's shield figures. */
function SecurityFigures() {
  const stats = useQuery({
    queryKey: ['security', 'stats'],
    queryFn: () => api<SecurityStats>('GET', '/security/stats'),
  });
  if (stats.isPending) return <Loading />;
  if (stats.isError) return <ErrorState error={stats.error} />;
  return (
    <SimpleGrid cols={{ base: 2, sm: 4 }}>
      <Figure label="Active bans" value={String(stats.data.total_bans)} />
      <Figure label="Permanent bans" value={String(stats.data.permanent_bans)} />
      <Figure label="Suspicious addresses" value={String(stats.data.suspicious_ips)} />
      <Figure label="Near a threshold" value={String(stats.data.near_threshold_ips)} />
    </SimpleGrid>
  );
}

function Section({
  title,
  link,
  children,
}: {
  title: string;
  link?: { to: string; label: string };
  children: React.ReactNode;
}) {
  return (
    <section aria-label={title}>
      <Group justify="space-between" mt="xl" mb="sm">
        <Title order={2} size="h4">
          {title}
        </Title>
        {link && (
          <Anchor component={Link} to={link.to} size="sm">
            {link.label}
          </Anchor>
        )}
      </Group>
      {children}
    </section>
  );
}

export default function DashboardPage() {
  const { data: user } = useSession();
  const live = useLive();
  const ticket = useOrderTicket();
  return (
    <Container size="xl">
      <Group justify="space-between" mb="xs">
        <Title order={1} size="h2">
          Dashboard
        </Title>
        <Group gap="sm">
          <LiveStatus state={live.state} />
          <Button onClick={() => ticket.open()}>New order</Button>
        </Group>
      </Group>
      <Text c="dimmed" mb="lg">
        Signed in as {user?.username}
        {user?.is_admin ? ' (administrator)' : ''}.
      </Text>
      <ModeCard isAdmin={user?.is_admin === true} />
      <DeskGate>
        <Section title="Funds and P&L">
          <FundsAndPnl refetchInterval={live.refetchInterval} />
        </Section>
        <Section title="Open positions" link={{ to: PAGE_PATHS.positions, label: 'All positions' }}>
          <OpenPositions refetchInterval={live.refetchInterval} />
        </Section>
        <Section title="Latest orders" link={{ to: PAGE_PATHS.orderbook, label: 'Order book' }}>
          <LatestOrders refetchInterval={live.refetchInterval} />
        </Section>
      </DeskGate>
      {user?.is_admin && (
        <Section
          title="Security"
          link={{ to: PAGE_PATHS.securityLogs, label: 'Bans, trackers and automatic-ban settings' }}
        >
          <SecurityFigures />
        </Section>
      )}
    </Container>
  );
}
