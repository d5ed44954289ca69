import type { Instrument } from '../instrument.js';
import type { DerivativeType } from '../../../domain/instruments.js';
import {
  expiryLabel,
  futureSymbol,
  optionSymbol,
  parseDecimal,
  parseExpiry,
  underlyingFromTradingSymbol,
} from '../symbology.js';

/** Thrown by the field readers: the row is reported as a skip with this reason, parsing goes on. */
export class RowSkip extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export function skipRow(reason: string): never {
  throw new RowSkip(reason);
}

/** A value quoted in a skip reason, cut short so a junk line cannot flood the log. */
export function shown(text: string): string {
  const s = text.trim();
  if (s === '') return '(empty)';
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

export function readToken(text: string | undefined): string {
  const s = (text ?? '').trim();
  if (s === '') skipRow('missing token');
  return s;
}

export function readTradingSymbol(text: string | undefined): string {
  const s = (text ?? '').trim();
  if (s === '') skipRow('missing trading symbol');
  return s;
}

/**
 * Lot size: a whole number ≥ 1 (`65`, or `65.0` from a pandas re-save). Indices (`zeroOk`)
 * have none: empty or 0 reads as 0.
 */
export function readLot(text: string | undefined, zeroOk = false): number {
  const s = text ?? '';
  if (zeroOk && s.trim() === '') return 0;
  const n = parseDecimal(s);
  if (n === null || !Number.isInteger(n) || n < (zeroOk ? 0 : 1)) skipRow(`bad lot size ${shown(s)}`);
  return n;
}

/**
 * Tick size in rupees; `divisor` converts a file's unit (100 for paise). Tradeable rows need a
 * positive tick (prices are rounded to it); indices (`zeroOk`) may have none.
 */
export function readTick(text: string | undefined, zeroOk = false, divisor = 1): number {
  const s = text ?? '';
  if (zeroOk && s.trim() === '') return 0;
  const n = parseDecimal(s);
  if (n === null || n < 0 || (n === 0 && !zeroOk)) skipRow(`bad tick size ${shown(s)}`);
  // Rounded to 10 places: 0.25 / 100 must be 0.0025, not 0.0025000000000000005.
  return divisor === 1 ? n : Math.round((n / divisor) * 1e10) / 1e10;
}

/**
 * The price a file states for a contract (`last_price`), in rupees, or undefined when it states
 * none: blank, 0 (Kite's file often has 0), negative or not a number. Never a reason to skip
 * the row: the price only seeds the simulated prices (docs/rules/sandbox.md#simulated-prices).
 */
export function readReferencePrice(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = parseDecimal(text);
  return n !== null && n > 0 ? n : undefined;
}

/** Distinct expiry texts remembered per file; a master has a few hundred. */
const EXPIRY_MEMO_LIMIT = 4096;

/**
 * Reads derivative expiries into ISO dates, remembering each distinct text: 200k option rows
 * share a few hundred expiries. One reader per parsed file.
 */
export class ExpiryReader {
  private readonly memo = new Map<string, string | null>();

  read(text: string | undefined): string {
    const s = text ?? '';
    let iso = this.memo.get(s);
    if (iso === undefined) {
      if (s.trim() === '') skipRow('missing expiry');
      iso = parseExpiry(s);
      if (this.memo.size < EXPIRY_MEMO_LIMIT) this.memo.set(s, iso);
    }
    if (iso === null) skipRow(`bad expiry ${shown(s)}`);
    return iso;
  }
}

/** Option strike: a positive number. */
export function readStrike(text: string | undefined): number {
  const s = text ?? '';
  const n = parseDecimal(s);
  if (n === null || n <= 0) skipRow(`bad strike ${shown(s)}`);
  return n;
}

/** What {@link derivativeRow} needs, already read from the broker's columns. */
export interface DerivativeInput {
  brsymbol: string;
  brexchange: string;
  exchange: string;
  token: string;
  type: DerivativeType;
  /** Raw expiry text (any form {@link parseExpiry} reads). */
  expiry: string | undefined;
  /** Raw strike text; read for options only. */
  strike: string | undefined;
  lotsize: number;
  tickSize: number;
  /** The file's price for the contract (rupees), undefined when none ({@link readReferencePrice}). */
  referencePrice?: number | undefined;
  /**
   * Underlying to use when the trading symbol has no recognisable date code but starts with
   * this (Kite's `name`, Fyers' underlying column).
   */
  fallbackBase?: string;
  /** The exchange's trading symbol when `brsymbol` wraps it (Fyers `NSE:NIFTY25N1326000CE`). */
  exchangeSymbol?: string;
}

/** A canonical future/option row; the base comes from the exchange trading symbol. */
export function derivativeRow(d: DerivativeInput, expiries: ExpiryReader): Instrument {
  const expiryDate = expiries.read(d.expiry);
  const strike = d.type === 'FUT' ? null : readStrike(d.strike);
  const symbol = d.exchangeSymbol ?? d.brsymbol;
  const fallback = d.fallbackBase?.trim();
  // The fallback must still prefix the trading symbol, so a junk row cannot pass itself off
  // as a contract of another underlying.
  const base =
    underlyingFromTradingSymbol(symbol, d.type, strike ?? undefined) ??
    (fallback && symbol.startsWith(fallback) ? fallback : null);
  if (base === null) skipRow(`no underlying in trading symbol ${shown(d.brsymbol)}`);
  return {
    symbol:
      strike === null || d.type === 'FUT'
        ? futureSymbol(base, expiryDate)
        : optionSymbol(base, expiryDate, strike, d.type),
    brsymbol: d.brsymbol,
    name: base,
    exchange: d.exchange,
    brexchange: d.brexchange,
    token: d.token,
    expiry: expiryLabel(expiryDate),
    expiryDate,
    strike,
    lotsize: d.lotsize,
    instrumenttype: d.type,
    tickSize: d.tickSize,
    underlying: base,
    referencePrice: d.referencePrice,
  };
}

/** The fields of a cash or index row other than type, lot and tick; the symbol is the broker's. */
export function cashFields(p: {
  brsymbol: string;
  exchange: string;
  brexchange: string;
  token: string;
  name: string;
  /** The file's price for the contract (rupees), undefined when none. */
  referencePrice?: number | undefined;
}): Omit<Instrument, 'instrumenttype' | 'lotsize' | 'tickSize'> {
  return {
    symbol: p.brsymbol,
    brsymbol: p.brsymbol,
    name: p.name,
    exchange: p.exchange,
    brexchange: p.brexchange,
    token: p.token,
    expiry: null,
    expiryDate: null,
    strike: null,
    underlying: null,
    referencePrice: p.referencePrice,
  };
}
