/**
 * Positions and holdings of the sandbox (docs/rules/sandbox.md#positions-and-holdings): netting per
 * (symbol, exchange, product), average price on adds, realised P&L on reductions, reversals,
 * mark-to-market, and the T+1 settlement of CNC positions into holdings. Pure functions over plain
 * values.
 *
 * A position keeps its entry value (`cost`, average price × |quantity|) rather than an average
 * price, so adds are exact sums. A reduction releases the pro-rata share of `cost` and `margin`
 * ({@link proRata}); the last close releases whatever is left, so the realised P&L over a
 * position's life is exactly Σ sell values − Σ buy values.
 */
import { moneyToRupees, proRata, tradeValue, type Money } from './money.js';
import type { FundsDelta, Product, Side } from './types.js';

/** The net position of one (symbol, exchange, product). */
export interface Position {
  symbol: string;
  exchange: string;
  product: Product;
  /** Signed net quantity: > 0 long, < 0 short, 0 flat. */
  quantity: number;
  /** Entry value of the open quantity (≥ 0): average price × |quantity|; 0 when flat. */
  cost: Money;
  /** Margin held by the open quantity (released pro rata as it closes). */
  margin: Money;
  /** Realised P&L of this position so far. */
  realisedPnl: Money;
  /** Charges its fills paid so far (docs/rules/sandbox.md#charges-booked); absent: none. */
  charges?: Money;
}

/** A delivery holding (settled CNC buys). */
export interface Holding {
  symbol: string;
  exchange: string;
  /** Shares held (> 0). */
  quantity: number;
  /** Purchase value of the shares held: average price × quantity. */
  cost: Money;
}

/** One execution against a position. */
export interface Execution {
  side: Side;
  /** Positive integer. */
  quantity: number;
  price: Money;
}

/** Netting key of a position: `EXCHANGE:SYMBOL:PRODUCT`. */
export function positionKey(exchange: string, symbol: string, product: Product): string {
  return `${exchange}:${symbol}:${product}`;
}

/** A flat position. */
export function emptyPosition(symbol: string, exchange: string, product: Product): Position {
  return { symbol, exchange, product, quantity: 0, cost: 0, margin: 0, realisedPnl: 0 };
}

/**
 * How an order of `quantity` on `side` meets a net position of `positionQuantity`: the part that
 * closes existing exposure and the part that opens new exposure. A reversal (SELL 100 against
 * +65) is `{ closing: 65, opening: 35 }`.
 */
export function splitFill(
  positionQuantity: number,
  side: Side,
  quantity: number,
): { closing: number; opening: number } {
  const opposite = side === 'BUY' ? Math.max(0, -positionQuantity) : Math.max(0, positionQuantity);
  const closing = Math.min(opposite, quantity);
  return { closing, opening: quantity - closing };
}

/** What one execution did to a position. */
export interface FillOutcome {
  position: Position;
  /** Quantity that closed existing exposure. */
  closedQuantity: number;
  /** Quantity that opened new exposure (after a reversal: the remainder). */
  openedQuantity: number;
  /** Realised P&L of the closed quantity (0 when nothing closed). */
  realised: Money;
  /** Margin released by the closed quantity (credit it to available funds with `realised`). */
  releasedMargin: Money;
}

/**
 * Nets one execution into a position (docs/rules/sandbox.md#positions-and-holdings):
 * - an add (same direction or from flat) adds its value to `cost`: the average is weighted;
 * - a reduction releases the pro-rata `cost` and `margin` and realises
 *   (exit − average) × closed quantity for a long, (average − exit) × closed quantity for a short;
 *   the average of what stays open is unchanged;
 * - a reversal closes the whole position as above and opens the remainder at the fill price.
 *
 * `openingMargin` is the margin that the opened quantity holds from now on (see `marginOnFill`).
 */
export function applyFill(position: Position, fill: Execution, openingMargin: Money = 0): FillOutcome {
  if (!Number.isSafeInteger(fill.quantity) || fill.quantity <= 0)
    throw new RangeError('fill quantity must be a positive integer');
  const { closing, opening } = splitFill(position.quantity, fill.side, fill.quantity);
  const held = Math.abs(position.quantity);
  let { quantity, cost, margin } = position;
  let realised = 0;
  let releasedMargin = 0;
  if (closing > 0) {
    const releasedCost = proRata(cost, closing, held);
    const exitValue = tradeValue(fill.price, closing);
    realised = quantity > 0 ? exitValue - releasedCost : releasedCost - exitValue;
    releasedMargin = proRata(margin, closing, held);
    cost -= releasedCost;
    margin -= releasedMargin;
    quantity += fill.side === 'BUY' ? closing : -closing;
  }
  if (opening > 0) {
    cost += tradeValue(fill.price, opening);
    margin += openingMargin;
    quantity += fill.side === 'BUY' ? opening : -opening;
  }
  return {
    position: { ...position, quantity, cost, margin, realisedPnl: position.realisedPnl + realised },
    closedQuantity: closing,
    openedQuantity: opening,
    realised,
    releasedMargin,
  };
}

