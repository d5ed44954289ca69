/**
 * Margin of the sandbox (docs/rules/sandbox.md#margin-at-placement): blocked at placement for new
 * exposure only, as trade value ÷ leverage by instrument kind and product; moved to the position
 * when the order fills; released with the realised P&L when the position closes. Pure functions
 * over {@link Funds}; amounts in {@link Money}.
 */
import { divCeil, moneyToRupees, proRata, tradeValue, type Money } from './money.js';
import { splitFill } from './positions.js';
import type { Funds, FundsDelta, InstrumentKind, Product, Side } from './types.js';
import { DEFAULT_LEVERAGE, type LeverageTable } from '../../../domain/sandbox.js';

/**
 * The leverage of new exposure opened by an order on `side`. For options the side of the new
 * exposure decides (a BUY opens or extends a long: option buy; a SELL a short: option sell).
 */
export function leverageFor(
  kind: InstrumentKind,
  product: Product,
  side: Side,
  table: Readonly<LeverageTable> = DEFAULT_LEVERAGE,
): number {
  switch (kind) {
    case 'future':
      return table.futures;
    case 'option':
      return side === 'BUY' ? table.optionBuy : table.optionSell;
    case 'index':
      throw new RangeError('an index is not tradable');
    default:
      return product === 'MIS' ? table.equityMis : product === 'CNC' ? table.equityCnc : table.equityNrml;
  }
}

/**
 * Margin for a trade value: `value ÷ leverage`, rounded UP to the money unit so it is never
 * under-blocked. Leverage is a positive number with at most two decimals (2.5× is fine).
 */
export function marginFor(value: Money, leverage: number): Money {
  const lev100 = Math.round(leverage * 100);
  if (!(leverage > 0) || Math.abs(leverage * 100 - lev100) > 1e-9)
    throw new RangeError(`leverage must be positive with at most two decimals: ${leverage}`);
  const scaled = value * 100;
  if (Number.isSafeInteger(scaled)) return divCeil(scaled, lev100);
  // Past 2^53 only through BigInt: exact, and the quotient (≤ value) is back in range.
  const big = BigInt(value) * 100n;
  const l = BigInt(lev100);
  return Number((big + l - 1n) / l);
}

/** What an order must block at placement. */
export interface PlacementMarginInput {
  kind: InstrumentKind;
  product: Product;
  side: Side;
  quantity: number;
  /** Reference price: see `placementPrice` in rules.ts. */
  price: Money;
  /**
   * Signed quantity this order can reduce: the net position of (symbol, exchange, product) — for
   * CNC plus the holdings — less what other open orders on the same side already reduce (see
   * {@link reduciblePosition}).
   */
  positionQuantity: number;
  leverage?: Readonly<LeverageTable>;
  /**
   * A future's or a short option's margin for the order's whole quantity, from the broker's
   * calculator or the SPAN + exposure approximation (docs/rules/sandbox.md#margins-like-a-broker);
   * absent: the leverage rule.
   */
  derivative?: DerivativeMargin;
}

/** A derivative order's margin for its whole quantity, and how it was reckoned. */
export interface DerivativeMargin {
  total: Money;
  span: Money;
  exposure: Money;
  /** Named in a rejection and in the `margin` answer: `SPAN + exposure approximation: …`. */
  method: string;
  /** The broker's calculator answered it (its figure already counts what it counts as hedges). */
  broker?: boolean;
}

/**
 * Margin blocked at placement (docs/rules/sandbox.md#margin-at-placement): only the NEW exposure
 * pays. A reducing order blocks nothing; a reversal blocks only the quantity beyond the current
 * opposite position.
 */
export function placementMargin(input: PlacementMarginInput): {
  margin: Money;
  openingQuantity: number;
  method?: string;
} {
  const { opening } = splitFill(input.positionQuantity, input.side, input.quantity);
  if (opening === 0) return { margin: 0, openingQuantity: 0 };
  const d = input.derivative;
  if (d)
    return {
      margin: opening === input.quantity ? d.total : divCeil(d.total * opening, input.quantity),
      openingQuantity: opening,
      method: d.method,
    };
  const lev = leverageFor(input.kind, input.product, input.side, input.leverage);
  return { margin: marginFor(tradeValue(input.price, opening), lev), openingQuantity: opening };
}

