/**
 * Strategy management (docs/rules/strategies.md#strategy-management): create, read, update,
 * delete, token rotation, the webhook lock and the live switch, each configuration change written
 * to the event trail (`run_id` null). Another user's strategy is the same 404 as a missing one.
 * The webhook token is shown once (creation, rotation); only its digest is kept, and the
 * webhook's digest → strategy cache is invalidated on every instance when a strategy changes.
 */
import type { Updateable } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { StrategiesTable } from '../../db/schema.js';
import type { Clock } from '../../platform/clock.js';
import { toDbBool } from '../../platform/db/database.js';
import {
  badRequest,
  strategyNameTaken,
  strategyNotFound as noSuchStrategy,
  strategyRunning,
} from '../../platform/errors.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import { normaliseCidr, parseAllowlist, type Cidr } from './cidr.js';
import type { LegRow, NewEvent, StrategiesRepository, StrategyRow } from './strategies.repository.js';
import { checkLegs, type InstrumentCheck, type LegInput } from './strategy-legs.js';
import { CREDENTIAL_PREFIX, issueCredential, webhookUrl } from '../webhooks/credential.js';
import { readDetail } from '../webhooks/receiver.js';
import type { WebhooksRepository } from '../webhooks/webhooks.repository.js';
import {
  EVENT_SEVERITY,
  type Direction,
  type EventKind,
  type StrategyKind,
  type StrategyProduct,
} from './strategy.types.js';
import { toEventView, toRunView, toView } from './strategy-views.js';

const TOPIC = 'strategy-token';
const MAX_ALLOWLIST = 50;

export interface StrategyInput {
  name: string;
  kind: StrategyKind;
  product?: StrategyProduct | undefined;
  direction?: Direction | undefined;
  legs: LegInput[];
  ip_allowlist?: string[] | undefined;
}

export type StrategyUpdate = Partial<Omit<StrategyInput, 'kind'>>;

/** What the webhook needs of a strategy, cached by token digest. */
export interface WebhookTarget {
  strategy: StrategyRow;
  legs: LegRow[];
  allowlist: Cidr[];
}

export interface EventWrite {
  strategyId: number;
  runId: number | null;
  kind: EventKind;
  message: string;
  legId?: number | null;
  payload?: Record<string, unknown> | null;
}

export const strategyNotFound = () => noSuchStrategy('Strategy not found');

export class StrategiesService {
  private readonly targets: LRUCache<string, WebhookTarget>;
  /** Counts invalidations (here and from other instances): see {@link target}. */
  private epoch = 0;

  constructor(
    readonly repo: StrategiesRepository,
    private readonly contract: InstrumentCheck,
    private readonly clock: Clock,
    private readonly bus: InvalidationBus,
    /** The public base URL webhook URLs are shown on (tunnel URL when up, else HOST_SERVER). */
    private readonly publicBase: () => string,
    /** The deliveries' audit (the webhooks module's repository). */
    private readonly webhooks: WebhooksRepository,
  ) {
    this.targets = new LRUCache({ max: 10_000, ttl: 60_000, perf: { now: () => clock.now() } });
    bus.subscribe(TOPIC, (digest) => {
      this.epoch++;
      this.targets.delete(digest);
    });
  }

  async create(userId: number, input: StrategyInput) {
    const name = checkName(input.name);
    if (await this.repo.findByName(userId, name)) throw nameTaken(name);
    const legs = await checkLegs(input.kind, input.legs, this.contract);
    const allowlist = checkAllowlist(input.ip_allowlist ?? []);
    const { value: token, digest } = issueCredential(CREDENTIAL_PREFIX.strategy);
    const now = this.clock.now();
    let id: number;
    try {
      id = await this.repo.createStrategy(
        {
          user_id: userId,
          name,
          kind: input.kind,
          product: input.product ?? 'MIS',
          direction: input.direction ?? 'both',
          token_digest: digest,
          ip_allowlist: JSON.stringify(allowlist),
          locked: toDbBool(false),
          live_enabled: toDbBool(false),
          active_run_id: null,
          last_stop_at: null,
          signal_lease_until: null,
          created_at: now,
          updated_at: now,
        },
        legs,
      );
    } catch (err) {
      if (await this.repo.findByName(userId, name)) throw nameTaken(name);
      throw err;
    }
    await this.event({
      strategyId: id,
      runId: null,
      kind: 'strategy_created',
      message: `Strategy "${name}" created`,
    });
    return {
      ...(await this.view(userId, id)),
      webhook_token: token,
      webhook_url: webhookUrl(this.publicBase(), '/strategy/webhook', token),
    };
  }

