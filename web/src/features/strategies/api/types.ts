/**
 * The strategy routes' answers, typed by hand: their route schemas declare a loose object
 * (`{ [key: string]: unknown }` in web/src/api/openapi.d.ts), so `Answer<…>` says nothing yet.
 * These shapes are the server's views (src/modules/strategies/strategy-views.ts). They go, each
 * replaced by `Answer<'/strategy/api/…'>`, once the server's strategy routes declare response
 * schemas (docs/rules/web.md#typed-api). Nothing else in the console types a strategy answer.
 */
import type { Direction, Severity, StrategyKind } from '../../../../../src/modules/strategies/strategy.types';

export interface Leg {
  id: number;
  leg_type: 'instrument' | 'derivative';
  symbol: string | null;
  exchange: string;
  underlying: string | null;
  expiry_rank: number | null;
  option_type: string | null;
  strike_offset: number | null;
  quantity: number;
  quantity_unit: 'units' | 'lots';
  side: 'BUY' | 'SELL' | null;
}

export interface Strategy {
  id: number;
  name: string;
  kind: StrategyKind;
  product: string;
  direction: Direction;
  ip_allowlist: string[];
  webhook_locked: boolean;
  live_enabled: boolean;
  status: 'idle' | 'running';
  active_run_id: number | null;
  legs: Leg[];
  created_at: string;
  updated_at: string;
}

export type RunStatus = 'running' | 'stop_pending' | 'stopped';

export interface Run {
  id: number;
  mode: 'sandbox' | 'live';
  status: RunStatus;
  started_at: string;
  stop_requested_at: string | null;
  stopped_at: string | null;
}

export interface StrategyEvent {
  id: number;
  run_id: number | null;
  strategy_id: number;
  ts: string;
  kind: string;
  severity: Severity;
  leg_id: number | null;
  message: string;
  payload: Record<string, unknown> | null;
}

export interface Delivery {
  id: number;
  ts: string;
  ip: string;
  result: string;
  http_status: number;
  action: string | null;
  mode: string | null;
  run_id: number | null;
  message: string;
  payload: unknown;
  duration_ms: number;
}

/** What a run action (start, stop) answers, on every status: the webhook's fields. */
export interface RunAnswer {
  status: 'success' | 'error';
  result: string;
  message: string;
  strategy_id?: number;
  run_id?: number;
  stop_pending?: boolean;
  exits?: Array<{ ok?: boolean; error?: string; symbol?: string }>;
}

/** A webhook credential as creation and rotation answer it (shown once). */
export interface Issued {
  webhook_token: string;
  webhook_url: string;
}

/** `GET /strategy/api/strategies`. */
export interface StrategiesAnswer {
  data: Strategy[];
}
/** `GET /strategy/api/strategies/{id}`. */
export interface StrategyAnswer {
  data: Strategy;
}
/** `POST /strategy/api/strategies`: the strategy with its webhook credentials, shown once. */
export interface CreatedAnswer {
  data: Strategy & Issued;
}
/** `POST /strategy/api/strategies/{id}/rotate-token`. */
export interface RotatedAnswer {
  data: Issued;
}
/** `GET /strategy/api/strategies/{id}/runs`. */
export interface RunsAnswer {
  data: Run[];
}
/** `GET /strategy/api/strategies/{id}/events`. */
export interface EventsAnswer {
  data: StrategyEvent[];
}
/** `GET /strategy/api/strategies/{id}/deliveries`. */
export interface DeliveriesAnswer {
  data: Delivery[];
}
