import { Type } from 'typebox';
import { DIRECTIONS, EVENT_KINDS, RUN_MODES, SEVERITIES, STRATEGY_KINDS } from './strategy.types.js';
import { ACTIONS, PRODUCTS } from '../../domain/orders.js';
import { literalUnion } from '../../platform/http/literal-union.js';
import { DERIVATIVE_TYPES } from '../../domain/instruments.js';
import { STRATEGY_EVENTS_MAX } from '../../domain/limits.js';

export const LegBody = Type.Object(
  {
    symbol: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    exchange: Type.String({ minLength: 2, maxLength: 16 }),
    quantity: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
    quantity_unit: Type.Optional(literalUnion(['units', 'lots'] as const)),
    side: Type.Optional(literalUnion(ACTIONS)),
    underlying: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    expiry_rank: Type.Optional(
      Type.Union([
        Type.Integer({ minimum: 0, maximum: 5 }),
        literalUnion(['current', 'next', 'far'] as const),
      ]),
    ),
    option_type: Type.Optional(literalUnion(DERIVATIVE_TYPES)),
    strike_offset: Type.Optional(Type.Integer({ minimum: -50, maximum: 50 })),
  },
  { additionalProperties: false },
);

const Allowlist = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 });

export const CreateStrategyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    kind: literalUnion(STRATEGY_KINDS),
    product: Type.Optional(literalUnion(PRODUCTS)),
    direction: Type.Optional(literalUnion(DIRECTIONS)),
    legs: Type.Array(LegBody, { minItems: 1, maxItems: 20 }),
    ip_allowlist: Type.Optional(Allowlist),
  },
  { additionalProperties: false },
);

export const UpdateStrategyBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    product: Type.Optional(literalUnion(PRODUCTS)),
    direction: Type.Optional(literalUnion(DIRECTIONS)),
    legs: Type.Optional(Type.Array(LegBody, { minItems: 1, maxItems: 20 })),
    ip_allowlist: Type.Optional(Allowlist),
  },
  { additionalProperties: false },
);

export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1 }) });
export const LockBody = Type.Object({ locked: Type.Boolean() }, { additionalProperties: false });
export const StartBody = Type.Object({ mode: literalUnion(RUN_MODES) }, { additionalProperties: false });
export const LiveBody = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false });

export const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: STRATEGY_EVENTS_MAX })),
  run_id: Type.Optional(Type.Integer({ minimum: 1 })),
  kind: Type.Optional(literalUnion(EVENT_KINDS)),
  severity: Type.Optional(literalUnion(SEVERITIES)),
});

/** `POST /api/v1/strategy/events`: unknown kind or severity, or limit outside 1-1000 → 400 (never clamped). */
export const StrategyEventsBody = Type.Object({
  apikey: Type.String({ minLength: 1, maxLength: 256 }),
  strategy_id: Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1 }),
  run_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1 })),
  kind: Type.Optional(literalUnion(EVENT_KINDS)),
  severity: Type.Optional(literalUnion(SEVERITIES)),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: STRATEGY_EVENTS_MAX })),
});

const StrategyId = Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1 });
const ApiKey = Type.String({ minLength: 1, maxLength: 256 });

/** `POST /api/v1/strategy/list`: optional filters by status and by name (case-insensitive part). */
export const StrategyListApiBody = Type.Object({
  apikey: ApiKey,
  status: Type.Optional(literalUnion(['idle', 'running'] as const)),
  q: Type.Optional(Type.String({ maxLength: 100 })),
});

/** `status`, `stop` and `close_all`: the strategy alone. */
export const StrategyApiBody = Type.Object({ apikey: ApiKey, strategy_id: StrategyId });

/** `POST /api/v1/strategy/start`: `mode` is required, without a default (docs/rules/strategies.md#batch-start-mode). */
export const StrategyStartApiBody = Type.Object({
  apikey: ApiKey,
  strategy_id: StrategyId,
  mode: literalUnion(RUN_MODES),
});

/** `POST /api/v1/strategy/close_leg`: the leg by its configuration id. */
export const StrategyCloseLegApiBody = Type.Object({
  apikey: ApiKey,
  strategy_id: StrategyId,
  leg_id: StrategyId,
});

/** `POST /api/v1/strategy/runs`: newest first, `limit` 1-1000 (default 100). */
export const StrategyRunsApiBody = Type.Object({
  apikey: ApiKey,
  strategy_id: StrategyId,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: STRATEGY_EVENTS_MAX })),
});

/** `POST /api/v1/strategy/orders`: newest first, of one run or all, `limit` 1-1000 (default 500). */
export const StrategyOrdersApiBody = Type.Object({
  apikey: ApiKey,
  strategy_id: StrategyId,
  run_id: Type.Optional(StrategyId),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: STRATEGY_EVENTS_MAX })),
});
