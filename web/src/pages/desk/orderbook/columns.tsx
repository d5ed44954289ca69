/**
 * The order book's rows (docs/rules/web.md#desk-books): the order as `/api/v1/orderbook` answers
 * it, which orders are working (open or waiting for a trigger), the table's columns and filters.
 */
import { Text } from '@mantine/core';
import type { DeskAnswer } from '../../../api/desk';
import type { BookColumn, BookFilter } from '../../../components/BookTable';
import { formatCount, formatPriceOrDash } from '../../../format-number';
import { bookTime } from '../../../ist-time';

export type Order = DeskAnswer<'orderbook'>['data']['orders'][number];

const WORKING = new Set(['open', 'trigger pending']);
export const isWorking = (o: Order) => WORKING.has(o.order_status);
const STATUSES = ['open', 'trigger pending', 'complete', 'cancelled', 'rejected'] as const;

export const sideStyle = (action: string) => ({
  color: action === 'BUY' ? 'var(--mantine-color-teal-8)' : 'var(--mantine-color-red-8)',
  fontWeight: 600,
});

// On a phone the card leads with the symbol, then side, quantity, price and status
// (docs/rules/web.md#phone-width).
export const COLUMNS: BookColumn<Order>[] = [
  {
    key: 'timestamp',
    label: 'Time (IST)',
    value: (o) => o.timestamp,
    // The book is the day's: the time is enough on screen (the CSV keeps the date).
    render: (o) => <span title={bookTime(o.timestamp)}>{o.timestamp.slice(11)}</span>,
    phone: 8,
  },
  { key: 'orderid', label: 'Order id', value: (o) => o.orderid, phone: 9 },
  {
    key: 'symbol',
    label: 'Symbol',
    value: (o) => o.symbol,
    // The exchange beside the symbol (its own column in the CSV): the book has many columns.
    render: (o) => (
      <>
        <strong>{o.symbol}</strong>{' '}
        <small style={{ color: 'var(--mantine-color-dimmed)' }}>{o.exchange}</small>
      </>
    ),
    nowrap: true,
    phone: 'lead',
  },
  { key: 'exchange', label: 'Exchange', value: (o) => o.exchange, csvOnly: true },
  {
    key: 'action',
    label: 'Side',
    value: (o) => o.action,
    render: (o) => <span style={sideStyle(o.action)}>{o.action}</span>,
    phone: 1,
  },
  { key: 'pricetype', label: 'Type', value: (o) => o.pricetype, phone: 5 },
  { key: 'product', label: 'Product', value: (o) => o.product, phone: 6 },
  {
    key: 'filled',
    label: 'Filled / qty',
    value: (o) => o.quantity,
    render: (o) => `${formatCount(o.filled_quantity)} / ${formatCount(o.quantity)}`,
    numeric: true,
    screenOnly: true,
    phone: 2,
  },
  { key: 'quantity', label: 'Quantity', value: (o) => o.quantity, csvOnly: true },
  { key: 'filled_quantity', label: 'Filled', value: (o) => o.filled_quantity, csvOnly: true },
  { key: 'pending_quantity', label: 'Pending quantity', value: (o) => o.pending_quantity, csvOnly: true },
  {
    key: 'price',
    label: 'Price',
    value: (o) => o.price,
    // A MARKET order has no price of its own (0): a dash.
    render: (o) => formatPriceOrDash(o.price),
    numeric: true,
    phone: 3,
  },
  {
    key: 'trigger_price',
    label: 'Trigger',
    value: (o) => o.trigger_price,
    render: (o) => formatPriceOrDash(o.trigger_price),
    numeric: true,
    phone: 10,
    phoneSkip: (o) => o.trigger_price === 0,
  },
  {
    key: 'average_price',
    label: 'Avg. price',
    value: (o) => o.average_price,
    render: (o) => formatPriceOrDash(o.average_price),
    numeric: true,
    phone: 7,
    phoneSkip: (o) => o.average_price === 0,
  },
  {
    key: 'order_status',
    label: 'Status',
    phone: 4,
    value: (o) => o.order_status,
    render: (o) => (
      <>
        <span data-testid="order-status">{o.order_status}</span>
        {o.rejection_reason && (
          <Text size="xs" c="dimmed" maw={220} lineClamp={2} title={o.rejection_reason}>
            {o.rejection_reason}
          </Text>
        )}
      </>
    ),
  },
  { key: 'rejection_reason', label: 'Reason', value: (o) => o.rejection_reason, csvOnly: true },
  { key: 'strategy', label: 'Strategy', value: (o) => o.strategy, csvOnly: true },
];

export const FILTERS: BookFilter<Order>[] = [
  { key: 'status', label: 'Status', value: (o) => o.order_status, options: STATUSES },
  { key: 'action', label: 'Side', value: (o) => o.action },
  { key: 'exchange', label: 'Exchange', value: (o) => o.exchange },
  { key: 'product', label: 'Product', value: (o) => o.product },
];
