/**
 * The Action Center's table columns, filters and empty-tab sentences, one set a tab: pending,
 * approved and rejected (docs/rules/orders.md#action-center, docs/rules/web.md#desk-books).
 */
import type { BookColumn, BookFilter } from '../../../components/BookTable';
import { formatCount, formatPrice } from '../../../format-number';
import { istTime } from '../../../ist-time';
import type { PendingOrder, Status } from './queue';

const ist = (iso: string | null) => (iso ? istTime(iso) : '');

const sideStyle = (action: string) => ({
  color: action === 'BUY' ? 'var(--mantine-color-teal-8)' : 'var(--mantine-color-red-8)',
  fontWeight: 600,
});

const priceOf = (o: PendingOrder['order']) =>
  o.pricetype === 'LIMIT' || o.pricetype === 'SL' ? `₹${formatPrice(Number(o.price))}` : 'market';

/**
 * The columns every tab shares: the order itself. On a phone the card leads with the symbol, then
 * side, quantity and price (docs/rules/web.md#phone-width).
 */
const ORDER_COLUMNS: BookColumn<PendingOrder>[] = [
  { key: 'id', label: 'Id', value: (p) => p.id, numeric: true },
  {
    key: 'symbol',
    label: 'Symbol',
    value: (p) => p.order.symbol,
    render: (p) => <strong>{p.order.symbol}</strong>,
    phone: 'lead',
  },
  { key: 'exchange', label: 'Exchange', value: (p) => p.order.exchange },
  {
    key: 'action',
    label: 'Side',
    value: (p) => p.order.action,
    render: (p) => <span style={sideStyle(p.order.action)}>{p.order.action}</span>,
    phone: 1,
  },
  {
    key: 'quantity',
    label: 'Quantity',
    value: (p) => p.order.quantity,
    render: (p) => formatCount(p.order.quantity),
    numeric: true,
    phone: 2,
  },
  { key: 'pricetype', label: 'Type', value: (p) => p.order.pricetype },
  {
    key: 'price',
    label: 'Price',
    value: (p) => Number(p.order.price),
    render: (p) => priceOf(p.order),
    numeric: true,
    phone: 3,
  },
  { key: 'trigger_price', label: 'Trigger', value: (p) => Number(p.order.trigger_price), csvOnly: true },
  { key: 'product', label: 'Product', value: (p) => p.order.product },
  { key: 'strategy', label: 'Strategy', value: (p) => p.order.strategy },
  { key: 'api_type', label: 'Via', value: (p) => p.api_type, csvOnly: true },
];

const QUEUED: BookColumn<PendingOrder> = {
  key: 'created_at',
  label: 'Queued (IST)',
  value: (p) => p.created_at,
  render: (p) => ist(p.created_at),
  nowrap: true,
};
const DECIDED: BookColumn<PendingOrder> = {
  key: 'decided_at',
  label: 'Decided (IST)',
  value: (p) => p.decided_at ?? '',
  render: (p) => ist(p.decided_at),
  nowrap: true,
};

const resultOf = (p: PendingOrder): string => {
  const r = p.response;
  if (!r) return 'placing…';
  if (r.status === 'success') return p.orderid ? `placed as order ${p.orderid}` : (r.message ?? 'placed');
  return `refused: ${r.message ?? `HTTP ${r.http_status ?? '?'}`}`;
};

export const COLUMNS: Record<Status, BookColumn<PendingOrder>[]> = {
  pending: [QUEUED, ...ORDER_COLUMNS],
  approved: [
    QUEUED,
    DECIDED,
    ...ORDER_COLUMNS,
    {
      key: 'orderid',
      label: 'Order id',
      value: (p) => p.orderid ?? '',
      render: (p) => <code>{p.orderid}</code>,
    },
    { key: 'result', label: 'Result', value: resultOf },
  ],
  rejected: [
    QUEUED,
    DECIDED,
    ...ORDER_COLUMNS,
    { key: 'reason', label: 'Reason', value: (p) => p.reason ?? '' },
  ],
};

export const FILTERS: BookFilter<PendingOrder>[] = [
  { key: 'action', label: 'Side', value: (p) => p.order.action },
  { key: 'exchange', label: 'Exchange', value: (p) => p.order.exchange },
];

export const EMPTY: Record<Status, string> = {
  pending:
    'No order waiting. With the API key in semi-automatic mode, orders from your scripts wait here for your decision.',
  approved: 'No approved order yet.',
  rejected: 'No rejected order yet.',
};
