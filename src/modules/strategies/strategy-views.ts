/**
 * How a strategy, its runs and its events are shown (the management routes and
 * `/api/v1/strategy/events`): times as ISO-8601 UTC, database booleans as booleans, JSON columns
 * parsed. Never the webhook token or its digest.
 */
import type { Static } from 'typebox';
import { fromDbBool } from '../../platform/db/database.js';
import type { Action } from '../../domain/orders.js';
import type { EventView, LegView, RunView, StrategyView } from './strategy-answers.schema.js';
import type { Direction, RunMode, Severity, StrategyKind } from './strategy.types.js';
import type { EventRow, LegRow, RunRow, StrategyOrderRow, StrategyRow } from './strategies.repository.js';

export function toView(s: StrategyRow, legs: LegRow[]): Static<typeof StrategyView> {
  return {
    id: s.id,
    name: s.name,
    kind: s.kind as StrategyKind,
    product: s.product,
    direction: s.direction as Direction,
    ip_allowlist: JSON.parse(s.ip_allowlist) as string[],
    webhook_locked: fromDbBool(s.locked),
    live_enabled: fromDbBool(s.live_enabled),
    status: s.active_run_id === null ? 'idle' : 'running',
    active_run_id: s.active_run_id,
    legs: legs.map((l): Static<typeof LegView> => ({
      id: l.id,
      leg_type: l.leg_type as Static<typeof LegView>['leg_type'],
      symbol: l.symbol,
      exchange: l.exchange,
      underlying: l.underlying,
      expiry_rank: l.expiry_rank,
      option_type: l.option_type,
      strike_offset: l.strike_offset,
      quantity: l.quantity,
      quantity_unit: l.quantity_unit as Static<typeof LegView>['quantity_unit'],
      side: l.side as Action | null,
    })),
    created_at: new Date(s.created_at).toISOString(),
    updated_at: new Date(s.updated_at).toISOString(),
  };
}

export const toRunView = (r: RunRow): Static<typeof RunView> => ({
  id: r.id,
  mode: r.mode as RunMode,
  status: r.status as Static<typeof RunView>['status'],
  started_at: new Date(r.started_at).toISOString(),
  stop_requested_at: r.stop_requested_at === null ? null : new Date(r.stop_requested_at).toISOString(),
  stopped_at: r.stopped_at === null ? null : new Date(r.stopped_at).toISOString(),
});

export const toEventView = (e: EventRow): Static<typeof EventView> => ({
  id: e.id,
  run_id: e.run_id,
  strategy_id: e.strategy_id,
  ts: new Date(e.ts).toISOString(),
  kind: e.kind,
  severity: e.severity as Severity,
  leg_id: e.leg_id,
  message: e.message,
  payload: e.payload === null ? null : (JSON.parse(e.payload) as Record<string, unknown>),
});

/**
 * A strategy as `/api/v1/strategy/list` and `status` show it: the management view with
 * OpenAlgo's names added (`strategy_kind`, `current_run_id`, `pricetype`: strategy orders are
 * MARKET orders) and the last run that stopped.
 */
export const toApiStrategyView = (s: StrategyRow, legs: LegRow[], lastStopped: RunRow | undefined) => ({
  ...toView(s, legs),
  strategy_kind: s.kind,
  current_run_id: s.active_run_id,
  pricetype: 'MARKET',
  last_finalized_run: lastStopped ? toApiRunView(lastStopped) : null,
});

/** A run as the API shows it: the management view with its strategy. */
export const toApiRunView = (r: RunRow) => ({ ...toRunView(r), strategy_id: r.strategy_id });

/**
 * An order of a run as `/api/v1/strategy/orders` shows it, in OpenAlgo's names (`kind`,
 * `broker_order_id`, `qty`); `status` is the strategy order's own (`recorded`, `placed`,
 * `filled`, `dead`, `rejected`, `failed`).
 */
export const toApiOrderView = (o: StrategyOrderRow, product: string) => ({
  id: o.id,
  run_id: o.run_id,
  leg_id: o.leg_id,
  kind: o.purpose,
  broker_order_id: o.order_id,
  symbol: o.symbol,
  exchange: o.exchange,
  action: o.action,
  qty: o.quantity,
  product,
  pricetype: 'MARKET',
  price: 0,
  trigger_price: 0,
  status: o.status,
  filled_quantity: o.filled_quantity,
  message: o.message,
  created_at: new Date(o.created_at).toISOString(),
  updated_at: new Date(o.updated_at).toISOString(),
});
