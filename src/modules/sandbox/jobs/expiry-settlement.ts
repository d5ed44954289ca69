/**
 * Expiry settlement (docs/rules/sandbox.md#expiry-settlement), one of the day-boundary jobs
 * (day-jobs.ts): at the close of a contract's expiry day its working orders are cancelled
 * ("contract expired") and its open positions are settled — options at intrinsic value against
 * the underlying's close, futures at that close — each as a `complete` order with its trade.
 * What expires when, and at which price, is core/expiry.ts; this file reads the quotes and writes
 * per user in one transaction over the locked account, acting only on what is still working or
 * open, so two instances or a second run settle once.
 */
import type { Logger } from 'pino';
import type { SandboxConfig } from '../../../config-sandbox.js';
import { istDateOf } from '../../market/timings.service.js';
import {
  CONTRACT_EXPIRED,
  EXPIRING_EXCHANGES,
  closeWindow,
  expiresAt,
  expiryInstant,
  planSettlement,
  settlementPrice,
  settlementReason,
  underlyingClose,
  underlyingPlaces,
  type ExpiringContract,
} from '../core/expiry.js';
import type { Money } from '../core/money.js';
import type { SessionOn } from '../core/sessions.js';
import { quoteKey } from '../core/types.js';
import type { SandboxService } from '../service/sandbox.service.js';
import { applyPlacement, endOrder } from '../store/ledger.js';
import type { OrderRow, SandboxRepository } from '../store/sandbox.repository.js';

export interface ExpirySettlementDeps {
  service: SandboxService;
  repo: SandboxRepository;
  sessionOn: SessionOn;
  config: SandboxConfig;
  logger: Logger;
}

/** A contract whose expiry has passed, with its settlement price once the underlying's close is known. */
interface Expired {
  contract: ExpiringContract;
  /** Settlement price and the underlying's close; undefined while no close is known. */
  settle?: { price: Money; close: Money };
}

export class ExpirySettlement {
  /** Scans this instance knows are finished (`expiry:<exchange>:<day>`, `expiry:past:<day>`). */
  private readonly done = new Set<string>();
  /** Contracts already logged as waiting for the underlying's close, or as unknown to the master. */
  private readonly logged = new Set<string>();
  /** Expired contracts with positions still waiting for a close (`EXCHANGE:SYMBOL`). */
  readonly waiting = new Set<string>();
  /** Today's close of each derivative exchange (`<exchange>:<day>`: the calendar is asked once a day). */
  private closes = new Map<string, number>();

  constructor(private readonly deps: ExpirySettlementDeps) {}

  /**
   * Settles what has expired by `now`. The book is scanned at the first run of a day (contracts
   * of past days a stopped server missed) and after each derivative exchange's close; a scan
   * that left a position waiting for its close is repeated on every run until it settles.
   */
  async run(now: number): Promise<void> {
    const today = istDateOf(now);
    const due = [`expiry:past:${today}`];
    for (const ex of EXPIRING_EXCHANGES)
      if (this.closeOf(ex, today) <= now) due.push(`expiry:${ex}:${today}`);
    if (due.every((m) => this.done.has(m)) && this.waiting.size === 0) return;
    if (await this.scan(now)) for (const m of due) this.done.add(m);
  }

  /** When contracts of `exchange` expiring on `day` expire. */
  private closeOf(exchange: string, day: string): number {
    const key = `${exchange}:${day}`;
    let at = this.closes.get(key);
    if (at === undefined) {
      if (![...this.closes.keys()].some((k) => k.endsWith(`:${day}`))) this.closes = new Map();
      this.closes.set(key, (at = expiryInstant(exchange, day, this.deps.sessionOn)));
    }
    return at;
  }

