/**
 * The closed vocabularies of strategies: kinds, products, directions, webhook actions and result
 * codes, and the event kinds of the trail, each with its fixed severity.
 */
import type { Product } from '../../domain/orders.js';

export const STRATEGY_KINDS = ['batch', 'signal'] as const;
export type StrategyKind = (typeof STRATEGY_KINDS)[number];

/** A strategy trades in one product (its exits must close what its entries opened). */
export type StrategyProduct = Product;

export const DIRECTIONS = ['both', 'long_only', 'short_only'] as const;
export type Direction = (typeof DIRECTIONS)[number];

export const BATCH_ACTIONS = ['start', 'stop'] as const;
export const SIGNAL_ACTIONS = ['long_entry', 'long_exit', 'short_entry', 'short_exit'] as const;
export type SignalAction = (typeof SIGNAL_ACTIONS)[number];
export const RUN_MODES = ['sandbox', 'live'] as const;
export type RunMode = (typeof RUN_MODES)[number];

/** Spec, "Strategy webhook result codes", with their HTTP statuses. */
export const RESULT_STATUS = {
  ok: 200,
  rejected_token: 404,
  rejected_locked: 403,
  rejected_ip: 403,
  rejected_payload: 400,
  rejected_invalid_action: 400,
  rejected_live_disabled: 403,
  rejected_dedupe: 200,
  rejected_cooling_off: 409,
  rejected_engine_error: 500,
  rate_limited: 429,
} as const;
export type WebhookResult = keyof typeof RESULT_STATUS;

export const SEVERITIES = ['info', 'warn', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

/**
 * Every event kind and its severity. The spec's six (stop intent, confirmed stop, stop failure,
 * unrecorded acknowledgement, rejected flip exit, expiry fallback) plus the lifecycle and
 * configuration kinds of this service. Configuration events carry `run_id` null.
 */
export const EVENT_SEVERITY = {
  // The spec's kinds.
  run_stop_requested: 'info',
  run_stopped: 'info',
  run_stop_failed: 'critical',
  order_ack_unrecorded: 'critical',
  flip_outgoing_exit_rejected: 'critical',
  leg_expiry_fallback: 'warn',
  // Run lifecycle.
  run_started: 'info',
  entry_placed: 'info',
  entry_rejected: 'warn',
  exit_placed: 'info',
  exit_rejected: 'warn',
  /** An acknowledged order was later rejected, cancelled or expired (with what it filled). */
  order_dead: 'warn',
  /** A BUY (hedge) leg of a batch start was refused, so its SELL legs were not sent. */
  entries_withheld: 'critical',
  /**
   * An order sent before a crash, whose answer was never recorded, was found at the sandbox or
   * the broker by its reference and recorded now.
   */
  order_recovered: 'warn',
  /**
   * An order's intent was recorded before a crash, but neither the sandbox nor the broker holds
   * an order with its reference: it was never placed (marked failed). The run's exposure does not
   * count it; what the strategy meant to do with it did not happen.
   */
  order_not_placed: 'critical',
  /**
   * An order intent a crash left unsettled could not be looked up (the broker's order book
   * unavailable): its leg is held, and signals on it refused, until a later pass can.
   */
  order_unconfirmed: 'warn',
  signal_noop: 'info',
  // Configuration (run_id null).
  strategy_created: 'info',
  strategy_updated: 'info',
  token_rotated: 'info',
  webhook_locked: 'warn',
  webhook_unlocked: 'info',
  live_enabled: 'warn',
  live_disabled: 'info',
  strategy_deleted: 'warn',
} as const satisfies Record<string, Severity>;
export type EventKind = keyof typeof EVENT_SEVERITY;
export const EVENT_KINDS = Object.keys(EVENT_SEVERITY) as EventKind[];
