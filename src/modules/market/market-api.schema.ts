/**
 * Bodies and answers of the OpenAlgo market utilities on `/api/v1`: symbol, expiry, instruments,
 * intervals, optionsymbol, market/holidays and market/timings (OpenAlgo's field names).
 */
import { Type, type Static } from 'typebox';
import { EXCHANGES } from '../../domain/exchanges.js';
import { OPTION_TYPES } from '../../domain/instruments.js';
import { literalUnion } from '../../platform/http/literal-union.js';
import { SearchItem } from './search.schema.js';

const ApiKey = Type.String({ minLength: 1, maxLength: 256 });
/** A canonical symbol or underlying: bounded, no control characters. */
const SymbolText = Type.String({ minLength: 1, maxLength: 64, pattern: '^[^\\u0000-\\u001f\\u007f]+$' });

export const SymbolBody = Type.Object({
  apikey: ApiKey,
  symbol: SymbolText,
  exchange: literalUnion(EXCHANGES),
});
export type SymbolBody = Static<typeof SymbolBody>;

export const SymbolResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Object({ id: Type.Integer(), ...SearchItem.properties }),
});

export const ExpiryBody = Type.Object({
  apikey: ApiKey,
  symbol: SymbolText,
  /** A derivative exchange (NFO, BFO, CDS, BCD, MCX, …): checked by the handler. */
  exchange: literalUnion(EXCHANGES),
  instrumenttype: literalUnion(['futures', 'options'] as const),
});
export type ExpiryBody = Static<typeof ExpiryBody>;

export const ExpiryResponse = Type.Object({
  status: Type.Literal('success'),
  message: Type.String(),
  /** `DD-MMM-YY`, nearest first. */
  data: Type.Array(Type.String()),
});

export const INSTRUMENT_FORMATS = ['json', 'csv'] as const;

export const InstrumentsQuery = Type.Object({
  apikey: ApiKey,
  exchange: Type.Optional(literalUnion(EXCHANGES)),
  format: Type.Optional(literalUnion(INSTRUMENT_FORMATS)),
});
export type InstrumentsQuery = Static<typeof InstrumentsQuery>;

/** One instrument of `GET /api/v1/instruments` (and the CSV columns, in this order). */
export const InstrumentRow = Type.Object({
  symbol: Type.String(),
  brsymbol: Type.String(),
  name: Type.String(),
  exchange: Type.String(),
  brexchange: Type.String(),
  token: Type.String(),
  expiry: Type.String(),
  strike: Type.Number(),
  lotsize: Type.Integer(),
  instrumenttype: Type.String(),
  tick_size: Type.Number(),
});

export const InstrumentsResponse = Type.Object({
  status: Type.Literal('success'),
  message: Type.String(),
  data: Type.Array(InstrumentRow),
});

export const ApiKeyOnlyBody = Type.Object({ apikey: ApiKey });

const IntervalList = Type.Array(Type.String());
export const IntervalsResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Object({
    months: IntervalList,
    weeks: IntervalList,
    days: IntervalList,
    hours: IntervalList,
    minutes: IntervalList,
    seconds: IntervalList,
  }),
});

/** `ATM`, `ITM1`…`ITM50`, `OTM1`…`OTM50` (any case). */
export const OFFSET_PATTERN = '^(?:[Aa][Tt][Mm]|[IiOo][Tt][Mm](?:[1-9]|[1-4][0-9]|50))$';

export const OptionSymbolBody = Type.Object({
  apikey: ApiKey,
  underlying: SymbolText,
  exchange: literalUnion(EXCHANGES),
  /** `DDMMMYY` (`25AUG26`); `DD-MMM-YY` and ISO are read too. */
  expiry_date: Type.String({ minLength: 1, maxLength: 20 }),
  offset: Type.String({ pattern: OFFSET_PATTERN, maxLength: 5 }),
  option_type: literalUnion(OPTION_TYPES),
  /** Accepted for OpenAlgo clients; the strikes come from the contract itself. */
  strike_int: Type.Optional(Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.Null()])),
});
export type OptionSymbolBody = Static<typeof OptionSymbolBody>;

export const OptionSymbolResponse = Type.Object({
  status: Type.Literal('success'),
  symbol: Type.String(),
  exchange: Type.String(),
  lotsize: Type.Integer(),
  tick_size: Type.Number(),
  freeze_qty: Type.Union([Type.Integer(), Type.Null()]),
  underlying_ltp: Type.Number(),
});

/** OpenAlgo's calendar range for the public API. */
export const API_MIN_YEAR = 2020;
export const API_MAX_YEAR = 2050;

export const HolidaysBody = Type.Object({
  apikey: ApiKey,
  year: Type.Optional(Type.Integer({ minimum: API_MIN_YEAR, maximum: API_MAX_YEAR })),
});

const EpochSession = Type.Object({
  exchange: Type.String(),
  /** Epoch milliseconds. */
  start_time: Type.Integer(),
  end_time: Type.Integer(),
});

export const HolidaysResponse = Type.Object({
  status: Type.Literal('success'),
  year: Type.Integer(),
  timezone: Type.Literal('Asia/Kolkata'),
  data: Type.Array(
    Type.Object({
      date: Type.String(),
      description: Type.String(),
      holiday_type: Type.String(),
      closed_exchanges: Type.Array(Type.String()),
      open_exchanges: Type.Array(EpochSession),
    }),
  ),
});

export const TimingsBody = Type.Object({
  apikey: ApiKey,
  /** `YYYY-MM-DD`. */
  date: Type.String({ minLength: 1, maxLength: 10 }),
});

export const TimingsResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Array(EpochSession),
});