  /** One pass over the book; true when nothing expired is left open. */
  private async scan(now: number): Promise<boolean> {
    const { repo } = this.deps;
    const orders = (await repo.restingOrders()).filter((o) => EXPIRING_EXCHANGES.has(o.exchange));
    const positions = (await repo.allPositions(true)).filter((p) => EXPIRING_EXCHANGES.has(p.exchange));
    const expired = new Map<string, Expired>();
    const seen = new Set<string>();
    for (const r of [...orders, ...positions]) {
      const key = quoteKey(r.exchange, r.symbol);
      if (seen.has(key)) continue;
      seen.add(key);
      const contract = await this.deps.service.deps.instruments.get(r.symbol, r.exchange);
      if (!contract) {
        this.logOnce(`unknown:${key}`, { instrument: key }, 'expiry: contract not in the master contract');
        continue;
      }
      const at = expiresAt(contract, this.deps.sessionOn);
      if (at !== undefined && at <= now) expired.set(key, { contract });
    }
    if (expired.size === 0) {
      this.waiting.clear();
      return true;
    }
    const open = new Set(positions.map((p) => quoteKey(p.exchange, p.symbol)));
    this.waiting.clear();
    for (const [key, e] of expired) {
      if (!open.has(key)) continue;
      const close = await this.underlyingClose(e.contract);
      const price = close === undefined ? undefined : settlementPrice(e.contract, close);
      if (close !== undefined && price !== undefined) e.settle = { price, close };
      else {
        this.waiting.add(key);
        this.logOnce(
          `waiting:${key}`,
          { instrument: key, underlying: underlyingPlaces(e.contract) },
          'expiry settlement waits for the underlying’s close; retried on later ticks',
        );
      }
    }
    const users = new Set(
      [...orders, ...positions]
        .filter((r) => expired.has(quoteKey(r.exchange, r.symbol)))
        .map((r) => r.user_id),
    );
    for (const userId of users) await this.settleUser(userId, expired, now);
    return this.waiting.size === 0;
  }

  /** The underlying's close from the price source, where the contract's underlying is quoted. */
  private async underlyingClose(c: ExpiringContract): Promise<Money | undefined> {
    const { service, sessionOn } = this.deps;
    const expiredAt = expiresAt(c, sessionOn);
    if (expiredAt === undefined || c.expiryDate === null) return undefined;
    for (const place of underlyingPlaces(c)) {
      const inst = await service.deps.instruments.get(place.symbol, place.exchange);
      if (!inst) continue;
      const quote = await service.deps
        .prices()
        .quote(inst)
        .catch((err: unknown) => {
          this.deps.logger.warn({ err, instrument: quoteKey(inst.exchange, inst.symbol) }, 'quote failed');
          return undefined;
        });
      return underlyingClose(quote, closeWindow(inst.exchange, c.expiryDate, expiredAt, sessionOn));
    }
    return undefined;
  }

  /**
   * One user's expired contracts in one transaction over the locked account: working orders on
   * them cancelled (margin released), then each open position with a known close settled.
   * Rows are read after the lock and only working orders and open positions are touched, so a
   * second run or instance finds nothing left to do.
   */
  private async settleUser(userId: number, expired: ReadonlyMap<string, Expired>, now: number) {
    const { service, config } = this.deps;
    const changed = await this.deps.repo.transaction(async (repo) => {
      const out: OrderRow[] = [];
      let account = await repo.lockAccount(userId, config.startingFunds, now);
      for (const o of await repo.restingOrdersOf(userId)) {
        if (!expired.has(quoteKey(o.exchange, o.symbol))) continue;
        const next = await endOrder(repo, account, o, 'cancelled', CONTRACT_EXPIRED, now);
        if (!next) continue;
        account = next;
        out.push({
          ...o,
          status: 'cancelled',
          reason: CONTRACT_EXPIRED,
          blocked_margin: 0,
          blocked_quantity: 0,
          updated_at: now,
        });
      }
      for (const p of await repo.positionsOf(userId)) {
        const e = expired.get(quoteKey(p.exchange, p.symbol));
        if (p.quantity === 0 || !e?.settle) continue;
        const { price, close } = e.settle;
        const reason = settlementReason(e.contract, close, price);
        const plan = planSettlement(account, p, e.contract, price, reason, now, config);
        out.push(await applyPlacement(repo, plan));
        account = plan.fill.account;
      }
      return out;
    });
    for (const o of changed) service.announce(o);
    const settled = changed.filter((o) => o.status === 'complete');
    if (changed.length > 0)
      this.deps.logger.info(
        {
          userId,
          cancelled: changed.length - settled.length,
          settled: settled.map((o) => `${o.exchange}:${o.symbol}:${o.product} ${o.side} ${o.quantity}`),
        },
        'expiry settlement',
      );
  }

  private logOnce(key: string, fields: Record<string, unknown>, msg: string): void {
    if (this.logged.has(key)) return;
    this.logged.add(key);
    this.deps.logger.warn(fields, msg);
  }
}
