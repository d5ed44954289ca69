/**
 * The ledger check (docs/rules/sandbox.md#ledger-check): the account's derived state recomputed
 * from its trade book and compared with what is stored. Pure: it takes what
 * store/ledger-check.repository.ts read of one account and returns every difference.
 *
 * What it recomputes, each an identity that holds exactly (Money is integer) whatever the order
 * of fills, the day rollovers and the T+1 settlements in between (docs/rules/sandbox.md#exact-money):
 * - **positions**: per instrument and product, the trades netted equal the position's quantity;
 *   for CNC the position plus the holding (settlement moves shares from one to the other);
 * - **realised P&L**: Σ sell values − Σ buy values of every trade equals the realised P&L less
 *   the entry value of what is still open (long positions and holdings at their cost, shorts
 *   adding theirs): a fill moves its value into cost or realised P&L and nowhere else, a
 *   settlement moves cost between position and holding or into realised P&L;
 * - **funds**: available + used margin + the holdings' cost = starting funds + realised P&L −
 *   charges (a fill or a block moves money between available and used margin, a fill's charges
 *   leave available; a settlement pays for shares out of them into holdings);
 * - **charges**: the trades' charges add up to the account's (docs/rules/sandbox.md#charges-booked);
 * - **used margin**: the margin of the open positions plus what the working orders and active GTTs block;
 * - **fills**: every complete order has its one trade, of its quantity at its average price, and
 *   every trade belongs to such an order.
 */
import { MONEY_PER_RUPEE, moneyToRupees, type Money } from './money.js';
import type { LedgerSnapshot } from '../store/ledger-check.repository.js';

/** The checks, as they are named in a report. */
export const LEDGER_CHECKS = [
  'position',
  'realised_pnl',
  'funds',
  'charges',
  'used_margin',
  'fills',
] as const;
export type LedgerCheckName = (typeof LEDGER_CHECKS)[number];

/** One way an account's stored state differs from its trade book. */
export interface LedgerDifference {
  user_id: number;
  check: LedgerCheckName;
  /** What differs: `EXCHANGE:SYMBOL:PRODUCT` for a position, else the account's figure. */
  subject: string;
  /** What the trade book says (a quantity, rupees, or a count of orders). */
  expected: number;
  /** What is stored. */
  actual: number;
  detail: string;
}

const rupees = (m: Money) => moneyToRupees(m);

/** An amount as a report writes it, exact: `-₹49,345.9409`, `₹12.5`. */
export function inr(m: Money): string {
  const abs = Math.abs(m);
  const whole = Math.floor(abs / MONEY_PER_RUPEE).toLocaleString('en-IN');
  const frac = String(abs % MONEY_PER_RUPEE)
    .padStart(4, '0')
    .replace(/0+$/, '');
  return `${m < 0 ? '-' : ''}₹${whole}${frac ? `.${frac}` : ''}`;
}

/** Every difference of one account (empty when its books agree). */
export function checkLedger(s: LedgerSnapshot): LedgerDifference[] {
  const userId = s.account.user_id;
  const out: LedgerDifference[] = [];
  const diff = (check: LedgerCheckName, subject: string, expected: number, actual: number, detail: string) =>
    out.push({ user_id: userId, check, subject, expected, actual, detail });

  // Positions: the trades netted, per instrument and product (CNC: position + holding).
  const stored = new Map<string, number>();
  const add = (key: string, q: number) => stored.set(key, (stored.get(key) ?? 0) + q);
  for (const p of s.positions) add(`${p.exchange}:${p.symbol}:${p.product}`, p.quantity);
  for (const h of s.holdings) add(`${h.exchange}:${h.symbol}:CNC`, h.quantity);
  const netted = new Map<string, number>();
  for (const t of s.trades) netted.set(`${t.exchange}:${t.symbol}:${t.product}`, t.net);
  for (const key of [...new Set([...netted.keys(), ...stored.keys()])].sort()) {
    const expected = netted.get(key) ?? 0;
    const actual = stored.get(key) ?? 0;
    if (expected !== actual)
      diff(
        'position',
        key,
        expected,
        actual,
        key.endsWith(':CNC')
          ? `the trades net to ${expected}, the position and holding hold ${actual}`
          : `the trades net to ${expected}, the position holds ${actual}`,
      );
  }

  // Realised P&L: the trades' cash plus the entry value still open.
  const cash = s.trades.reduce((sum, t) => sum + t.cash, 0);
  const open =
    s.positions.reduce((sum, p) => sum + (p.quantity > 0 ? p.cost : p.quantity < 0 ? -p.cost : 0), 0) +
    s.holdings.reduce((sum, h) => sum + h.cost, 0);
  const realised = s.account.realised_pnl;
  if (cash + open !== realised)
    diff(
      'realised_pnl',
      'realised P&L',
      rupees(cash + open),
      rupees(realised),
      `the trade book replayed realises ${inr(cash + open)}, the account records ${inr(realised)}`,
    );

  // Funds balance.
  const held = s.holdings.reduce((sum, h) => sum + h.cost, 0);
  const { available, used_margin: used, starting_funds: starting, charges } = s.account;
  if (available + used + held !== starting + realised - charges)
    diff(
      'funds',
      'available + used margin',
      rupees(starting + realised - charges - held),
      rupees(available + used),
      `starting funds ${inr(starting)} + realised P&L ${inr(realised)}` +
        (charges ? ` − charges ${inr(charges)}` : '') +
        (held ? ` − holdings at cost ${inr(held)}` : '') +
        ` ≠ available ${inr(available)} + used margin ${inr(used)}`,
    );

  // Charges: the trades' add up to the account's.
  const charged = s.trades.reduce((sum, t) => sum + t.charges, 0);
  if (charged !== charges)
    diff(
      'charges',
      'charges',
      rupees(charged),
      rupees(charges),
      `the trades booked ${inr(charged)} of charges, the account records ${inr(charges)}`,
    );

  // Used margin: positions' margin and working orders' blocks.
  const margin = s.positions.reduce((sum, p) => sum + p.margin, 0) + s.blocked;
  if (margin !== used)
    diff(
      'used_margin',
      'used margin',
      rupees(margin),
      rupees(used),
      `positions hold ${inr(margin - s.blocked)} and working orders and GTTs block ${inr(s.blocked)}, the account uses ${inr(used)}`,
    );

  // Fills: complete orders and trades match one to one.
  const ids = (xs: number[], count: number) => xs.join(', ') + (count > xs.length ? ', …' : '');
  if (s.filledWithoutTrade.count > 0)
    diff(
      'fills',
      'complete orders without a trade',
      0,
      s.filledWithoutTrade.count,
      `orders ${ids(s.filledWithoutTrade.ids, s.filledWithoutTrade.count)}`,
    );
  if (s.tradeWithoutFill.count > 0)
    diff(
      'fills',
      'trades without their fill',
      0,
      s.tradeWithoutFill.count,
      `trades of orders ${ids(s.tradeWithoutFill.ids, s.tradeWithoutFill.count)} (order missing, not complete, or another quantity or price)`,
    );
  return out;
}
