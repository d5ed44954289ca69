/**
 * The dashboard (docs/rules/web.md#dashboard): the trading mode with the administrator's switch,
 * funds, today's P&L, open positions and the latest orders — updated from the live socket
 * (docs/rules/web.md#desk-live-updates), not a polling loop while it is up; the open positions' LTP
 * and P&L, and the unrealised P&L, tick with the live feed (docs/rules/web.md#live-prices). Its
 * tables are the books' (BookGrid): on a phone each row is a card (docs/rules/web.md#phone-width).
 */
import { Anchor, Button, Card, Container, Grid, Group, SimpleGrid, Text, Title } from '@mantine/core';
import '@mantine/core/styles/Grid.css';
import { useCallback } from 'react';
import { Link } from 'react-router';
import { PAGE_PATHS } from '../../../../src/modules/web/web-pages';
import { useSession } from '../../api/auth';
import { ApiError } from '../../api/client';
import { useDeskQuery } from '../../api/desk';
import { COLUMNS as BOOK_COLUMNS, type Order } from './orderbook/columns';
import { useLive } from '../../api/live';
import { BookGrid, RowButton } from '../../components/BookGrid';
import type { BookColumn } from '../../components/BookTable';
import { DeskGate } from '../../components/DeskGate';
import { LiveStatus, PricesStale } from '../../components/LiveStatus';
import { ModeCard } from '../../components/ModeCard';
import { Empty, ErrorState, Loading } from '../../components/states';
import { useOrderTicket } from '../../components/ticket/ticket-context';
import { WatchPanel } from '../trade/watch/WatchPanel';
import { useMarkedPositions, type Position } from '../../features/desk/live-marks';
import { useSecurityStats } from '../../features/security/api/security';
import {
  formatCount,
  formatPrice,
  formatRupees,
  formatSignedMoney,
  formatSignedRupees,
} from '../../format-number';

function Figure({ label, value, tone }: { label: string; value: string; tone?: 'gain' | 'loss' }) {
  return (
    <Card withBorder padding="md" role="group" aria-label={label}>
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

/** The positionbook's query, asked once by the page; its rows marked at the feed's prices go beside it. */
type PositionsQuery = ReturnType<typeof useDeskQuery<'positionbook'>>;

function FundsAndPnl({
  refetchInterval,
  positions,
  rows,
}: {
  refetchInterval: number | false;
  positions: PositionsQuery;
  rows: Position[] | undefined;
}) {
  const funds = useDeskQuery('funds', { refetchInterval });
  if (funds.isPending || positions.isPending) return <Loading label="Reading funds and positions…" />;
  if (funds.isError) return <BooksError error={funds.error} />;
  if (positions.isError) return <BooksError error={positions.error} />;
  const f = funds.data.data;
  const marked = rows ?? positions.data.data;
  const realised = cents(marked.reduce((a, p) => a + Number(p.realized_pnl), 0));
  const unrealised = cents(marked.reduce((a, p) => a + Number(p.unrealized_pnl), 0));
  return (
    <SimpleGrid cols={{ base: 2, md: 4 }}>
      <Figure label="Available cash" value={formatRupees(f.availablecash)} />
      <Figure label="Margin used" value={formatRupees(f.utiliseddebits)} />
      <Figure label="Realised P&L today" value={formatSignedRupees(realised)} tone={toneOf(realised)} />
      <Figure label="Unrealised P&L" value={formatSignedRupees(unrealised)} tone={toneOf(unrealised)} />
    </SimpleGrid>
  );
}

const cents = (v: number) => Math.round(v * 100) / 100;

const positionKey = (p: Position) => `${p.exchange}:${p.symbol}:${p.product}`;
const gainStyle = (v: number) => ({
  color: v > 0 ? 'var(--mantine-color-teal-8)' : v < 0 ? 'var(--mantine-color-red-8)' : undefined,
});

// On a phone: the symbol, then quantity, LTP and P&L first (docs/rules/web.md#phone-width).
const POSITION_COLUMNS: BookColumn<Position>[] = [
  {
    key: 'symbol',
    label: 'Symbol',
    value: (p) => p.symbol,
    render: (p) => <strong>{p.symbol}</strong>,
    phone: 'lead',
  },
  { key: 'exchange', label: 'Exchange', value: (p) => p.exchange, phone: 5 },
  { key: 'product', label: 'Product', value: (p) => p.product, phone: 6 },
  {
    key: 'quantity',
    label: 'Quantity',
    value: (p) => p.quantity,
    render: (p) => formatCount(p.quantity),
    numeric: true,
    phone: 1,
  },
  {
    key: 'average_price',
    label: 'Average',
    value: (p) => p.average_price,
    render: (p) => formatPrice(p.average_price),
    numeric: true,
    phone: 4,
  },
  {
    key: 'ltp',
    label: 'LTP',
    value: (p) => p.ltp,
    render: (p) => formatPrice(p.ltp),
    numeric: true,
    phone: 2,
  },
  {
    key: 'pnl',
    label: 'P&L',
    value: (p) => p.pnl,
    render: (p) => <span style={gainStyle(Number(p.pnl))}>{formatSignedMoney(p.pnl)}</span>,
    numeric: true,
    phone: 3,
  },
];

function OpenPositions({ positions, rows }: { positions: PositionsQuery; rows: Position[] | undefined }) {
  const ticket = useOrderTicket();
  const exit = useCallback(
    (p: Position) => (
      <RowButton
        label={`Exit ${p.symbol} ${p.exchange} ${p.product}`}
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
      </RowButton>
    ),
    [ticket],
  );
  if (positions.isPending) return <Loading label="Reading positions…" />;
  if (positions.isError) return <BooksError error={positions.error} />;
  const open = (rows ?? positions.data.data).filter((p) => p.quantity !== 0);
  if (open.length === 0) return <Empty>No open position.</Empty>;
  return (
    <BookGrid
      label="Open positions"
      rows={open}
      columns={POSITION_COLUMNS}
      rowKey={positionKey}
      actions={exit}
    />
  );
}

const LATEST = 10;

// On a phone: the symbol, then side, quantity, status (docs/rules/web.md#phone-width).
/** The order book's own columns (orderbook/columns.tsx), with the quantity ordered, in this order. */
const ORDER_PHONE: Record<string, BookColumn<Order>['phone']> = {
  timestamp: 5,
  orderid: 6,
  symbol: 'lead',
  action: 1,
  quantity: 2,
  pricetype: 4,
  order_status: 3,
};
const ORDER_COLUMNS: BookColumn<Order>[] = Object.entries(ORDER_PHONE).map(([key, phone]) => {
  const column =
    key === 'quantity'
      ? {
          key,
          label: 'Quantity',
          value: (o: Order) => o.quantity,
          render: (o: Order) => formatCount(o.quantity),
          numeric: true,
        }
      : BOOK_COLUMNS.find((c) => c.key === key)!;
  return { ...column, phone };
});

function LatestOrders({ refetchInterval }: { refetchInterval: number | false }) {
  const orders = useDeskQuery('orderbook', { refetchInterval });
  if (orders.isPending) return <Loading label="Reading orders…" />;
  if (orders.isError) return <BooksError error={orders.error} />;
  // Newest first: the book's timestamps are IST `YYYY-MM-DD HH:MM:SS`, so text order is time order.
  const latest = [...orders.data.data.orders]
    .sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0))
    .slice(0, LATEST);
  if (latest.length === 0) return <Empty>No order today.</Empty>;
  return <BookGrid label="Latest orders" rows={latest} columns={ORDER_COLUMNS} rowKey={(o) => o.orderid} />;
}

