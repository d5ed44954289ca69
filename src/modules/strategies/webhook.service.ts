/**
 * The strategy webhook's validation pipeline (docs/rules/strategies.md#webhook-pipeline), in
 * order: token → lock → IP allowlist → payload (a JSON object of at most 16,384 bytes) →
 * action/mode vocabulary per kind → live enablement → batch de-duplication (60 s) → cooling-off
 * (30 s) → the runner. Every terminal result is audited in `webhook_deliveries` with a redacted
 * payload; the declared-size and rate-limit refusals happen in the route before this runs and are
 * not (docs/rules/strategies.md#webhook-audit).
 */
import type { StrategiesRepository } from './strategies.repository.js';
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import { fromDbBool } from '../../platform/db/database.js';
import { ipAllowed } from './cidr.js';
import { handleSignal, type SignalContract, type SignalRef } from './signal-handler.js';
import type { StrategiesService } from './strategies.service.js';
import type { RunStopper } from './run-stop.js';
import type { StrategyRunner } from './strategy-runner.js';
import type { RunnerOutcome } from './strategy-runner.types.js';
import { tokenDigest } from './strategy-token.js';
import {
  BATCH_ACTIONS,
  RESULT_STATUS,
  RUN_MODES,
  SIGNAL_ACTIONS,
  type RunMode,
  type SignalAction,
  type WebhookResult,
} from './strategy.types.js';
import { DEDUPE_WINDOW_MS, seconds, WEBHOOK_MAX_BYTES } from '../../domain/limits.js';
import { auditPayload, canonical, holdsNul } from '../../platform/http/webhook-body.js';

export interface WebhookAnswer {
  http: number;
  body: {
    status: 'success' | 'error';
    result: WebhookResult;
    message: string;
    strategy_id?: number;
    run_id?: number;
    stop_pending?: boolean;
    exits?: unknown[];
  };
}

export interface WebhookDeps {
  strategies: StrategiesService;
  /** The deliveries' audit and de-duplication rows (the strategies module's repository). */
  repo: StrategiesRepository;
  runner: StrategyRunner;
  stopper: RunStopper;
  contract: SignalContract;
  analyze: () => boolean;
  clock: Clock;
  logger: Logger;
}

export class WebhookService {
  constructor(private readonly deps: WebhookDeps) {}

  async deliver(token: string, raw: string | undefined, ip: string): Promise<WebhookAnswer> {
    const started = performance.now();
    const audit: { strategyId: number | null; action: string | null; mode: string | null; payload: unknown } =
      {
        strategyId: null,
        action: null,
        mode: null,
        payload: null,
      };
    let outcome: RunnerOutcome;
    try {
      outcome = await this.pipeline(token, raw, ip, audit);
    } catch (err) {
      this.deps.logger.error({ err, strategyId: audit.strategyId }, 'strategy webhook: engine error');
      outcome = {
        result: 'rejected_engine_error',
        message: 'The strategy engine could not accept the delivery',
      };
    }
    const http = RESULT_STATUS[outcome.result];
    const body: WebhookAnswer['body'] = {
      status: outcome.result === 'ok' ? 'success' : 'error',
      result: outcome.result,
      message: outcome.message,
      ...(audit.strategyId !== null ? { strategy_id: audit.strategyId } : {}),
      ...(outcome.runId !== undefined ? { run_id: outcome.runId } : {}),
      ...(outcome.stopPending !== undefined ? { stop_pending: outcome.stopPending } : {}),
      ...(outcome.exits !== undefined ? { exits: outcome.exits } : {}),
    };
    await this.deps.repo
      .insertDelivery({
        strategy_id: audit.strategyId,
        ts: this.deps.clock.now(),
        ip: ip.slice(0, 64),
        result: outcome.result,
        http_status: http,
        action: audit.action?.slice(0, 32) ?? null,
        mode: audit.mode?.slice(0, 16) ?? null,
        run_id: outcome.runId ?? null,
        message: outcome.message.slice(0, 1000),
        payload: audit.payload === null ? null : auditPayload(audit.payload),
        duration_ms: performance.now() - started,
      })
      .catch((err: unknown) =>
        this.deps.logger.error({ err, strategyId: audit.strategyId }, 'webhook delivery not audited'),
      );
    return { http, body };
  }