/**
 * The part of a net position that an order on `side` can still reduce once the other open orders
 * on the same side have reduced it: two SELL orders of 65 against a long of 65 cannot both count
 * as reducing. Returns a signed quantity for {@link PlacementMarginInput.positionQuantity}.
 */
export function reduciblePosition(
  netQuantity: number,
  side: Side,
  otherOpenOrders: Iterable<{ side: Side; quantity: number }>,
): number {
  if ((side === 'SELL' && netQuantity <= 0) || (side === 'BUY' && netQuantity >= 0)) return netQuantity;
  let pending = 0;
  for (const o of otherOpenOrders) if (o.side === side) pending += o.quantity;
  const left = Math.max(0, Math.abs(netQuantity) - pending);
  return netQuantity > 0 || left === 0 ? left : -left;
}

/** Adds a delta to funds. */
export function applyFundsDelta(funds: Funds, d: FundsDelta): Funds {
  return {
    available: funds.available + d.available,
    usedMargin: funds.usedMargin + d.usedMargin,
    realisedPnl: funds.realisedPnl + d.realisedPnl,
  };
}

/**
 * Blocks `margin`; insufficient funds reject the order with a reason
 * (docs/rules/sandbox.md#margin-at-placement). Blocking 0 always succeeds.
 */
export function blockMargin(
  funds: Funds,
  margin: Money,
  method?: string,
): { ok: true; funds: Funds } | { ok: false; reason: string } {
  if (margin > funds.available) {
    const rs = (m: Money) => moneyToRupees(m).toFixed(2);
    const how = method ? ` (${method})` : '';
    return {
      ok: false,
      reason: `Insufficient funds: required margin ₹${rs(margin)}${how}, available ₹${rs(funds.available)}`,
    };
  }
  return {
    ok: true,
    funds: applyFundsDelta(funds, { available: -margin, usedMargin: margin, realisedPnl: 0 }),
  };
}

/**
 * Releases margin and credits realised P&L (a position closing, or an order cancelled or rejected
 * with `realised` 0): `available` gains both, `usedMargin` loses the margin.
 */
export function releaseMargin(funds: Funds, margin: Money, realised: Money = 0): Funds {
  return applyFundsDelta(funds, { available: margin + realised, usedMargin: -margin, realisedPnl: realised });
}

/** How the margin an order blocked at placement is settled when it fills. */
export interface FillMargin {
  /** Margin the newly opened quantity holds (pass to `applyFill` as `openingMargin`). */
  toPosition: Money;
  /** Blocked but not needed: release it (no P&L). */
  release: Money;
  /** Needed but not blocked (the position shrank since placement): charge it now. */
  extra: Money;
}

/**
 * Moves an order's blocked margin to the position when it fills. The order blocked `blocked` for
 * `blockedQuantity` new units at placement; the fill actually opens `openedQuantity` units (the
 * position may have changed meanwhile):
 * - fewer or equal: the pro-rata share goes to the position, the rest is released;
 * - more: all of it goes to the position, plus margin for the extra units at the fill price
 *   (`perUnit`, when given: a derivative's blocked margin per unit, as its rule priced it),
 *   charged even if that takes available funds below zero (the fill has happened; the engine
 *   reports it). Apply with {@link fillMarginDelta}.
 */
export function marginOnFill(input: {
  blocked: Money;
  blockedQuantity: number;
  openedQuantity: number;
  fillPrice: Money;
  leverage: number;
  perUnit?: Money;
}): FillMargin {
  const { blocked, blockedQuantity, openedQuantity } = input;
  if (openedQuantity <= blockedQuantity) {
    const toPosition = blockedQuantity === 0 ? 0 : proRata(blocked, openedQuantity, blockedQuantity);
    return { toPosition, release: blocked - toPosition, extra: 0 };
  }
  const units = openedQuantity - blockedQuantity;
  const extra =
    input.perUnit !== undefined
      ? input.perUnit * units
      : marginFor(tradeValue(input.fillPrice, units), input.leverage);
  return { toPosition: blocked + extra, release: 0, extra };
}

/** The funds change of a {@link FillMargin}: `release` returns to available, `extra` leaves it. */
export function fillMarginDelta(m: FillMargin): FundsDelta {
  return { available: m.release - m.extra, usedMargin: m.extra - m.release, realisedPnl: 0 };
}
