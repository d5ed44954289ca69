/**
 * The sandbox's approximation of a broker's SPAN + exposure margin for futures and short options
 * (docs/rules/sandbox.md#margins-like-a-broker), used when no broker calculator answers: a
 * percentage of the underlying's notional value (underlying price × quantity), by class of
 * underlying, configurable (`SANDBOX_FNO_MARGIN`).
 *
 * These are approximations, not exchange data: SPAN is computed by the clearing corporations from
 * risk arrays that change daily. The defaults are set near what the brokers' margin calculators
 * showed for near-month contracts in 2025-26: NIFTY and BANKNIFTY futures and at-the-money short
 * options about 7-8 % of the underlying's notional (SPAN about 5.5 % plus the 2 % exposure
 * (extreme loss) margin on index derivatives), stock futures about 16-17 % (SPAN about 13 % plus
 * the 3.5 % minimum exposure margin on stock derivatives), currency futures about 3 %, commodity
 * futures about 8-9 %. A hedged short option (a long option of the same underlying, expiry and
 * type further out of the money) blocks at most the spread's worst loss: the strikes' distance.
 */
import type { Money } from './money.js';

export type UnderlyingClass = 'index' | 'stock' | 'currency' | 'commodity';
export const UNDERLYING_CLASSES: readonly UnderlyingClass[] = ['index', 'stock', 'currency', 'commodity'];

/** SPAN and exposure margin, percent of the underlying's notional (at most 2 decimals each). */
export interface MarginRate {
  span: number;
  exposure: number;
}
export type FnoMarginRates = Readonly<Record<UnderlyingClass, Readonly<MarginRate>>>;

export const DEFAULT_FNO_MARGIN: FnoMarginRates = Object.freeze({
  index: Object.freeze({ span: 5.5, exposure: 2 }),
  stock: Object.freeze({ span: 13, exposure: 3.5 }),
  currency: Object.freeze({ span: 2, exposure: 1 }),
  commodity: Object.freeze({ span: 7, exposure: 1.5 }),
});

/**
 * The index underlyings of NSE's and BSE's derivatives (their F&O contracts' `name`): every other
 * NFO/BFO underlying is a stock.
 */
export const INDEX_UNDERLYINGS: ReadonlySet<string> = new Set([
  'NIFTY',
  'BANKNIFTY',
  'FINNIFTY',
  'MIDCPNIFTY',
  'NIFTYNXT50',
  'SENSEX',
  'BANKEX',
  'SENSEX50',
]);

/** The class of a derivative's underlying by its exchange and underlying name; undefined elsewhere. */
export function underlyingClass(exchange: string, underlying: string): UnderlyingClass | undefined {
  switch (exchange) {
    case 'NFO':
    case 'BFO':
      return INDEX_UNDERLYINGS.has(underlying.trim().toUpperCase()) ? 'index' : 'stock';
    case 'CDS':
    case 'BCD':
      return 'currency';
    case 'MCX':
      return 'commodity';
    default:
      return undefined;
  }
}

/** `value × percent ÷ 100`, rounded up to the money unit (a margin is never under-blocked). */
function percentOf(value: Money, percent: number): Money {
  const p = Math.round(percent * 100);
  const big = (BigInt(value) * BigInt(p) + 9_999n) / 10_000n;
  const n = Number(big);
  if (!Number.isSafeInteger(n)) throw new RangeError('margin is outside the exact money range');
  return n;
}

/** Some units of a short option covered by a long one: their worst loss per unit (the strikes' distance). */
export interface Cover {
  quantity: number;
  perUnit: Money;
}

/** A margin as a broker's calculator splits it. */
export interface MarginFigures {
  span: Money;
  exposure: Money;
  total: Money;
}

/**
 * The approximation for `quantity` units: uncovered units block (SPAN % + exposure %) of the
 * underlying's notional; units a long option covers block their worst loss per unit (counted as
 * SPAN), never more than an uncovered unit would.
 */
export function approximateMargin(i: {
  quantity: number;
  underlyingPrice: Money;
  rate: Readonly<MarginRate>;
  covers?: readonly Cover[];
}): MarginFigures {
  let left = i.quantity;
  let covered = 0;
  const unitSpan = percentOf(i.underlyingPrice, i.rate.span);
  const unitAll = unitSpan + percentOf(i.underlyingPrice, i.rate.exposure);
  for (const c of i.covers ?? []) {
    const q = Math.min(left, c.quantity);
    if (q <= 0) continue;
    covered += Math.min(c.perUnit, unitAll) * q;
    left -= q;
  }
  const notional = i.underlyingPrice * left;
  if (!Number.isSafeInteger(notional)) throw new RangeError('notional is outside the exact money range');
  const span = percentOf(notional, i.rate.span) + covered;
  const exposure = percentOf(notional, i.rate.exposure);
  return { span, exposure, total: span + exposure };
}

/** Parses `SANDBOX_FNO_MARGIN`: `index=5.5+2,stock=13+3.5` (SPAN+exposure percent), any subset. */
export function parseFnoMargin(raw: string): FnoMarginRates {
  const out: Record<UnderlyingClass, MarginRate> = {
    index: { ...DEFAULT_FNO_MARGIN.index },
    stock: { ...DEFAULT_FNO_MARGIN.stock },
    currency: { ...DEFAULT_FNO_MARGIN.currency },
    commodity: { ...DEFAULT_FNO_MARGIN.commodity },
  };
  for (const part of raw.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    const m = /^([a-z]+)=([0-9]+(?:\.[0-9]{1,2})?)\+([0-9]+(?:\.[0-9]{1,2})?)$/i.exec(item);
    if (!m) throw new Error(`"${item}": write <class>=<span %>+<exposure %>, e.g. index=5.5+2`);
    const cls = m[1]!.toLowerCase() as UnderlyingClass;
    if (!UNDERLYING_CLASSES.includes(cls))
      throw new Error(`unknown class "${m[1]}" (one of ${UNDERLYING_CLASSES.join(', ')})`);
    const span = Number(m[2]);
    const exposure = Number(m[3]);
    if (!(span > 0) || span + exposure > 100)
      throw new Error(`${item}: SPAN must be above 0 and SPAN + exposure at most 100 %`);
    out[cls] = { span, exposure };
  }
  return out;
}
