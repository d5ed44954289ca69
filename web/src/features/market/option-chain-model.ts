/**
 * The option chain page's arithmetic, kept free of React so it is tested on its own
 * (test/web/option-chain-model.test.ts): which exchange an underlying is quoted on and where its
 * options trade, the expiry picker's order, a side of a strike as the feed moves it, the greeks'
 * batches and the straddle/strangle builder's legs (docs/rules/market-data.md#option-chain).
 */
import { INDEX_EXCHANGE_OF, UNDERLYING_EXCHANGES } from '../../../../src/domain/exchanges.js';
import type { OptionType } from '../../../../src/domain/instruments.js';
import type { Product } from '../../../../src/domain/orders.js';
// The generated types only (no client code): the unit test type-checks this file with the server's.
import type { paths } from '../../api/openapi.js';

type Ok<P extends keyof paths> = paths[P] extends {
  post: { responses: { 200: { content: { 'application/json': infer A } } } };
}
  ? A
  : never;

/** What the page reads of a live quote (web/src/api/live-ticks.ts `LiveQuote`). */
export interface TickedQuote {
  ltp: number;
  close?: number | null;
  oi?: number | null;
  volume?: number | null;
}

export type Chain = Ok<'/api/v1/optionchain'>;
export type ChainStrike = Chain['chain'][number];
export type ChainOption = NonNullable<ChainStrike['ce']>;
export type GreeksAnswer = Ok<'/api/v1/multioptiongreeks'>;

/** The underlyings the switcher offers; any other name may be typed. */
export const UNDERLYINGS = ['NIFTY', 'BANKNIFTY', 'FINNIFTY', 'MIDCPNIFTY', 'SENSEX', 'BANKEX'] as const;
/** The index underlyings whose index is BSE's (their options trade on BFO). */
const BSE_INDICES: ReadonlySet<string> = new Set(['SENSEX', 'BANKEX', 'SENSEX50']);
/** NSE's option-bearing indices (the rest of the names typed are stocks). */
const NSE_INDICES: ReadonlySet<string> = new Set([
  'NIFTY',
  'BANKNIFTY',
  'FINNIFTY',
  'MIDCPNIFTY',
  'NIFTYNXT50',
]);
/** The strikes either side of ATM the page offers. */
export const STRIKE_COUNTS = [5, 10, 15, 20] as const;
export const DEFAULT_STRIKE_COUNT = 10;
/** multioptiongreeks takes at most this many options a call (docs/rules/market-data.md#option-greeks). */
export const GREEKS_BATCH = 50;

/**
 * Where an underlying is quoted: an index on its index exchange (NSE_INDEX, or BSE_INDEX for
 * SENSEX and BANKEX), a stock on the cash exchange `?exchange=` names (NSE unless it says BSE).
 */
export function underlyingExchange(underlying: string, asked?: string | null): string {
  const name = underlying.trim().toUpperCase();
  if (BSE_INDICES.has(name)) return INDEX_EXCHANGE_OF.BSE;
  if (NSE_INDICES.has(name)) return INDEX_EXCHANGE_OF.NSE;
  return asked?.toUpperCase() === 'BSE' ? 'BSE' : 'NSE';
}

