import { Type, type Static } from 'typebox';
import { MAX_QUERY_LENGTH, SEARCH_EXCHANGES } from './search-rules.js';
import { literalUnion } from '../../platform/http/literal-union.js';

/** One normalised search result (OpenAlgo's field names). */
export const SearchItem = Type.Object({
  /** Canonical symbol (`NIFTY30DEC2526000CE`). */
  symbol: Type.String(),
  /** The broker's trading symbol. */
  brsymbol: Type.String(),
  name: Type.String(),
  /** Canonical exchange. */
  exchange: Type.String(),
  /** The broker's exchange or segment. */
  brexchange: Type.String(),
  token: Type.String(),
  /** `DD-MMM-YY`; empty for cash and indices (as OpenAlgo sends it). */
  expiry: Type.String(),
  /** Strike of an option; 0 otherwise (as OpenAlgo sends it). */
  strike: Type.Number(),
  lotsize: Type.Integer(),
  instrumenttype: Type.String(),
  tick_size: Type.Number(),
  /** Freeze quantity of the F&O underlying on that exchange; null where none is configured. */
  freeze_qty: Type.Union([Type.Integer(), Type.Null()]),
});
export type SearchItem = Static<typeof SearchItem>;

export const PublicSearchBody = Type.Object({
  apikey: Type.String({ minLength: 1, maxLength: 256 }),
  query: Type.String({ maxLength: MAX_QUERY_LENGTH }),
  exchange: Type.Optional(literalUnion(SEARCH_EXCHANGES)),
});

export const PublicSearchResponse = Type.Object({
  status: Type.Literal('success'),
  message: Type.String(),
  data: Type.Array(SearchItem),
});

const CommaList = Type.String({ maxLength: 200 });

export const SessionSearchQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: MAX_QUERY_LENGTH })),
  /** Comma-separated exchanges (union). */
  exchange: Type.Optional(CommaList),
  /** Comma-separated instrument types (union); `options` = CE+PE, `futures` = FUT. */
  instrumenttype: Type.Optional(CommaList),
  /** `DD-MMM-YY`, `DDMMMYY` or `YYYY-MM-DD`. */
  expiry: Type.Optional(Type.String({ maxLength: 20 })),
  underlying: Type.Optional(Type.String({ maxLength: 64 })),
  strike_min: Type.Optional(Type.Number()),
  strike_max: Type.Optional(Type.Number()),
});
export type SessionSearchQuery = Static<typeof SessionSearchQuery>;

export const LegacySearchQuery = Type.Object({
  symbol: Type.Optional(Type.String({ maxLength: MAX_QUERY_LENGTH })),
  exchange: Type.Optional(CommaList),
});

export const TokenQuery = Type.Object({
  symbol: Type.Optional(Type.String({ maxLength: 64 })),
  exchange: Type.Optional(Type.String({ maxLength: 16 })),
  token: Type.Optional(Type.String({ maxLength: 64 })),
});

export const SessionSearchResponse = Type.Object({
  results: Type.Array(SearchItem),
  /** Every match; `results` holds at most 500. */
  total: Type.Integer(),
});

export const ExpiriesQuery = Type.Object({
  exchange: Type.Optional(CommaList),
  underlying: Type.Optional(Type.String({ maxLength: 64 })),
  instrumenttype: Type.Optional(CommaList),
});

export const ExpiriesResponse = Type.Object({
  status: Type.Literal('success'),
  /** `DD-MMM-YY`, by date, today's and later only. */
  expiries: Type.Array(Type.String()),
});

export const UnderlyingsQuery = Type.Object({
  exchange: Type.Optional(CommaList),
  include_futures: Type.Optional(Type.String({ maxLength: 8 })),
});

export const UnderlyingsResponse = Type.Object({
  status: Type.Literal('success'),
  underlyings: Type.Array(Type.String()),
});

export const TokenResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Array(SearchItem),
});
