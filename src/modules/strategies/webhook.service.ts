/**
 * The strategy webhook as a source of the shared receive pipeline (modules/webhooks), its checks
 * in order (docs/rules/strategies.md#webhook-pipeline): token → lock → IP allowlist → payload (a
 * JSON object of at most 16,384 bytes) → action/mode vocabulary per kind → live enablement →
 * batch de-duplication (60 s) → cooling-off (30 s) → the runner. Every terminal result is audited
 * with a redacted payload, its mode and run in the row's detail; the declared-size and rate-limit
 * refusals happen in the route before this runs and are not (docs/rules/strategies.md#webhook-audit).
 */
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import { fromDbBool } from '../../platform/db/database.js';
import { DEDUPE_WINDOW_MS, seconds, WEBHOOK_MAX_BYTES } from '../../domain/limits.js';
import { CREDENTIAL_PREFIX, credentialDigest } from '../webhooks/credential.js';
import { canonical, readJsonObject, BODY_FAULTS } from '../webhooks/payload.js';
import { WebhookReceiver, type Delivery, type WebhookSource } from '../webhooks/receiver.js';
import type { WebhooksRepository } from '../webhooks/webhooks.repository.js';
import { ipAllowed } from './cidr.js';
import { findLeg, handleSignal, type SignalContract, type SignalRef } from './signal-handler.js';
import type { StrategiesRepository } from './strategies.repository.js';
import type { StrategiesService, WebhookTarget } from './strategies.service.js';
import type { RunStopper } from './run-stop.js';
import type { StrategyRunner } from './strategy-runner.js';
import type { RunnerOutcome } from './strategy-runner.types.js';
import {
  BATCH_ACTIONS,
  RESULT_STATUS,
  RUN_MODES,
  SIGNAL_ACTIONS,
  type RunMode,
  type SignalAction,
  type WebhookResult,
} from './strategy.types.js';

export interface WebhookDeps {
  strategies: StrategiesService;
  /** The strategy read afresh under its lock. */
  repo: StrategiesRepository;
  /** The deliveries' audit and de-duplication rows (the webhooks module's repository). */
  webhooks: WebhooksRepository;
  runner: StrategyRunner;
  stopper: RunStopper;
  contract: SignalContract;
  analyze: () => boolean;
  clock: Clock;
  logger: Logger;
}

/** The strategy webhook: `deliver(token, raw, ip)`. */
export type WebhookService = WebhookReceiver<WebhookTarget, WebhookResult, RunnerOutcome>;

/** The strategy webhook's answer. */
export type WebhookAnswer = Awaited<ReturnType<WebhookService['deliver']>>;

type Step = Promise<RunnerOutcome>;
const refuse = (result: WebhookResult, message: string): RunnerOutcome => ({ result, message });

export function strategyWebhook(deps: WebhookDeps): WebhookService {
  const source: WebhookSource<WebhookTarget, WebhookResult, RunnerOutcome> = {
    name: 'strategy',
    results: RESULT_STATUS,
    ownerField: 'strategy_id',
    unknown: { result: 'rejected_token', message: 'Unknown webhook URL' },
    engineError: {
      result: 'rejected_engine_error',
      message: 'The strategy engine could not accept the delivery',
    },
    recordOnArrival: false,
    find(token) {
      const digest = credentialDigest(CREDENTIAL_PREFIX.strategy, token);
      return digest === undefined ? Promise.resolve(undefined) : deps.strategies.target(digest);
    },
    ownerId: (t) => t.strategy.id,
    async handle(d) {
      const out = await judge(deps, d);
      d.audit.detail.run_id = out.runId;
      return out;
    },
    answer: (o: Partial<RunnerOutcome>) => ({
      ...(o.runId !== undefined ? { run_id: o.runId } : {}),
      ...(o.stopPending !== undefined ? { stop_pending: o.stopPending } : {}),
      ...(o.exits !== undefined ? { exits: o.exits } : {}),
    }),
  };
  return new WebhookReceiver(source, { repo: deps.webhooks, clock: deps.clock, logger: deps.logger });
}

