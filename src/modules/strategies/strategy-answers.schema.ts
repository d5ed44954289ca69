/**
 * What the strategy management routes answer (`/strategy/api/strategies…`), as response schemas:
 * the views of strategy-views.ts, a delivery as the audit shows it, a run action's outcome and the
 * webhook credential shown once. Declared, they are what the API reference documents and what the
 * console's generated types read (docs/rules/web.md#typed-api); the serializer writes exactly
 * these fields.
 */
import { Type, type TProperties, type TSchema } from 'typebox';
import { ACTIONS } from '../../domain/orders.js';
import { DIRECTIONS, RESULT_STATUS, RUN_MODES, SEVERITIES, STRATEGY_KINDS } from './strategy.types.js';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/** One of `values` (a string enum: the generated types name each value). */
const Literals = <const T extends readonly string[]>(values: T) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
const Iso = Type.String({ description: 'ISO-8601 UTC' });

export const LegView = Type.Object({
  id: Type.Integer(),
  leg_type: Literals(['instrument', 'derivative']),
  symbol: Nullable(Type.String()),
  exchange: Type.String(),
  underlying: Nullable(Type.String()),
  expiry_rank: Nullable(Type.Integer()),
  option_type: Nullable(Type.String()),
  strike_offset: Nullable(Type.Integer()),
  quantity: Type.Integer(),
  quantity_unit: Literals(['units', 'lots']),
  side: Nullable(Literals(ACTIONS)),
});

const strategyFields = {
  id: Type.Integer(),
  name: Type.String(),
  kind: Literals(STRATEGY_KINDS),
  product: Type.String(),
  direction: Literals(DIRECTIONS),
  ip_allowlist: Type.Array(Type.String()),
  webhook_locked: Type.Boolean(),
  live_enabled: Type.Boolean(),
  status: Literals(['idle', 'running']),
  active_run_id: Nullable(Type.Integer()),
  legs: Type.Array(LegView),
  created_at: Iso,
  updated_at: Iso,
};
export const StrategyView = Type.Object(strategyFields);

/** A webhook credential as creation and rotation show it (once). */
const issuedFields = { webhook_token: Type.String(), webhook_url: Type.String() };
export const Issued = Type.Object(issuedFields);
export const CreatedView = Type.Object({ ...strategyFields, ...issuedFields });

export const RunView = Type.Object({
  id: Type.Integer(),
  mode: Literals(RUN_MODES),
  status: Literals(['running', 'stop_pending', 'stopped']),
  started_at: Iso,
  stop_requested_at: Nullable(Iso),
  stopped_at: Nullable(Iso),
});

export const EventView = Type.Object({
  id: Type.Integer(),
  run_id: Nullable(Type.Integer()),
  strategy_id: Type.Integer(),
  ts: Iso,
  kind: Type.String(),
  severity: Literals(SEVERITIES),
  leg_id: Nullable(Type.Integer()),
  message: Type.String(),
  payload: Nullable(Type.Record(Type.String(), Type.Unknown())),
});

export const DeliveryView = Type.Object({
  id: Type.Integer(),
  ts: Iso,
  ip: Type.String(),
  result: Type.String(),
  http_status: Type.Integer(),
  action: Nullable(Type.String()),
  mode: Nullable(Type.String()),
  run_id: Nullable(Type.Integer()),
  message: Type.String(),
  payload: Type.Unknown({ description: 'the body as audited: credential-like fields redacted' }),
  duration_ms: Type.Number(),
});

/** An exit of a stop or a leg's close: sent, or refused with the reason. */
export const ExitView = Type.Object({
  leg_id: Type.Integer(),
  symbol: Type.String(),
  exchange: Type.String(),
  action: Literals(ACTIONS),
  quantity: Type.Integer(),
  status: Literals(['placed', 'rejected']),
  orderid: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
});

/** What a run action (start, stop) answers, on every status: the webhook's fields. */
export const RunOutcome = Type.Object({
  status: Literals(['success', 'error']),
  result: Literals(Object.keys(RESULT_STATUS) as (keyof typeof RESULT_STATUS)[]),
  message: Type.String(),
  strategy_id: Type.Integer(),
  run_id: Type.Optional(Type.Integer()),
  stop_pending: Type.Optional(Type.Boolean()),
  exits: Type.Optional(Type.Array(ExitView)),
});

/** A success answer with these fields. */
export const ok = <T extends TProperties>(props: T) =>
  Type.Object({ status: Type.Literal('success'), ...props });
