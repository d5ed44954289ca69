/**
 * The exchanges of the Indian markets algodesk knows, with their segment — written once
 * (docs/architecture.md, "Where each rule lives"). Every set of exchanges the rules use is
 * derived here from this one table; `src/domain/domain.test.ts` fails when a literal list of
 * exchanges appears anywhere else in `src/`.
 */

/**
 * What an exchange trades: cash equity, an index (quoted, never traded), equity derivatives
 * (futures and options), currency derivatives, commodity derivatives.
 */
export type Segment = 'cash' | 'index' | 'equity_derivatives' | 'currency' | 'commodity';

/** Every exchange code (OpenAlgo's), in the order lists and messages show them. */
export const EXCHANGES = [
  'NSE',
  'BSE',
  'NFO',
  'BFO',
  'CDS',
  'BCD',
  'MCX',
  'NCO',
  'NSE_INDEX',
  'BSE_INDEX',
  'NCDEX',
] as const;
export type Exchange = (typeof EXCHANGES)[number];

/** The segment of every exchange. */
export const EXCHANGE_SEGMENTS: Readonly<Record<Exchange, Segment>> = {
  NSE: 'cash',
  BSE: 'cash',
  NSE_INDEX: 'index',
  BSE_INDEX: 'index',
  NFO: 'equity_derivatives',
  BFO: 'equity_derivatives',
  CDS: 'currency',
  BCD: 'currency',
  MCX: 'commodity',
  NCO: 'commodity',
  NCDEX: 'commodity',
};

const withSegment = (...segments: Segment[]): Exchange[] =>
  EXCHANGES.filter((e) => segments.includes(EXCHANGE_SEGMENTS[e]));

/** Cash equity exchanges: a short cash entry needs MIS (strategy rule "short entries"). */
export const CASH_EXCHANGES: ReadonlySet<string> = new Set(withSegment('cash'));

/** Index exchanges: quoted (an underlying's last price), never traded. */
export const INDEX_EXCHANGES: ReadonlySet<string> = new Set(withSegment('index'));

/**
 * Derivative exchanges (equity, currency and commodity futures and options): contracts trade in
 * lots and have expiries and strikes; search reads their terms ("NIFTY 26000 CE").
 */
export const DERIVATIVE_EXCHANGES: ReadonlySet<string> = new Set(
  withSegment('equity_derivatives', 'currency', 'commodity'),
);

/** Currency derivative exchanges: prices carry four decimals (OpenAlgo's book format). */
export const FOUR_DECIMAL_EXCHANGES: ReadonlySet<string> = new Set(withSegment('currency'));

/**
 * The exchanges an order may name: OpenAlgo's order constants, every exchange that trades but NCO
 * (which they do not list).
 */
export const ORDER_EXCHANGES = ['NSE', 'BSE', 'NFO', 'BFO', 'CDS', 'BCD', 'MCX', 'NCDEX'] as const;
export type OrderExchange = (typeof ORDER_EXCHANGES)[number];

/**
 * Order exchanges whose contracts trade in lots: quantities are lot multiples, orders are split at
 * the freeze quantity, freeze quantities are kept, a strategy's derivative legs may name them.
 */
export const FNO_ORDER_EXCHANGES: ReadonlySet<string> = new Set(
  ORDER_EXCHANGES.filter((e) => DERIVATIVE_EXCHANGES.has(e)),
);

/** The index exchange of a cash exchange (an index row of NSE's file is an `NSE_INDEX` instrument). */
export const INDEX_EXCHANGE_OF = { NSE: 'NSE_INDEX', BSE: 'BSE_INDEX' } as const;
export type IndexExchange = (typeof INDEX_EXCHANGE_OF)[keyof typeof INDEX_EXCHANGE_OF];

/** The index exchange of `exchange` when it is a cash exchange with indices, else undefined. */
export function indexExchangeOf(exchange: string): IndexExchange | undefined {
  return Object.hasOwn(INDEX_EXCHANGE_OF, exchange)
    ? INDEX_EXCHANGE_OF[exchange as keyof typeof INDEX_EXCHANGE_OF]
    : undefined;
}

/**
 * Where the underlying of a derivative exchange's contracts is quoted, in the order to look:
 * NIFTY's options on NFO are priced from NSE_INDEX, a stock's from NSE; currency and commodity
 * contracts from their own exchange.
 */
export const UNDERLYING_EXCHANGES: Readonly<Record<string, readonly string[]>> = {
  NFO: [INDEX_EXCHANGE_OF.NSE, 'NSE'],
  BFO: [INDEX_EXCHANGE_OF.BSE, 'BSE'],
  CDS: ['CDS'],
  BCD: ['BCD'],
  MCX: ['MCX'],
};

/** The exchanges market holidays and timings are kept for (the specification's holiday entries). */
export const HOLIDAY_EXCHANGES = ['NSE', 'BSE', 'NFO', 'BFO', 'MCX', 'CDS', 'BCD'] as const;
export type HolidayExchange = (typeof HOLIDAY_EXCHANGES)[number];

/** Holiday exchanges that follow the NSE/BSE calendar (all but the commodity exchange). */
export const NSE_CALENDAR_EXCHANGES: readonly HolidayExchange[] = HOLIDAY_EXCHANGES.filter(
  (e) => EXCHANGE_SEGMENTS[e] !== 'commodity',
);

/** Holiday exchanges of currency derivatives (closed on some days the equity market trades). */
export const CURRENCY_HOLIDAY_EXCHANGES: readonly HolidayExchange[] = HOLIDAY_EXCHANGES.filter(
  (e) => EXCHANGE_SEGMENTS[e] === 'currency',
);
