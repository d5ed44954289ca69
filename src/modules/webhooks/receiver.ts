/**
 * The receive pipeline every inbound webhook shares (docs/rules/strategies.md#webhook-pipeline,
 * docs/rules/scanner.md#scanner-delivery, docs/rules/flow.md#flow-webhook). The route family
 * (webhooks.routes.ts) has already refused a declared size over the limit and a sender over its
 * rate; here: the credential's digest is looked up, the source judges and dispatches the delivery
 * (its own gates, the body, the de-duplication claim this offers), an unexpected failure becomes
 * the source's engine error, and every outcome is audited with the source and a redacted payload.
 * A source that records deliveries on arrival gets its row first, so a crash part-way leaves a
 * trace; the others write one row at the end.
 */
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import { DEDUPE_WINDOW_MS } from '../../domain/limits.js';
import { auditPayload } from './payload.js';
import type { SourceName, WebhooksRepository } from './webhooks.repository.js';

/** An outcome of a delivery: one of the source's results, and its sentence. */
export interface Outcome<R extends string> {
  result: R;
  message: string;
}

/** Ends a delivery with one of the source's results (thrown from a source's handling). */
export class Refusal<R extends string = string> extends Error {
  constructor(
    readonly result: R,
    message: string,
  ) {
    super(message);
  }
}

/** What a delivery's audit row will hold, filled in as the source learns it. */
export interface DeliveryAudit {
  action: string | null;
  /** The body as it is audited (redacted and capped when written); undefined: none. */
  payload: unknown;
  /** The source's own facts, stored as JSON (undefined keys are left out). */
  detail: Record<string, unknown>;
}

/** A de-duplication claim that went ahead: given back when the delivery was not handled after all. */
export interface Claim {
  release(): Promise<void>;
}

/** One delivery as a source handles it. */
export interface Delivery<T> {
  /** The strategy, scanner or flow the credential names. */
  readonly target: T;
  readonly raw: string | undefined;
  readonly ip: string;
  /** What else the request carried for the source (a flow's `?secret=` and path symbol). */
  readonly params: Readonly<Record<string, string | undefined>>;
  /** The delivery's audit row when the source records deliveries on arrival. */
  readonly id: number | undefined;
  readonly audit: DeliveryAudit;
  /**
   * Claims the delivery's fingerprint (SHA-256 of `canonical`) for the de-duplication window:
   * undefined for a duplicate of one handled within it.
   */
  claim(canonical: string): Promise<Claim | undefined>;
}

/** A source of inbound webhooks: its credential, its results, its parser and its dispatch. */
export interface WebhookSource<T, R extends string, O extends Outcome<R> = Outcome<R>> {
  readonly name: SourceName;
  /** Every result and its HTTP status. */
  readonly results: Readonly<Record<R, number>>;
  /** The answer's field that names the owner: `strategy_id`, `scanner_id`, `flow_id`. */
  readonly ownerField: string;
  /** The refusal of a credential that names nothing. */
  readonly unknown: Outcome<R>;
  /** The outcome of an unexpected failure. */
  readonly engineError: Outcome<R>;
  /** Write the audit row when the delivery arrives (completed with the outcome), or once at the end. */
  readonly recordOnArrival: boolean;
  /** The owner a credential names, or undefined (a malformed credential is never looked up). */
  find(credential: string): Promise<T | undefined>;
  ownerId(target: T): number;
  /** Judges and dispatches the delivery; a {@link Refusal} ends it with that result. */
  handle(d: Delivery<T>): Promise<O>;
  /** The answer's own fields after status, result, message and the owner. */
  answer(
    outcome: O | Outcome<R>,
    d: { id: number | undefined; audit: DeliveryAudit },
  ): Record<string, unknown>;
}

/** What a delivery answers: the HTTP status and the body. */
export interface DeliveryAnswer<R extends string> {
  http: number;
  body: { status: 'success' | 'error'; result: R; message: string } & Record<string, unknown>;
}

export interface ReceiverDeps {
  repo: WebhooksRepository;
  clock: Clock;
  logger: Logger;
}