  async list(userId: number) {
    const rows = await this.repo.listForUser(userId);
    return Promise.all(rows.map(async (s) => toView(s, await this.repo.legs(s.id))));
  }

  async view(userId: number, id: number) {
    const s = await this.owned(userId, id);
    return toView(s, await this.repo.legs(id));
  }

  async update(userId: number, id: number, input: StrategyUpdate) {
    const s = await this.owned(userId, id);
    const patch: Updateable<StrategiesTable> = { updated_at: this.clock.now() };
    const changed: string[] = [];
    if (input.name !== undefined) {
      const name = checkName(input.name);
      const other = await this.repo.findByName(userId, name);
      if (other && other.id !== id) throw nameTaken(name);
      patch.name = name;
      changed.push('name');
    }
    // What the run trades with stays fixed while it runs: its exits must close the very
    // positions its entries opened (another product is another position at the broker).
    const running = (field: string) =>
      strategyRunning(`${field} cannot change while a run is active: stop it first`);
    if (input.product !== undefined && input.product !== s.product) {
      if (s.active_run_id !== null) throw running('product');
      patch.product = input.product;
      changed.push('product');
    }
    if (input.direction !== undefined && input.direction !== s.direction) {
      if (s.active_run_id !== null) throw running('direction');
      patch.direction = input.direction;
      changed.push('direction');
    }
    if (input.ip_allowlist !== undefined) {
      patch.ip_allowlist = JSON.stringify(checkAllowlist(input.ip_allowlist));
      changed.push('ip_allowlist');
    }
    let legs;
    if (input.legs !== undefined) {
      if (s.active_run_id !== null) throw running('Legs');
      legs = await checkLegs(s.kind as StrategyKind, input.legs, this.contract);
      changed.push('legs');
    }
    await this.repo.updateStrategy(id, patch, legs);
    this.invalidate(s.token_digest);
    await this.event({
      strategyId: id,
      runId: null,
      kind: 'strategy_updated',
      message: `Strategy updated: ${changed.join(', ') || 'nothing'}`,
      payload: { fields: changed },
    });
    return this.view(userId, id);
  }

  /**
   * Deletes a strategy without an active run: its webhook dies at once, its trail, runs, orders
   * and audit stay (append-only), and a configuration event records the deletion.
   */
  async remove(userId: number, id: number): Promise<void> {
    const s = await this.owned(userId, id);
    const refused = () => strategyRunning('A strategy with an active run cannot be deleted: stop it first');
    if (s.active_run_id !== null) throw refused();
    if (!(await this.repo.deleteStrategy(id, s.name, this.clock.now()))) {
      const now = await this.repo.find(id);
      if (!now || now.deleted_at !== null) throw strategyNotFound();
      throw refused();
    }
    this.invalidate(s.token_digest);
    await this.event({
      strategyId: id,
      runId: null,
      kind: 'strategy_deleted',
      message: `Strategy "${s.name}" deleted; its webhook URL is dead`,
      payload: { name: s.name },
    });
  }

  /** A new token, shown once; the old one is dead at once (on every instance). */
  async rotateToken(userId: number, id: number) {
    const s = await this.owned(userId, id);
    const { value: token, digest } = issueCredential(CREDENTIAL_PREFIX.strategy);
    await this.repo.updateStrategy(id, { token_digest: digest, updated_at: this.clock.now() });
    this.invalidate(s.token_digest);
    await this.event({
      strategyId: id,
      runId: null,
      kind: 'token_rotated',
      message: 'Webhook token rotated; the old URL is dead',
    });
    return {
      ...(await this.view(userId, id)),
      webhook_token: token,
      webhook_url: webhookUrl(this.publicBase(), '/strategy/webhook', token),
    };
  }

  async setLocked(userId: number, id: number, locked: boolean) {
    const s = await this.owned(userId, id);
    await this.repo.updateStrategy(id, { locked: toDbBool(locked), updated_at: this.clock.now() });
    this.invalidate(s.token_digest);
    await this.event({
      strategyId: id,
      runId: null,
      kind: locked ? 'webhook_locked' : 'webhook_unlocked',
      message: locked ? 'Webhook kill switch engaged' : 'Webhook kill switch released',
    });
    return this.view(userId, id);
  }

