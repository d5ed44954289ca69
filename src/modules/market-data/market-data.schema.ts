/** The `/api/v1` market-data bodies and answers, in OpenAlgo's field names (its Data API pages). */
import { Type, type Static } from 'typebox';
import { HISTORY_INTERVALS } from '../brokers/quotes/quote-client.js';
import { literalUnion } from '../../platform/http/literal-union.js';

const ApiKey = Type.String({ minLength: 1, maxLength: 256 });
const SymbolName = Type.String({ minLength: 1, maxLength: 64 });
const Exchange = Type.String({ minLength: 1, maxLength: 16, pattern: '^[A-Z_]+$' });
const IsoDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });

/** Most symbols one multiquotes call takes (one broker batch: Kite and Upstox both take 500). */
export const MAX_MULTIQUOTE_SYMBOLS = 500;

export const SymbolBody = Type.Object({ apikey: ApiKey, symbol: SymbolName, exchange: Exchange });
export type SymbolBody = Static<typeof SymbolBody>;

export const MultiQuotesBody = Type.Object({
  apikey: ApiKey,
  symbols: Type.Array(Type.Object({ symbol: SymbolName, exchange: Exchange }), {
    minItems: 1,
    maxItems: MAX_MULTIQUOTE_SYMBOLS,
  }),
});
export type MultiQuotesBody = Static<typeof MultiQuotesBody>;

export const HistoryBody = Type.Object({
  apikey: ApiKey,
  symbol: SymbolName,
  exchange: Exchange,
  interval: literalUnion(HISTORY_INTERVALS),
  start_date: IsoDate,
  end_date: IsoDate,
});
export type HistoryBody = Static<typeof HistoryBody>;

/**
 * A circuit limit of the day (the exchange's price band), or null when the source gave none: a
 * broker's 0, the live feed's ticks and the sandbox (docs/rules/market-data.md#circuit-limits).
 */
const Circuit = (side: 'upper' | 'lower') =>
  Type.Union([Type.Number(), Type.Null()], {
    description: `The day's ${side} circuit limit (price band); null when the source gives none.`,
  });

/**
 * One quote (quotes, and each multiquotes result): OpenAlgo's documented keys in their order, then
 * the circuit limits, ours, last.
 */
export const QuoteData = Type.Object({
  open: Type.Number(),
  high: Type.Number(),
  low: Type.Number(),
  ltp: Type.Number(),
  ask: Type.Number(),
  bid: Type.Number(),
  prev_close: Type.Number(),
  volume: Type.Number(),
  oi: Type.Number(),
  upper_circuit: Circuit('upper'),
  lower_circuit: Circuit('lower'),
});
export type QuoteData = Static<typeof QuoteData>;

export const QuotesResponse = Type.Object({ status: Type.Literal('success'), data: QuoteData });

export const MultiQuotesResponse = Type.Object({
  status: Type.Literal('success'),
  results: Type.Array(
    Type.Object({
      symbol: Type.String(),
      exchange: Type.String(),
      data: Type.Optional(QuoteData),
      error: Type.Optional(Type.String()),
    }),
  ),
});
export type MultiQuoteResult = Static<typeof MultiQuotesResponse>['results'][number];

const Level = Type.Object({ price: Type.Number(), quantity: Type.Number() });

/** The depth answer: OpenAlgo's documented keys in their order, then the circuit limits last. */
export const DepthData = Type.Object({
  open: Type.Number(),
  high: Type.Number(),
  low: Type.Number(),
  ltp: Type.Number(),
  ltq: Type.Number(),
  prev_close: Type.Number(),
  volume: Type.Number(),
  oi: Type.Number(),
  totalbuyqty: Type.Number(),
  totalsellqty: Type.Number(),
  asks: Type.Array(Level),
  bids: Type.Array(Level),
  upper_circuit: Circuit('upper'),
  lower_circuit: Circuit('lower'),
});
export type DepthData = Static<typeof DepthData>;

export const DepthResponse = Type.Object({ status: Type.Literal('success'), data: DepthData });

export const CandleData = Type.Object({
  /** Candle start, epoch seconds (OpenAlgo's history answers Unix timestamps). */
  timestamp: Type.Integer(),
  open: Type.Number(),
  high: Type.Number(),
  low: Type.Number(),
  close: Type.Number(),
  volume: Type.Number(),
  oi: Type.Number(),
});
export type CandleData = Static<typeof CandleData>;

export const HistoryResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Array(CandleData),
});

// ---- options ---------------------------------------------------------------------------------------