/** Average entry price in rupees (cost ÷ |quantity|), 0 when flat. Display value, not stored. */
export function averagePrice(position: Pick<Position, 'quantity' | 'cost'>): number {
  return position.quantity === 0 ? 0 : moneyToRupees(position.cost) / Math.abs(position.quantity);
}

/** Mark-to-market P&L of the open quantity at `ltp`: (ltp − average) × quantity, sign-aware. */
export function unrealisedPnl(position: Pick<Position, 'quantity' | 'cost'>, ltp: Money): Money {
  if (position.quantity === 0) return 0;
  const value = tradeValue(ltp, Math.abs(position.quantity));
  return position.quantity > 0 ? value - position.cost : position.cost - value;
}

/** Result of the T+1 settlement. */
export interface Settlement {
  /** Holdings after settlement (zero-quantity holdings dropped), in input order then new ones. */
  holdings: Holding[];
  /** Positions that stay positions: every non-CNC position, and any CNC short beyond holdings. */
  carried: Position[];
  /** Realised P&L of CNC sells against holdings (sell value − purchase value of the shares sold). */
  realised: Money;
  /**
   * Add to the account's funds. CNC buys: their margin leaves `usedMargin` (the shares are paid
   * for) and any unpaid rest (cost − margin, 0 at leverage 1) leaves `available`. CNC sells from
   * holdings: the sale value enters `available`.
   */
  fundsDelta: FundsDelta;
  /** CNC shorts that exceeded the holdings (should not happen: placement checks holdings). */
  shortfalls: { symbol: string; exchange: string; quantity: number }[];
}

/**
 * T+1 settlement (docs/rules/sandbox.md#positions-and-holdings): every CNC position becomes
 * holdings. A long CNC position adds its shares at its average price (a holding's average is
 * weighted on adds); a short CNC position (a sale of held shares) removes shares at the holding's
 * average and realises the difference. Flat CNC positions vanish (their P&L was realised when they
 * closed).
 */
export function settleCncToHoldings(
  positions: readonly Position[],
  holdings: readonly Holding[],
): Settlement {
  const byKey = new Map<string, Holding>();
  for (const h of holdings) byKey.set(`${h.exchange}:${h.symbol}`, { ...h });
  const carried: Position[] = [];
  const shortfalls: Settlement['shortfalls'] = [];
  let realised = 0;
  const delta: FundsDelta = { available: 0, usedMargin: 0, realisedPnl: 0 };
  for (const p of positions) {
    if (p.product !== 'CNC') {
      carried.push(p);
      continue;
    }
    if (p.quantity === 0) continue;
    const key = `${p.exchange}:${p.symbol}`;
    const h = byKey.get(key);
    if (p.quantity > 0) {
      delta.usedMargin -= p.margin;
      delta.available -= p.cost - p.margin;
      if (h) {
        h.quantity += p.quantity;
        h.cost += p.cost;
      } else byKey.set(key, { symbol: p.symbol, exchange: p.exchange, quantity: p.quantity, cost: p.cost });
      continue;
    }
    const sold = -p.quantity;
    const fromHoldings = Math.min(sold, h?.quantity ?? 0);
    if (h && fromHoldings > 0) {
      const soldValue = proRata(p.cost, fromHoldings, sold);
      const boughtValue = proRata(h.cost, fromHoldings, h.quantity);
      realised += soldValue - boughtValue;
      delta.available += soldValue;
      h.quantity -= fromHoldings;
      h.cost -= boughtValue;
    }
    if (fromHoldings < sold) {
      const rest = sold - fromHoldings;
      shortfalls.push({ symbol: p.symbol, exchange: p.exchange, quantity: rest });
      carried.push({
        ...p,
        quantity: -rest,
        cost: proRata(p.cost, rest, sold),
        margin: p.margin,
      });
    } else {
      // A short fully covered by holdings held no margin of its own; return whatever it held.
      delta.usedMargin -= p.margin;
      delta.available += p.margin;
    }
  }
  delta.realisedPnl = realised;
  return {
    holdings: [...byKey.values()].filter((h) => h.quantity > 0),
    carried,
    realised,
    fundsDelta: delta,
    shortfalls,
  };
}
