/**
 * `/holdings`: the signed-in user's delivery holdings and their totals as `/api/v1/holdings`
 * answers them (docs/rules/web.md#desk-calls and #desk-books), refreshed by the live socket, each
 * holding's LTP and P&L and the totals following the feed (#live-prices); sortable, filterable,
 * exported as CSV.
 */
import { Card, Container, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { useDeskQuery } from '../../api/desk';
import { useLive } from '../../api/live';
import { BookTable, type BookColumn, type BookFilter } from '../../components/BookTable';
import { DeskGate } from '../../components/DeskGate';
import { LiveStatus, PricesStale } from '../../components/LiveStatus';
import { ErrorState, Loading } from '../../components/states';
import { useMarkedHoldings, type Holding } from '../../features/desk/live-marks';
import {
  formatCount,
  formatPrice,
  formatRupees,
  formatSignedMoney,
  formatSignedPercent,
  formatSignedRupees,
} from '../../format-number';

const pnlStyle = (v: number) => ({
  color: v > 0 ? 'var(--mantine-color-teal-8)' : v < 0 ? 'var(--mantine-color-red-8)' : undefined,
});

// On a phone the card leads with the symbol, then quantity, LTP and P&L (docs/rules/web.md#phone-width).
const COLUMNS: BookColumn<Holding>[] = [
  {
    key: 'symbol',
    label: 'Symbol',
    value: (h) => h.symbol,
    render: (h) => <strong>{h.symbol}</strong>,
    phone: 'lead',
  },
  { key: 'exchange', label: 'Exchange', value: (h) => h.exchange, phone: 6 },
  { key: 'product', label: 'Product', value: (h) => h.product, csvOnly: true },
  {
    key: 'quantity',
    label: 'Quantity',
    value: (h) => h.quantity,
    render: (h) => formatCount(h.quantity),
    numeric: true,
    phone: 1,
  },
  {
    key: 'average_price',
    label: 'Avg. price',
    value: (h) => h.average_price,
    render: (h) => formatPrice(h.average_price),
    numeric: true,
    phone: 4,
  },
  {
    key: 'ltp',
    label: 'LTP',
    value: (h) => h.ltp,
    render: (h) => formatPrice(h.ltp),
    numeric: true,
    phone: 2,
  },
  {
    key: 'pnl',
    label: 'P&L',
    value: (h) => h.pnl,
    render: (h) => <span style={pnlStyle(h.pnl)}>{formatSignedMoney(h.pnl)}</span>,
    numeric: true,
    phone: 3,
  },
  {
    key: 'pnlpercent',
    label: 'P&L %',
    value: (h) => h.pnlpercent,
    render: (h) => <span style={pnlStyle(h.pnlpercent)}>{formatSignedPercent(h.pnlpercent)}</span>,
    numeric: true,
    phone: 5,
  },
];

const FILTERS: BookFilter<Holding>[] = [{ key: 'exchange', label: 'Exchange', value: (h) => h.exchange }];

function Figure({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Card withBorder padding="sm">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fw={600}>{children}</Text>
    </Card>
  );
}

export default function HoldingsPage() {
  const live = useLive();
  const book = useDeskQuery('holdings', { refetchInterval: live.refetchInterval });
  const data = book.data?.data;
  // Each holding's LTP and P&L, and the totals, follow the feed (docs/rules/web.md#live-prices).
  const marked = useMarkedHoldings(data);
  const s = marked.statistics;
  return (
    <Container fluid>
      <Group justify="space-between" mb="md">
        <Title order={1} size="h2">
          Holdings
        </Title>
        <Group gap="sm">
          {marked.stale && <PricesStale />}
          <LiveStatus state={live.state} />
        </Group>
      </Group>
      <DeskGate>
        <Stack gap="md">
          {s && (
            <SimpleGrid cols={{ base: 2, sm: 4 }} data-testid="holdings-statistics">
              <Figure label="Holding value">{formatRupees(s.totalholdingvalue)}</Figure>
              <Figure label="Invested">{formatRupees(s.totalinvvalue)}</Figure>
              <Figure label="P&L">
                <span style={pnlStyle(s.totalprofitandloss)} data-testid="holdings-total-pnl">
                  {formatSignedRupees(s.totalprofitandloss)}
                </span>
              </Figure>
              <Figure label="P&L %">
                <span style={pnlStyle(s.totalpnlpercentage)}>
                  {formatSignedPercent(s.totalpnlpercentage)}
                </span>
              </Figure>
            </SimpleGrid>
          )}
          <Card withBorder p={{ base: 'xs', sm: 'md' }}>
            {book.isPending && <Loading label="Loading the holdings…" />}
            {book.isError && <ErrorState error={book.error} title="The holdings could not be loaded" />}
            {marked.rows && (
              <BookTable
                label="Holdings"
                noun={['holding', 'holdings']}
                rows={marked.rows}
                columns={COLUMNS}
                rowKey={(h) => `${h.exchange}:${h.symbol}`}
                filters={FILTERS}
                empty="No holdings. Delivery (CNC) buys settle into holdings at the next trading day."
              />
            )}
          </Card>
        </Stack>
      </DeskGate>
    </Container>
  );
}