/** The administrator's shield figures. */
function SecurityFigures() {
  const stats = useSecurityStats();
  if (stats.isPending) return <Loading />;
  if (stats.isError) return <ErrorState error={stats.error} />;
  return (
    <SimpleGrid cols={{ base: 2, sm: 4 }}>
      <Figure label="Active bans" value={formatCount(stats.data.total_bans)} />
      <Figure label="Permanent bans" value={formatCount(stats.data.permanent_bans)} />
      <Figure label="Suspicious addresses" value={formatCount(stats.data.suspicious_ips)} />
      <Figure label="Near a threshold" value={formatCount(stats.data.near_threshold_ips)} />
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
  // Asked for only when the books can be read (useDeskQuery waits for the desk's gate).
  const positions = useDeskQuery('positionbook', { refetchInterval: live.refetchInterval });
  // The open positions' prices tick between order events (docs/rules/web.md#live-prices).
  const marked = useMarkedPositions(positions.data?.data);
  return (
    <Container size="xl">
      <Group justify="space-between" mb="xs">
        <Title order={1} size="h2">
          Dashboard
        </Title>
        <Group gap="sm">
          {marked.stale && <PricesStale />}
          <LiveStatus state={live.state} />
          <Button onClick={() => ticket.open()}>New order</Button>
        </Group>
      </Group>
      <Text c="dimmed" mb="lg">
        Signed in as {user?.username}
        {user?.is_admin ? ' (administrator)' : ''}.
      </Text>
      <ModeCard isAdmin={user?.is_admin === true} />
      <Grid gap="md">
        <Grid.Col span={{ base: 12, lg: 8 }}>
          <DeskGate>
            <Section title="Funds and P&L">
              <FundsAndPnl refetchInterval={live.refetchInterval} positions={positions} rows={marked.rows} />
            </Section>
            <Section title="Open positions" link={{ to: PAGE_PATHS.positions, label: 'All positions' }}>
              <OpenPositions positions={positions} rows={marked.rows} />
            </Section>
            <Section title="Latest orders" link={{ to: PAGE_PATHS.orderbook, label: 'Order book' }}>
              <LatestOrders refetchInterval={live.refetchInterval} />
            </Section>
          </DeskGate>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 4 }} mt={{ lg: 'md' }}>
          <WatchPanel />
        </Grid.Col>
      </Grid>
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
