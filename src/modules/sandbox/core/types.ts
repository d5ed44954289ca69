import type { Instrument } from '../../market/instrument.js';
import type { Money } from './money.js';
import type { Action, PriceType, Product } from '../../../domain/orders.js';

/** Order side (`action` of the placeorder request). */
export type Side = Action;

export type { PriceType, Product };

/**
 * States of a sandbox order (docs/rules/sandbox.md#order-states). `trigger pending` is an SL / SL-M
 * order waiting for its trigger; `open` is a LIMIT (or triggered SL) order resting until the price
 * crosses it. The last three are final.
 */
export type OrderStatus = 'open' | 'trigger pending' | 'complete' | 'cancelled' | 'rejected';

/** The fields of a master-contract instrument the sandbox rules read. */
export type SandboxInstrument = Pick<
  Instrument,
  'symbol' | 'exchange' | 'lotsize' | 'instrumenttype' | 'tickSize'
> &
  /** A derivative's expiry (`YYYY-MM-DD`): no order is taken on a contract past it. */
  Partial<Pick<Instrument, 'expiryDate'>>;

export { instrumentKind, type InstrumentKind } from '../../../domain/instruments.js';

/**
 * A market snapshot of one instrument as the price source delivers it, in rupees (the edge).
 * `bid` / `ask` of 0 or absent mean the quote has no depth; the LTP is used instead.
 */
export interface Quote {
  /** Last traded price (₹). */
  ltp: number;
  /** Best bid (₹), 0 or absent when unknown. */
  bid?: number;
  /** Best ask (₹), 0 or absent when unknown. */
  ask?: number;
  /** The day's high (₹). */
  high: number;
  /** The day's low (₹). */
  low: number;
  /** The previous session's close (₹), when the source knows it (the live feed's day's change). */
  close?: number;
  /** When the quote was taken, epoch ms. */
  timestamp: number;
}

/**
 * An accepted order as the matching rules see it: prices in {@link Money} units (0 where the
 * price type has none). `status` is `open` or `trigger pending` while it rests.
 */
export interface RestingOrder {
  id: string;
  symbol: string;
  exchange: string;
  side: Side;
  priceType: PriceType;
  /** Always a positive integer (validated at placement). */
  quantity: number;
  /** Limit price (LIMIT, SL), else 0. */
  price: Money;
  /** Trigger price (SL, SL-M), else 0. */
  triggerPrice: Money;
  status: OrderStatus;
}

/** Key of an instrument in a quote map: `EXCHANGE:SYMBOL` (`NFO:NIFTY18AUG2626000CE`). */
export function quoteKey(exchange: string, symbol: string): string {
  return `${exchange}:${symbol}`;
}

/**
 * A sandbox account's funds (docs/rules/sandbox.md#account-and-reset). `available` is what new
 * margin can come from; `usedMargin` is blocked by open orders and positions; `realisedPnl` is the
 * running total of realised P&L (already included in `available`).
 */
export interface Funds {
  available: Money;
  usedMargin: Money;
  realisedPnl: Money;
}

/** A change to {@link Funds}: each field is added (see `applyFundsDelta` in margin.ts). */
export type FundsDelta = Funds;

/** Statuses of an order that is still working. */
export const RESTING: readonly OrderStatus[] = ['open', 'trigger pending'];