  private async pipeline(
    token: string,
    raw: string | undefined,
    ip: string,
    audit: { strategyId: number | null; action: string | null; mode: string | null; payload: unknown },
  ): Promise<RunnerOutcome> {
    const refuse = (result: WebhookResult, message: string): RunnerOutcome => ({ result, message });
    const digest = tokenDigest(token);
    const target = digest === undefined ? undefined : await this.deps.strategies.target(digest);
    if (!target) return refuse('rejected_token', 'Unknown webhook URL');
    const s = target.strategy;
    audit.strategyId = s.id;
    if (fromDbBool(s.locked))
      return refuse('rejected_locked', 'The webhook of this strategy is locked (kill switch)');
    if (!ipAllowed(ip, target.allowlist))
      return refuse('rejected_ip', 'Sender address is not in the allowlist');

    if (raw === undefined || Buffer.byteLength(raw) > WEBHOOK_MAX_BYTES) {
      return refuse('rejected_payload', `Body must be a JSON object of at most ${WEBHOOK_MAX_BYTES} bytes`);
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return refuse('rejected_payload', 'Body is not valid JSON');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return refuse('rejected_payload', 'Body must be a JSON object');
    }
    // NUL cannot be stored in a PostgreSQL text column: such a body could not even be audited.
    if (holdsNul(body)) return refuse('rejected_payload', 'Body must not contain NUL characters');
    audit.payload = body;
    const fields = body as Record<string, unknown>;
    const action = typeof fields.action === 'string' ? fields.action.trim().toLowerCase() : null;
    const mode = typeof fields.mode === 'string' ? fields.mode.trim().toLowerCase() : null;
    audit.action = action;
    audit.mode = mode;
    if (action === null || action === '')
      return refuse('rejected_invalid_action', '"action" is required (a string)');

    if (s.kind === 'batch') {
      if (!(BATCH_ACTIONS as readonly string[]).includes(action)) {
        return refuse(
          'rejected_invalid_action',
          `A batch strategy accepts action start or stop, not "${action.slice(0, 32)}"`,
        );
      }
      if (action === 'start') {
        if (mode === null)
          return refuse('rejected_invalid_action', '"mode" (sandbox or live) is required to start a batch');
        if (!(RUN_MODES as readonly string[]).includes(mode)) {
          return refuse(
            'rejected_invalid_action',
            `mode must be sandbox or live, not "${mode.slice(0, 16)}"`,
          );
        }
        if (mode === 'live' && !fromDbBool(s.live_enabled)) {
          return refuse('rejected_live_disabled', 'Live batch start is not enabled for this strategy');
        }
      }
      const repo = this.deps.repo;
      const fingerprint = createHash('sha256').update(canonical(body)).digest('hex');
      const claimedAt = this.deps.clock.now();
      if (!(await repo.claimDelivery(s.id, fingerprint, claimedAt, DEDUPE_WINDOW_MS))) {
        return refuse(
          'rejected_dedupe',
          `Identical delivery already handled within the last ${seconds(DEDUPE_WINDOW_MS)} seconds`,
        );
      }
      // A delivery refused after its claim (cooling-off, engine error) was not handled: its
      // fingerprint is given back, so the sender's retry is judged afresh, not as a duplicate.
      const release = () =>
        repo.releaseDelivery(s.id, fingerprint, claimedAt).catch((err: unknown) => {
          this.deps.logger.warn({ err, strategyId: s.id }, 'webhook de-duplication claim not released');
        });
      let out: RunnerOutcome;
      try {
        // Both read the strategy afresh once they hold its lock (the cached row may predate a run).
        out =
          action === 'start'
            ? await this.deps.runner.start(s, target.legs, mode as RunMode)
            : await this.deps.stopper.stop(s);
      } catch (err) {
        await release();
        throw err;
      }
      if (out.result !== 'ok') await release();
      return out;
    }

    if (!(SIGNAL_ACTIONS as readonly string[]).includes(action)) {
      return refuse(
        'rejected_invalid_action',
        `A signal strategy accepts ${SIGNAL_ACTIONS.join(', ')}, not "${action.slice(0, 32)}"`,
      );
    }
    const ref = signalRef(fields);
    if (typeof ref === 'string') return refuse('rejected_invalid_action', ref);
    // docs/rules/strategies.md#one-piece-of-work-at-a-time: two copies of an alert arriving
    // together see each other's position, not both open one; a signal never interleaves a stop.
    return this.deps.runner.locked(s.id, async () => {
      const fresh = (await this.deps.repo.find(s.id)) ?? s;
      return handleSignal(
        this.deps.runner,
        this.deps.contract,
        fresh,
        target.legs,
        action as SignalAction,
        ref,
        this.deps.analyze() ? 'sandbox' : 'live',
      );
    });
  }
}

function signalRef(f: Record<string, unknown>): SignalRef | string {
  const legId = f.leg_id ?? null;
  if (legId !== null && !(Number.isSafeInteger(legId) && (legId as number) > 0))
    return 'leg_id must be a positive integer';
  const str = (v: unknown, name: string) => {
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string' || v.length > 64) return `${name} must be a string of at most 64 characters`;
    return v;
  };
  const symbol = str(f.symbol, 'symbol');
  const exchange = str(f.exchange, 'exchange');
  if (symbol?.includes(' must ')) return symbol;
  if (exchange?.includes(' must ')) return exchange;
  return { leg_id: legId as number | null, symbol, exchange };
}
