/**
 * The GTT table's columns and filters (docs/rules/web.md#gtt-page): the contract, type, side,
 * quantity, triggers, the legs' limits, the LTP the triggers were set against, when it was made
 * and when it expires, and in analyzer mode the margin it reserves. On a phone the card leads with
 * the symbol, then side, quantity, triggers and limits (docs/rules/web.md#phone-width).
 */
import type { BookColumn, BookFilter } from '../../../components/BookTable';
import type { Gtt } from '../../../features/gtt/api/gtt';
import { formatCount, formatMoney, formatPrice } from '../../../format-number';
import { gttDay, gttTime, legsOf, limitLines, triggerLines, typeText } from './gtt-model';
import { sideStyle } from '../orderbook/columns';

const action = (g: Gtt) => g.legs[0]?.action ?? '';

/** One line per leg (an OCO's stoploss over its target). */
function PerLeg({ lines }: { lines: string[] }) {
  return lines.map((l) => (
    <span key={l} style={{ display: 'block' }}>
      {l}
    </span>
  ));
}

export const COLUMNS: BookColumn<Gtt>[] = [
  {
    key: 'symbol',
    label: 'Symbol',
    value: (g) => g.symbol,
    render: (g) => (
      <>
        <strong>{g.symbol}</strong>{' '}
        <small style={{ color: 'var(--mantine-color-dimmed)' }}>{g.exchange}</small>
      </>
    ),
    nowrap: true,
    phone: 'lead',
  },
  { key: 'exchange', label: 'Exchange', value: (g) => g.exchange, csvOnly: true },
  { key: 'trigger_type', label: 'Type', value: typeText, phone: 5 },
  {
    key: 'action',
    label: 'Side',
    value: action,
    render: (g) => <span style={sideStyle(action(g))}>{action(g)}</span>,
    phone: 1,
  },
  {
    key: 'quantity',
    label: 'Qty',
    value: (g) => g.legs[0]?.quantity ?? 0,
    render: (g) => formatCount(g.legs[0]?.quantity),
    numeric: true,
    phone: 2,
  },
  {
    key: 'triggers',
    label: 'Triggers',
    value: (g) => g.trigger_prices[0] ?? 0,
    // An OCO's legs one a line: the table stays narrow enough for a laptop.
    render: (g) => <PerLeg lines={triggerLines(g)} />,
    nowrap: true,
    screenOnly: true,
    phone: 3,
  },
  { key: 'trigger_prices', label: 'Trigger prices', value: (g) => g.trigger_prices.join(' '), csvOnly: true },
  {
    key: 'limits',
    label: 'Leg limits',
    value: (g) => legsOf(g)[0]?.price ?? 0,
    render: (g) => <PerLeg lines={limitLines(g)} />,
    nowrap: true,
    screenOnly: true,
    phone: 4,
  },
  {
    key: 'leg_prices',
    label: 'Leg prices',
    value: (g) => g.legs.map((l) => l.price).join(' '),
    csvOnly: true,
  },
  { key: 'pricetype', label: 'Price type', value: (g) => g.legs[0]?.pricetype ?? '', csvOnly: true },
  // The exchange's product (CNC on a cash exchange, NRML on a derivative one): in the CSV and the dialogs.
  { key: 'product', label: 'Product', value: (g) => g.legs[0]?.product ?? '', csvOnly: true },
  {
    key: 'last_price',
    // The last price the triggers were checked against when the GTT was placed (or modified).
    label: 'LTP then',
    value: (g) => g.last_price,
    render: (g) => formatPrice(g.last_price),
    numeric: true,
    phone: 8,
  },
  {
    key: 'created_at',
    // When it was made, and under it the day it expires (a year out: the day says it; the time is
    // in its title and the CSV), so the table fits a laptop's width.
    label: 'Created · expires (IST)',
    value: (g) => g.created_at,
    render: (g) => (
      <>
        <span style={{ display: 'block' }}>{gttTime(g.created_at)}</span>
        <small
          style={{ display: 'block', color: 'var(--mantine-color-dimmed)' }}
          title={`${gttTime(g.expires_at)} IST`}
          data-testid="gtt-expires"
        >
          expires {gttDay(g.expires_at)}
        </small>
      </>
    ),
    nowrap: true,
    screenOnly: true,
    phone: 9,
  },
  { key: 'created', label: 'Created (IST)', value: (g) => g.created_at, csvOnly: true },
  { key: 'expires_at', label: 'Expires (IST)', value: (g) => g.expires_at, csvOnly: true },
  // The id names the row's buttons and dialogs ("Modify GTT 12") and is in the CSV.
  { key: 'trigger_id', label: 'Trigger id', value: (g) => g.trigger_id, csvOnly: true },
  { key: 'status', label: 'Status', value: (g) => g.status, csvOnly: true },
  { key: 'strategy', label: 'Strategy', value: (g) => g.strategy ?? '', csvOnly: true },
];

/** Analyzer mode's rows carry the margin each reserves: after the LTP, on a phone too. */
const MARGIN: BookColumn<Gtt> = {
  key: 'margin_blocked',
  label: 'Margin reserved',
  value: (g) => g.margin_blocked ?? 0,
  render: (g) => <span data-testid="gtt-margin">{formatMoney(g.margin_blocked ?? 0)}</span>,
  numeric: true,
  phone: 7,
};
const at = COLUMNS.findIndex((c) => c.key === 'last_price') + 1;
export const WITH_MARGIN: BookColumn<Gtt>[] = [...COLUMNS.slice(0, at), MARGIN, ...COLUMNS.slice(at)];

export const FILTERS: BookFilter<Gtt>[] = [
  { key: 'type', label: 'Type', value: typeText },
  { key: 'action', label: 'Side', value: action },
  { key: 'exchange', label: 'Exchange', value: (g) => g.exchange },
];
