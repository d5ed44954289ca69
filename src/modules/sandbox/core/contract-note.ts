/**
 * The sandbox's daily contract note and fills export (docs/rules/sandbox.md#contract-note): the
 * trades of one IST day grouped by exchange, each with its charges as booked, and per exchange the
 * buy and sell values, every charge summed, and the net obligation (sell value − buy value −
 * charges: what the account receives, or pays when negative). Pure: the rows come from
 * store/reads.ts; amounts stay exact {@link Money} until they are written as rupees.
 */
import { csvRow } from '../../../platform/csv.js';
import { istTimestamp } from './book-format.js';
import { moneyToRupees, tradeValue, type Money } from './money.js';
import type { TradeRow } from '../store/rows.js';

/** The charge columns of a trade row, in the order a contract note lists them. */
export const CHARGE_COLUMNS = [
  'brokerage',
  'stt',
  'exchange_charges',
  'sebi_fee',
  'stamp_duty',
  'gst',
] as const;
type ChargeColumn = (typeof CHARGE_COLUMNS)[number];

/** Sums of one exchange's (or the whole day's) trades, in Money. */
export interface NoteTotals extends Record<ChargeColumn, Money> {
  trades: number;
  buy_value: Money;
  sell_value: Money;
  charges: Money;
  /** sell value − buy value − charges. */
  net_obligation: Money;
}

export interface ContractNote {
  /** IST day, `YYYY-MM-DD`. */
  day: string;
  exchanges: { exchange: string; trades: TradeRow[]; totals: NoteTotals }[];
  totals: NoteTotals;
}

const zero = (): NoteTotals => ({
  trades: 0,
  buy_value: 0,
  sell_value: 0,
  brokerage: 0,
  stt: 0,
  exchange_charges: 0,
  sebi_fee: 0,
  stamp_duty: 0,
  gst: 0,
  charges: 0,
  net_obligation: 0,
});

function add(t: NoteTotals, row: TradeRow): void {
  const value = tradeValue(row.price, row.quantity);
  t.trades += 1;
  if (row.side === 'BUY') t.buy_value += value;
  else t.sell_value += value;
  for (const c of CHARGE_COLUMNS) t[c] += row[c];
  t.charges += row.charges;
  t.net_obligation = t.sell_value - t.buy_value - t.charges;
}

/** The contract note of `day` from that day's trades (any order; listed by exchange, then time). */
export function contractNote(day: string, trades: readonly TradeRow[]): ContractNote {
  const byExchange = new Map<string, TradeRow[]>();
  for (const t of [...trades].sort((a, b) => a.created_at - b.created_at || a.id - b.id)) {
    const list = byExchange.get(t.exchange) ?? [];
    list.push(t);
    byExchange.set(t.exchange, list);
  }
  const totals = zero();
  const exchanges = [...byExchange.keys()].sort().map((exchange) => {
    const rows = byExchange.get(exchange)!;
    const sums = zero();
    for (const r of rows) {
      add(sums, r);
      add(totals, r);
    }
    return { exchange, trades: rows, totals: sums };
  });
  return { day, exchanges, totals };
}

/** Money as rupees in a CSV cell: exact (up to 4 decimals), never rounded. */
const rs = (m: Money): number => moneyToRupees(m);

/** The header of a trade line (contract note and fills export alike). */
const TRADE_HEADER = [
  'day',
  'time',
  'exchange',
  'trade_id',
  'order_id',
  'symbol',
  'product',
  'side',
  'quantity',
  'price',
  'value',
  ...CHARGE_COLUMNS,
  'total_charges',
  'strategy',
];

function tradeCells(t: TradeRow): (string | number)[] {
  const [day = '', time = ''] = istTimestamp(t.created_at).split(' ');
  return [
    day,
    time,
    t.exchange,
    String(t.id),
    String(t.order_id),
    t.symbol,
    t.product,
    t.side,
    t.quantity,
    rs(t.price),
    rs(tradeValue(t.price, t.quantity)),
    ...CHARGE_COLUMNS.map((c) => rs(t[c])),
    rs(t.charges),
    t.strategy ?? '',
  ];
}

const SUMMARY_HEADER = [
  'day',
  'exchange',
  'trades',
  'buy_value',
  'sell_value',
  ...CHARGE_COLUMNS,
  'total_charges',
  'net_obligation',
];

/**
 * The contract note as CSV: the day's trade lines (by exchange, then time), a blank line, then the
 * summary: one line per exchange and one for the day (`ALL`) with the buy and sell values, each
 * charge, the total charges and the net obligation.
 */
export function contractNoteCsv(note: ContractNote): string {
  let out = csvRow(TRADE_HEADER);
  for (const e of note.exchanges) for (const t of e.trades) out += csvRow(tradeCells(t));
  out += '\r\n' + csvRow(SUMMARY_HEADER);
  const summary = (exchange: string, s: NoteTotals) =>
    csvRow([
      note.day,
      exchange,
      s.trades,
      rs(s.buy_value),
      rs(s.sell_value),
      ...CHARGE_COLUMNS.map((c) => rs(s[c])),
      rs(s.charges),
      rs(s.net_obligation),
    ]);
  for (const e of note.exchanges) out += summary(e.exchange, e.totals);
  out += summary('ALL', note.totals);
  return out;
}

/** Every fill with its charges as CSV, oldest first (docs/rules/sandbox.md#daily-equity). */
export function fillsCsv(trades: readonly TradeRow[]): string {
  let out = csvRow(TRADE_HEADER);
  for (const t of [...trades].sort((a, b) => a.created_at - b.created_at || a.id - b.id))
    out += csvRow(tradeCells(t));
  return out;
}