  async setLive(userId: number, id: number, enabled: boolean) {
    const s = await this.owned(userId, id);
    await this.repo.updateStrategy(id, { live_enabled: toDbBool(enabled), updated_at: this.clock.now() });
    this.invalidate(s.token_digest);
    await this.event({
      strategyId: id,
      runId: null,
      kind: enabled ? 'live_enabled' : 'live_disabled',
      message: enabled ? 'Live batch start enabled' : 'Live batch start disabled',
    });
    return this.view(userId, id);
  }

  async runs(userId: number, id: number, limit = 100) {
    await this.owned(userId, id);
    return (await this.repo.runs(id, limit)).map(toRunView);
  }

  async events(
    userId: number,
    id: number,
    f: { runId?: number; kind?: string; severity?: string; limit: number },
  ) {
    await this.owned(userId, id);
    return (await this.repo.events({ strategyId: id, ...f })).map(toEventView);
  }

  async deliveries(userId: number, id: number, limit = 100) {
    await this.owned(userId, id);
    return (await this.webhooks.deliveries('strategy', id, limit)).map((d) => {
      const detail = readDetail(d.detail);
      return {
        id: d.id,
        ts: new Date(d.ts).toISOString(),
        ip: d.ip,
        result: d.result,
        http_status: d.http_status,
        action: d.action,
        mode: (detail.mode as string | undefined) ?? null,
        run_id: (detail.run_id as number | undefined) ?? null,
        message: d.message,
        payload: d.payload === null ? null : (JSON.parse(d.payload) as unknown),
        duration_ms: Math.round(d.duration_ms * 100) / 100,
      };
    });
  }

  /** The strategy a webhook token digest names (cached), or undefined. */
  async target(digest: string): Promise<WebhookTarget | undefined> {
    const hit = this.targets.get(digest);
    if (hit) return hit;
    // A rotation, lock or delete landing while this lookup reads the database must not be
    // undone by caching what was read before it: the entry is cached only when no
    // invalidation happened meanwhile (the answer itself is as of the read, like any read).
    const epoch = this.epoch;
    const strategy = await this.repo.findByDigest(digest);
    if (!strategy) return undefined;
    const legs = await this.repo.legs(strategy.id);
    const target = {
      strategy,
      legs,
      allowlist: parseAllowlist(JSON.parse(strategy.ip_allowlist) as string[]),
    };
    if (this.epoch === epoch) this.targets.set(digest, target);
    return target;
  }

  /** Appends to the trail; the severity is the kind's. */
  async event(e: EventWrite): Promise<void> {
    await this.repo.insertEvent(this.eventRow(e));
  }

  /** The trail row of an event, for a repository to write in the transaction of its transition. */
  eventRow(e: EventWrite): NewEvent {
    return {
      strategy_id: e.strategyId,
      run_id: e.runId,
      ts: this.clock.now(),
      kind: e.kind,
      severity: EVENT_SEVERITY[e.kind],
      leg_id: e.legId ?? null,
      message: e.message.slice(0, 1000),
      payload: e.payload ? JSON.stringify(e.payload) : null,
    };
  }

  /** Drops the cached target of a digest here and on every other instance. */
  invalidate(digest: string): void {
    this.epoch++;
    this.targets.delete(digest);
    this.bus.publish(TOPIC, digest);
  }

  /** The user's strategy; another user's, a deleted or a missing one is the same 404. */
  async owned(userId: number, id: number): Promise<StrategyRow> {
    const s = await this.repo.find(id);
    if (!s || s.user_id !== userId || s.deleted_at !== null) throw strategyNotFound();
    return s;
  }
}

const nameTaken = (name: string) => strategyNameTaken(`You already have a strategy named "${name}"`);

function checkName(raw: string): string {
  const name = raw.trim();
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (name.length === 0 || name.length > 100 || /[\u0000-\u001f\u007f]/.test(name)) {
    throw badRequest('name must be 1-100 printable characters', { name: ['1-100 printable characters.'] });
  }
  return name;
}

function checkAllowlist(entries: string[]): string[] {
  if (entries.length > MAX_ALLOWLIST) throw badRequest(`ip_allowlist holds at most ${MAX_ALLOWLIST} entries`);
  try {
    return [...new Set(entries.map(normaliseCidr))];
  } catch (err) {
    throw badRequest(`ip_allowlist: ${(err as Error).message}`, { ip_allowlist: [(err as Error).message] });
  }
}