/** Receives a source's deliveries. */
export class WebhookReceiver<T, R extends string, O extends Outcome<R> = Outcome<R>> {
  constructor(
    private readonly source: WebhookSource<T, R, O>,
    private readonly deps: ReceiverDeps,
  ) {}

  async deliver(
    credential: string,
    raw: string | undefined,
    ip: string,
    params: Readonly<Record<string, string | undefined>> = {},
  ): Promise<DeliveryAnswer<R>> {
    const started = performance.now();
    const { source } = this;
    const { repo, clock, logger } = this.deps;
    const name = source.name;
    const audit: DeliveryAudit = { action: null, payload: undefined, detail: {} };
    let ownerId: number | null = null;
    const id = source.recordOnArrival
      ? await repo
          .openDelivery({
            source: name,
            owner_id: null,
            ts: clock.now(),
            ip: ip.slice(0, 64),
            result: 'received',
            http_status: 0,
            action: null,
            message: 'received',
            payload: null,
            detail: null,
            duration_ms: 0,
          })
          .catch((err: unknown) => {
            logger.error({ err }, `${name} delivery not audited`);
            return undefined;
          })
      : undefined;
    let outcome: O | Outcome<R>;
    try {
      const target = await source.find(credential);
      if (target === undefined) throw new Refusal(source.unknown.result, source.unknown.message);
      ownerId = source.ownerId(target);
      const owner = ownerId;
      outcome = await source.handle({
        target,
        raw,
        ip,
        params,
        id,
        audit,
        claim: (canonical) => this.claim(owner, canonical),
      });
    } catch (err) {
      if (err instanceof Refusal) outcome = { result: err.result as R, message: err.message };
      else {
        logger.error({ err, [ownerKey(name)]: ownerId }, `${name} webhook: engine error`);
        outcome = source.engineError;
      }
    }
    const http = source.results[outcome.result];
    const row = {
      owner_id: ownerId,
      result: outcome.result,
      http_status: http,
      action: audit.action,
      message: outcome.message.slice(0, 1000),
      payload: audit.payload === undefined ? null : auditPayload(audit.payload),
      detail: detailJson(audit.detail),
      duration_ms: performance.now() - started,
    };
    const written = source.recordOnArrival
      ? id === undefined
        ? undefined
        : repo.completeDelivery(id, row)
      : repo.insertDelivery({ source: name, ts: clock.now(), ip: ip.slice(0, 64), ...row });
    await written?.catch((err: unknown) =>
      logger.error({ err, [ownerKey(name)]: ownerId }, `${name} delivery not audited`),
    );
    return {
      http,
      body: {
        status: outcome.result === 'ok' ? 'success' : 'error',
        result: outcome.result,
        message: outcome.message,
        ...(ownerId !== null ? { [source.ownerField]: ownerId } : {}),
        ...source.answer(outcome, { id, audit }),
      },
    };
  }

  private async claim(ownerId: number, canonical: string): Promise<Claim | undefined> {
    const { repo, clock, logger } = this.deps;
    const key = {
      source: this.source.name,
      ownerId,
      fingerprint: createHash('sha256').update(canonical).digest('hex'),
    };
    const at = clock.now();
    if (!(await repo.claim(key, at, DEDUPE_WINDOW_MS))) return undefined;
    return {
      release: () =>
        repo.release(key, at).catch((err: unknown) => {
          logger.warn(
            { err, [ownerKey(this.source.name)]: ownerId },
            'webhook de-duplication claim not released',
          );
        }),
    };
  }
}

/** The log field that names a source's owner: `strategyId`, `scannerId`, `flowId`. */
const ownerKey = (name: SourceName) => `${name}Id`;

/** The detail as stored: JSON without the undefined keys, null when nothing is left. */
function detailJson(detail: Record<string, unknown>): string | null {
  const kept = Object.entries(detail).filter(([, v]) => v !== undefined);
  return kept.length === 0 ? null : JSON.stringify(Object.fromEntries(kept));
}

/** A stored detail read back (null: none). */
export function readDetail(detail: string | null): Record<string, unknown> {
  return detail === null ? {} : (JSON.parse(detail) as Record<string, unknown>);
}
