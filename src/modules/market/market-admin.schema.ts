import { Type } from 'typebox';
import { HOLIDAY_TYPES } from './holidays.service.js';
import { MAX_YEAR, MIN_YEAR } from './timings.service.js';
import { MAX_FREEZE_QTY } from './freeze.service.js';

// Requests. Bodies are validated without coercion (a string quantity is a 400); codes, dates and
// times are checked by the services, so their messages can say what is wrong with the value.

const Code = (description: string) => Type.String({ minLength: 1, maxLength: 16, description });
/** `HH:MM` IST, 00:00 to 23:59 (checked by the service). */
const Hhmm = Type.String({ maxLength: 16, description: '`HH:MM` IST, 00:00 to 23:59' });

export const IdParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
});

export const FreezeBody = Type.Object(
  {
    /** F&O exchange: NFO, BFO, CDS, BCD or MCX (trimmed, case-insensitive). */
    exchange: Code('F&O exchange: NFO, BFO, CDS, BCD, MCX, NCDEX'),
    /** Underlying symbol as in NSE's list (trimmed, upper-cased). */
    symbol: Type.String({ minLength: 1, maxLength: 64 }),
    /** Largest quantity of one order; larger orders are split. */
    freeze_qty: Type.Integer({ minimum: 1, maximum: MAX_FREEZE_QTY }),
  },
  { additionalProperties: false },
);

export const FreezeUpdateBody = Type.Object(
  {
    exchange: Type.Optional(Code('F&O exchange: NFO, BFO, CDS, BCD, MCX, NCDEX')),
    symbol: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    freeze_qty: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_FREEZE_QTY })),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const YearQuery = Type.Object({
  /** Defaults to the current year in IST. */
  year: Type.Optional(Type.Integer({ minimum: MIN_YEAR, maximum: MAX_YEAR })),
});

export const HolidayBody = Type.Object(
  {
    /** `YYYY-MM-DD`, a real calendar date (IST). */
    holiday_date: Type.String({ maxLength: 32 }),
    description: Type.String({ minLength: 1, maxLength: 150 }),
    /** Defaults to TRADING_HOLIDAY (the column's default). */
    holiday_type: Type.Optional(Type.Enum([...HOLIDAY_TYPES])),
    /** Exchange codes closed that day: NSE, BSE, NFO, BFO, MCX, CDS, BCD. */
    exchanges: Type.Optional(Type.Array(Code('exchange code'), { maxItems: 16 })),
    /** Exchanges trading a special session that day. */
    open_exchanges: Type.Optional(
      Type.Array(
        Type.Object(
          { exchange: Code('exchange code'), start_time: Hhmm, end_time: Hhmm },
          { additionalProperties: false },
        ),
        { maxItems: 16 },
      ),
    ),
  },
  { additionalProperties: false },
);

export const ExchangeParams = Type.Object({ exchange: Type.String({ minLength: 1, maxLength: 16 }) });

export const TimingBody = Type.Object({ start_time: Hhmm, end_time: Hhmm }, { additionalProperties: false });

export const CheckBody = Type.Object(
  { date: Type.String({ maxLength: 32, description: '`YYYY-MM-DD` (IST)' }) },
  { additionalProperties: false },
);

// Responses: serialised through these schemas, so no undeclared field can leave.

const Success = Type.Literal('success');
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const MessageResponse = Type.Object({ status: Success, message: Type.String() });

const FreezeEntry = Type.Object({
  id: Type.Integer(),
  exchange: Type.String(),
  symbol: Type.String(),
  freeze_qty: Type.Integer(),
});
export const FreezeListResponse = Type.Object({ status: Success, data: Type.Array(FreezeEntry) });
export const FreezeEntryResponse = Type.Object({
  status: Success,
  message: Type.String(),
  data: FreezeEntry,
});
export const FreezeUploadResponse = Type.Object({
  status: Success,
  message: Type.String(),
  data: Type.Object({
    exchange: Type.String(),
    loaded: Type.Integer(),
    skipped: Type.Integer(),
    /** The first 100 skipped lines. */
    skipped_rows: Type.Array(Type.Object({ line: Type.Integer(), reason: Type.String() })),
  }),
});

const HolidayView = Type.Object({
  id: Type.Integer(),
  holiday_date: Type.String(),
  description: Type.String(),
  holiday_type: Type.String(),
  year: Type.Integer(),
  closed_exchanges: Type.Array(Type.String()),
  open_exchanges: Type.Array(
    Type.Object({
      exchange: Type.String(),
      start_time: Type.String({ description: '`HH:MM` IST' }),
      end_time: Type.String({ description: '`HH:MM` IST' }),
      start_ms: Type.Integer({ description: 'epoch ms' }),
      end_ms: Type.Integer({ description: 'epoch ms' }),
    }),
  ),
});
export const HolidayListResponse = Type.Object({
  status: Success,
  year: Type.Integer(),
  data: Type.Array(HolidayView),
});
export const HolidayResponse = Type.Object({ status: Success, message: Type.String(), data: HolidayView });

const TimingView = Type.Object({
  exchange: Type.String(),
  start_time: Type.String(),
  end_time: Type.String(),
  updated_at: Type.String({ description: 'ISO-8601 UTC' }),
});
export const TimingsResponse = Type.Object({ status: Success, data: Type.Array(TimingView) });
export const TimingResponse = Type.Object({ status: Success, message: Type.String(), data: TimingView });

const SessionView = Type.Object({
  exchange: Type.String(),
  open: Type.Boolean(),
  reason: Type.Enum(['regular', 'special_session', 'weekend', 'holiday']),
  start_time: Nullable(Type.String()),
  end_time: Nullable(Type.String()),
  start_ms: Type.Union([Type.Integer(), Type.Null()]),
  end_ms: Type.Union([Type.Integer(), Type.Null()]),
  holiday: Nullable(Type.String()),
});
export const CheckResponse = Type.Object({
  status: Success,
  data: Type.Object({ date: Type.String(), weekend: Type.Boolean(), sessions: Type.Array(SessionView) }),
});

export const StatsResponse = Type.Object({
  status: Success,
  data: Type.Object({
    freeze_count: Type.Integer(),
    holiday_count: Type.Integer({ description: 'holidays of every year' }),
    timing_count: Type.Integer(),
  }),
});
