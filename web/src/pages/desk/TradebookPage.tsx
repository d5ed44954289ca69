/**
 * `/tradebook`: the signed-in user's fills as `/api/v1/tradebook` answers them
 * (docs/rules/web.md#desk-calls and #desk-books), refreshed by the live socket; sortable, filterable, exported as
 * CSV. In analyzer mode each fill carries its charges: a Charges column and the total show them
 * (docs/rules/sandbox.md#charges-booked); live mode's rows have none, and the column is left out.
 */
import { Card, Container, Group, Stack, Text, Title } from '@mantine/core';
import { useMemo } from 'react';
import { useDeskQuery, type DeskAnswer } from '../../api/desk';
import { useLive } from '../../api/live';
import { BookTable, type BookColumn, type BookFilter } from '../../components/BookTable';
import { DeskGate } from '../../components/DeskGate';
import { LiveStatus } from '../../components/LiveStatus';
import { ErrorState, Loading } from '../../components/states';
import { formatCount, formatMoney, formatPrice, formatRupees } from '../../format-number';
import { bookTime } from '../../ist-time';

type Trade = DeskAnswer<'tradebook'>['data'][number];

// On a phone the card leads with the symbol, then side, quantity, price and value
// (docs/rules/web.md#phone-width).
const COLUMNS: BookColumn<Trade>[] = [
  {
    key: 'timestamp',
    label: 'Time (IST)',
    value: (t) => t.timestamp,
    render: (t) => bookTime(t.timestamp),
    nowrap: true,
    phone: 7,
  },
  {
    key: 'tradeid',
    label: 'Trade id',
    value: (t) => t.tradeid,
    render: (t) => <code>{t.tradeid}</code>,
    phone: 9,
  },
  {
    key: 'orderid',
    label: 'Order id',
    value: (t) => t.orderid,
    render: (t) => <code>{t.orderid}</code>,
    phone: 8,
  },
  {
    key: 'symbol',
    label: 'Symbol',
    value: (t) => t.symbol,
    render: (t) => <strong>{t.symbol}</strong>,
    phone: 'lead',
  },
  { key: 'exchange', label: 'Exchange', value: (t) => t.exchange, phone: 6 },
  {
    key: 'action',
    phone: 1,
    label: 'Side',
    value: (t) => t.action,
    render: (t) => (
      <span
        style={{
          color: t.action === 'BUY' ? 'var(--mantine-color-teal-8)' : 'var(--mantine-color-red-8)',
          fontWeight: 600,
        }}
      >
        {t.action}
      </span>
    ),
  },
  { key: 'product', label: 'Product', value: (t) => t.product, phone: 5 },
  {
    key: 'quantity',
    label: 'Quantity',
    value: (t) => t.quantity,
    render: (t) => formatCount(t.quantity),
    numeric: true,
    phone: 2,
  },
  {
    key: 'price',
    label: 'Price',
    value: (t) => t.price,
    render: (t) => formatPrice(t.price),
    numeric: true,
    phone: 3,
  },
  {
    key: 'trade_value',
    label: 'Trade value',
    value: (t) => t.trade_value,
    render: (t) => formatMoney(t.trade_value),
    numeric: true,
    phone: 4,
  },
  { key: 'strategy', label: 'Strategy', value: (t) => t.strategy, phone: 10 },
];

// The sandbox's charges (analyzer mode): after the trade value, on a phone too.
const WITH_CHARGES: BookColumn<Trade>[] = [
  ...COLUMNS.slice(0, -1),
  {
    key: 'charges',
    label: 'Charges',
    value: (t) => t.charges ?? 0,
    render: (t) => formatMoney(t.charges ?? 0),
    numeric: true,
    phone: 4,
  },
  ...COLUMNS.slice(-1),
];

const FILTERS: BookFilter<Trade>[] = [
  { key: 'action', label: 'Side', value: (t) => t.action },
  { key: 'exchange', label: 'Exchange', value: (t) => t.exchange },
  { key: 'product', label: 'Product', value: (t) => t.product },
];

export default function TradebookPage() {
  const live = useLive();
  const book = useDeskQuery('tradebook', { refetchInterval: live.refetchInterval });
  const rows = book.data?.data;
  const bought = rows?.filter((t) => t.action === 'BUY').reduce((s, t) => s + t.trade_value, 0) ?? 0;
  const sold = rows?.filter((t) => t.action === 'SELL').reduce((s, t) => s + t.trade_value, 0) ?? 0;
  // Analyzer mode's rows carry charges; live mode's do not (the column is left out).
  const charged = rows?.some((t) => t.charges !== undefined) ?? false;
  const charges = rows?.reduce((s, t) => s + (t.charges ?? 0), 0) ?? 0;
  const columns = useMemo(() => (charged ? WITH_CHARGES : COLUMNS), [charged]);
  return (
    <Container fluid>
      <Group justify="space-between" mb="md">
        <Title order={1} size="h2">
          Trade book
        </Title>
        <LiveStatus state={live.state} />
      </Group>
      <DeskGate>
        <Stack gap="md">
          {rows && rows.length > 0 && (
            <Group gap="lg">
              <Text size="sm">Trades: {formatCount(rows.length)}</Text>
              <Text size="sm">Bought: {formatRupees(bought)}</Text>
              <Text size="sm">Sold: {formatRupees(sold)}</Text>
              {charged && (
                <Text size="sm" data-testid="trades-charges">
                  Charges: {formatRupees(Math.round(charges * 100) / 100)}
                </Text>
              )}
            </Group>
          )}
          <Card withBorder p={{ base: 'xs', sm: 'md' }}>
            {book.isPending && <Loading label="Loading the trade book…" />}
            {book.isError && <ErrorState error={book.error} title="The trade book could not be loaded" />}
            {rows && (
              <BookTable
                label="Trades"
                noun={['trade', 'trades']}
                rows={rows}
                columns={columns}
                rowKey={(t) => t.tradeid}
                filters={FILTERS}
                empty="No trade today. Each fill of an order shows here."
              />
            )}
          </Card>
        </Stack>
      </DeskGate>
    </Container>
  );
}