async function judge(deps: WebhookDeps, d: Delivery<WebhookTarget>): Step {
  const { strategy: s } = d.target;
  if (fromDbBool(s.locked))
    return refuse('rejected_locked', 'The webhook of this strategy is locked (kill switch)');
  if (!ipAllowed(d.ip, d.target.allowlist))
    return refuse('rejected_ip', 'Sender address is not in the allowlist');
  const { body, fault } = readJsonObject(d.raw);
  if (fault === 'too_large')
    return refuse('rejected_payload', `Body must be a JSON object of at most ${WEBHOOK_MAX_BYTES} bytes`);
  if (fault === 'not_json') return refuse('rejected_payload', 'Body is not valid JSON');
  if (fault) return refuse('rejected_payload', BODY_FAULTS[fault]);
  const fields = body!;
  d.audit.payload = fields;
  const action = typeof fields.action === 'string' ? fields.action.trim().toLowerCase() : null;
  const mode = typeof fields.mode === 'string' ? fields.mode.trim().toLowerCase() : null;
  d.audit.action = action?.slice(0, 32) ?? null;
  d.audit.detail.mode = mode?.slice(0, 16) ?? undefined;
  if (action === null || action === '')
    return refuse('rejected_invalid_action', '"action" is required (a string)');
  return s.kind === 'batch' ? batch(deps, d, fields, action, mode) : signal(deps, d, fields, action);
}

async function batch(
  deps: WebhookDeps,
  d: Delivery<WebhookTarget>,
  fields: Record<string, unknown>,
  action: string,
  mode: string | null,
): Step {
  const { strategy: s, legs } = d.target;
  if (!(BATCH_ACTIONS as readonly string[]).includes(action))
    return refuse(
      'rejected_invalid_action',
      `A batch strategy accepts action start or stop, not "${action.slice(0, 32)}"`,
    );
  if (action === 'start') {
    if (mode === null)
      return refuse('rejected_invalid_action', '"mode" (sandbox or live) is required to start a batch');
    if (!(RUN_MODES as readonly string[]).includes(mode))
      return refuse('rejected_invalid_action', `mode must be sandbox or live, not "${mode.slice(0, 16)}"`);
    if (mode === 'live' && !fromDbBool(s.live_enabled))
      return refuse('rejected_live_disabled', 'Live batch start is not enabled for this strategy');
  }
  const claim = await d.claim(canonical(fields));
  if (!claim)
    return refuse(
      'rejected_dedupe',
      `Identical delivery already handled within the last ${seconds(DEDUPE_WINDOW_MS)} seconds`,
    );
  // A delivery refused after its claim (cooling-off, engine error) was not handled: its
  // fingerprint is given back, so the sender's retry is judged afresh, not as a duplicate.
  let out: RunnerOutcome;
  try {
    // Both read the strategy afresh once they hold its lock (the cached row may predate a run).
    out = action === 'start' ? await deps.runner.start(s, legs, mode as RunMode) : await deps.stopper.stop(s);
  } catch (err) {
    await claim.release();
    throw err;
  }
  if (out.result !== 'ok') await claim.release();
  return out;
}

function signal(
  deps: WebhookDeps,
  d: Delivery<WebhookTarget>,
  fields: Record<string, unknown>,
  action: string,
): Step {
  const { strategy: s, legs } = d.target;
  if (!(SIGNAL_ACTIONS as readonly string[]).includes(action))
    return Promise.resolve(
      refuse(
        'rejected_invalid_action',
        `A signal strategy accepts ${SIGNAL_ACTIONS.join(', ')}, not "${action.slice(0, 32)}"`,
      ),
    );
  const ref = signalRef(fields);
  if (typeof ref === 'string') return Promise.resolve(refuse('rejected_invalid_action', ref));
  // docs/rules/strategies.md#one-piece-of-work-at-a-time: two copies of an alert arriving
  // together see each other's position, not both open one; a signal never interleaves a stop.
  const leg = findLeg(legs, ref);
  if ('result' in leg) return Promise.resolve(leg);
  return deps.runner.locked(s.id, async () => {
    // The strategy read afresh, with its run, the run's open orders and the leg's position
    // (one statement).
    const read = await deps.repo.signalView(s.id, leg.id);
    return handleSignal(
      deps.runner,
      deps.contract,
      read?.strategy ?? s,
      legs,
      action as SignalAction,
      ref,
      deps.analyze() ? 'sandbox' : 'live',
      read,
    );
  });
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