/** Where the options of an underlying quoted on `exchange` trade: NFO for NSE's, BFO for BSE's. */
export function optionExchange(exchange: string): string {
  for (const [options, places] of Object.entries(UNDERLYING_EXCHANGES))
    if (places.includes(exchange)) return options;
  return 'NFO';
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/** `18-AUG-26` (the expiry answer's label) as a sortable number, or NaN when it is not one. */
function expiryOrder(label: string): number {
  const m = /^(\d{1,2})-?([A-Z]{3})-?(\d{2}|\d{4})$/i.exec(label.trim());
  if (!m) return NaN;
  const month = MONTHS.indexOf(m[2]!.toUpperCase());
  if (month < 0) return NaN;
  const year = m[3]!.length === 2 ? 2000 + Number(m[3]) : Number(m[3]);
  return year * 10_000 + (month + 1) * 100 + Number(m[1]);
}

/** The expiries nearest first (what the picker opens on); labels it cannot read go last. */
export function sortExpiries(labels: readonly string[]): string[] {
  const key = (l: string) => {
    const n = expiryOrder(l);
    return Number.isNaN(n) ? Number.MAX_SAFE_INTEGER : n;
  };
  return [...labels].sort((a, b) => key(a) - key(b));
}

/** The expiry as optionchain takes it: `18-AUG-26` → `18AUG26`. */
export const expiryCode = (label: string): string => label.replace(/-/g, '').toUpperCase();

/** A price the answer or the feed did not have (the chain writes 0 for an option nobody quoted). */
const price = (v: number | null | undefined): number | null =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null;
const count = (v: number | null | undefined): number | null =>
  typeof v === 'number' && Number.isFinite(v) ? v : null;

/** The day's change from the previous close: unknown without both. */
export function changeOf(ltp: number | null, prevClose: number | null): number | null {
  return ltp === null || prevClose === null ? null : Math.round((ltp - prevClose) * 10_000) / 10_000;
}

/**
 * The change of open interest since the previous session: only from a previous OI someone
 * reported (neither the chain's answer nor the feed carries one today), never guessed.
 */
export function oiChangeOf(oi: number | null, prevOi: number | null | undefined): number | null {
  return oi === null || typeof prevOi !== 'number' ? null : oi - prevOi;
}

/** One side of a strike as the page shows it. */
export interface SideView {
  symbol: string;
  lotsize: number;
  tickSize: number;
  ltp: number | null;
  change: number | null;
  oi: number | null;
  oiChange: number | null;
  volume: number | null;
  iv: number | null;
  delta: number | null;
  /** In the money against the underlying's price now. */
  itm: boolean;
}

/** IV (in %) and delta of one option, as multioptiongreeks answered it. */
export interface GreeksView {
  iv: number;
  delta: number;
}

/**
 * A side of a strike: the chain's answer, moved by the feed's newest quote of the option (its LTP,
 * previous close, OI and volume when the tick carries them; a field the tick lacks keeps the
 * chain's), with the latest greeks.
 */
export function sideView(
  opt: ChainOption,
  type: OptionType,
  strike: number,
  live: TickedQuote | undefined,
  greeks: GreeksView | undefined,
  underlyingLtp: number | null,
): SideView {
  const ltp = price(live?.ltp) ?? price(opt.ltp);
  const prevClose = price(live?.close) ?? price(opt.prev_close);
  const oi = count(live?.oi) ?? count(opt.oi);
  // The answer's schema has no previous OI yet: read it only once the server sends one.
  const prevOi = 'prev_oi' in opt && typeof opt.prev_oi === 'number' ? opt.prev_oi : undefined;
  return {
    symbol: opt.symbol,
    lotsize: opt.lotsize,
    tickSize: opt.tick_size,
    ltp,
    change: changeOf(ltp, prevClose),
    oi,
    oiChange: oiChangeOf(oi, prevOi),
    volume: count(live?.volume) ?? count(opt.volume),
    iv: greeks?.iv ?? null,
    delta: greeks?.delta ?? null,
    itm: underlyingLtp !== null && (type === 'CE' ? strike < underlyingLtp : strike > underlyingLtp),
  };
}

/** Two side views show the same thing (a row whose sides did not change is not drawn again). */
export function sameSide(a: SideView | null, b: SideView | null): boolean {
  if (a === b) return true;
  if (!a || !b) return false;
  return (
    a.symbol === b.symbol &&
    a.ltp === b.ltp &&
    a.change === b.change &&
    a.oi === b.oi &&
    a.oiChange === b.oiChange &&
    a.volume === b.volume &&
    a.iv === b.iv &&
    a.delta === b.delta &&
    a.itm === b.itm &&
    a.lotsize === b.lotsize &&
    a.tickSize === b.tickSize
  );
}

/** Lists in batches of at most `size` (multioptiongreeks takes 50 options a call). */
export function batches<T>(list: readonly T[], size = GREEKS_BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** The greeks answers by option symbol; an error item is left out (its cells show a dash). */
export function greeksBySymbol(answers: readonly GreeksAnswer[]): Map<string, GreeksView> {
  const out = new Map<string, GreeksView>();
  for (const a of answers)
    for (const item of a.data)
      if (item.status === 'success')
        out.set(item.symbol, { iv: item.implied_volatility, delta: item.greeks.delta });
  return out;
}

export type BuilderKind = 'straddle' | 'strangle';

/** One leg the builder proposes. */
export interface Leg {
  type: OptionType;
  strike: number;
  symbol: string;
  lotsize: number;
}

/**
 * The legs of a straddle (the ATM call and put) or a strangle (the call `width` strikes above ATM
 * and the put `width` below: both out of the money). A missing contract is the reason in words.
 */
export function builderLegs(
  chain: Pick<Chain, 'atm_strike' | 'chain'>,
  kind: BuilderKind,
  width: number,
): { legs: Leg[] } | { missing: string } {
  const at = chain.chain.findIndex((s) => s.strike === chain.atm_strike);
  if (at < 0) return { missing: 'The ATM strike is not in the chain.' };
  const steps = kind === 'straddle' ? 0 : width;
  const callRow = chain.chain[at + steps];
  const putRow = chain.chain[at - steps];
  const call = callRow?.ce;
  const put = putRow?.pe;
  if (!callRow || !call)
    return { missing: `No call ${steps} strike${steps === 1 ? '' : 's'} above ATM in the chain shown.` };
  if (!putRow || !put)
    return { missing: `No put ${steps} strike${steps === 1 ? '' : 's'} below ATM in the chain shown.` };
  return {
    legs: [
      { type: 'CE', strike: callRow.strike, symbol: call.symbol, lotsize: call.lotsize },
      { type: 'PE', strike: putRow.strike, symbol: put.symbol, lotsize: put.lotsize },
    ],
  };
}

/** The basket's orders: one MARKET order per leg, `lots` lots each. */
export function basketOrders(
  legs: readonly Leg[],
  o: { action: 'BUY' | 'SELL'; lots: number; product: Extract<Product, 'NRML' | 'MIS'>; exchange: string },
) {
  return legs.map((l) => ({
    symbol: l.symbol,
    exchange: o.exchange,
    action: o.action,
    quantity: l.lotsize * o.lots,
    pricetype: 'MARKET',
    product: o.product,
  }));
}

/**
 * The premium of the legs: per unit (the sum of their LTPs) and for the quantity (each LTP times
 * its lots' quantity); unknown while any leg has no price.
 */
export function combinedPremium(
  legs: readonly Leg[],
  ltpOf: (symbol: string) => number | null,
  lots: number,
): { perUnit: number; total: number } | null {
  let perUnit = 0;
  let total = 0;
  for (const l of legs) {
    const p = ltpOf(l.symbol);
    if (p === null) return null;
    perUnit += p;
    total += p * l.lotsize * lots;
  }
  return { perUnit: Math.round(perUnit * 100) / 100, total: Math.round(total * 100) / 100 };
}