const Expiry = Type.String({ minLength: 5, maxLength: 16 });
const Rate = Type.Number({ minimum: 0, maximum: 100 });
const HhMm = Type.String({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$' });

export const ChainBody = Type.Object({
  apikey: ApiKey,
  underlying: SymbolName,
  exchange: Exchange,
  expiry_date: Expiry,
  strike_count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
});

const ChainOption = Type.Object({
  symbol: Type.String(),
  label: Type.String(),
  ltp: Type.Number(),
  bid: Type.Number(),
  ask: Type.Number(),
  open: Type.Number(),
  high: Type.Number(),
  low: Type.Number(),
  prev_close: Type.Number(),
  volume: Type.Number(),
  oi: Type.Number(),
  lotsize: Type.Number(),
  tick_size: Type.Number(),
});

export const ChainResponse = Type.Object({
  status: Type.Literal('success'),
  underlying: Type.String(),
  underlying_ltp: Type.Number(),
  expiry_date: Type.String(),
  atm_strike: Type.Number(),
  chain: Type.Array(
    Type.Object({
      strike: Type.Number(),
      ce: Type.Union([ChainOption, Type.Null()]),
      pe: Type.Union([ChainOption, Type.Null()]),
    }),
  ),
});

export const SyntheticBody = Type.Object({
  apikey: ApiKey,
  underlying: SymbolName,
  exchange: Exchange,
  expiry_date: Expiry,
});

export const SyntheticResponse = Type.Object({
  status: Type.Literal('success'),
  underlying: Type.String(),
  underlying_ltp: Type.Number(),
  expiry: Type.String(),
  atm_strike: Type.Number(),
  synthetic_future_price: Type.Number(),
});

const GreeksItem = {
  symbol: SymbolName,
  exchange: Exchange,
  underlying_symbol: Type.Optional(SymbolName),
  underlying_exchange: Type.Optional(Exchange),
};

export const GreeksBody = Type.Object({
  apikey: ApiKey,
  ...GreeksItem,
  interest_rate: Type.Optional(Rate),
  forward_price: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  expiry_time: Type.Optional(HhMm),
});

const Greeks = Type.Object({
  delta: Type.Number(),
  gamma: Type.Number(),
  theta: Type.Number(),
  vega: Type.Number(),
  rho: Type.Number(),
});

const GreeksFields = {
  symbol: Type.String(),
  exchange: Type.String(),
  underlying: Type.String(),
  strike: Type.Number(),
  option_type: Type.String(),
  expiry_date: Type.String(),
  days_to_expiry: Type.Number(),
  spot_price: Type.Number(),
  option_price: Type.Number(),
  interest_rate: Type.Number(),
  implied_volatility: Type.Number(),
  greeks: Greeks,
};

export const GreeksResponse = Type.Object({ status: Type.Literal('success'), ...GreeksFields });

/** Most options one multioptiongreeks call takes (OpenAlgo's 50). */
export const MAX_GREEKS_SYMBOLS = 50;

export const MultiGreeksBody = Type.Object({
  apikey: ApiKey,
  symbols: Type.Array(Type.Object(GreeksItem), { minItems: 1, maxItems: MAX_GREEKS_SYMBOLS }),
  interest_rate: Type.Optional(Rate),
  expiry_time: Type.Optional(HhMm),
});

export const MultiGreeksResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Array(
    Type.Union([
      Type.Object({ status: Type.Literal('success'), ...GreeksFields }),
      Type.Object({
        status: Type.Literal('error'),
        symbol: Type.String(),
        exchange: Type.String(),
        message: Type.String(),
      }),
    ]),
  ),
  summary: Type.Object({ total: Type.Integer(), success: Type.Integer(), failed: Type.Integer() }),
});

// ---- ticker --------------------------------------------------------------------------------------

export const TickerParams = Type.Object({ symbol: Type.String({ minLength: 3, maxLength: 80 }) });

export const TickerQuery = Type.Object({
  apikey: ApiKey,
  interval: Type.Optional(literalUnion(HISTORY_INTERVALS)),
  from: IsoDate,
  to: IsoDate,
  format: Type.Optional(literalUnion(['json', 'txt'] as const)),
});
export type TickerQuery = Static<typeof TickerQuery>;

export const TickerResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Array(
    Type.Object({
      timestamp: Type.Integer(),
      open: Type.Number(),
      high: Type.Number(),
      low: Type.Number(),
      close: Type.Number(),
      volume: Type.Number(),
    }),
  ),
});
