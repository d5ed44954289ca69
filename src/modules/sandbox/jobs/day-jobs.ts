/**
 * The sandbox's day-boundary work (docs/rules/sandbox.md#day-boundary-jobs), run on every engine
 * tick and at start as the catch-up after a restart. Every job is idempotent: it acts only on rows
 * still in the state it changes (orders of a past day still working, MIS positions still open after
 * the cut-off, CNC positions of a past day, accounts last reset before the slot), so running it
 * twice, late, or on two instances at once does the work exactly once.
 *
 * - Expiry settlement (expiry-settlement.ts, docs/rules/sandbox.md#expiry-settlement): at the
 *   close of a contract's expiry day its working orders are cancelled ("contract expired") and its
 *   open positions settle at intrinsic value (options) or the underlying's close (futures); a
 *   position whose underlying has no close yet waits for a later tick. It runs first, so a
 *   rollover or square-off never closes an expired contract at market.
 * - Rollover (a new IST day): working orders of past days expire (cancelled, margin released);
 *   MIS positions a missed square-off left open are closed at market; CNC positions of past days
 *   settle into holdings (T+1); flat positions of past days drop off the position book.
 * - MIS square-off: on an exchange's trading day, from its square-off time (NSE/BSE 15:15,
 *   CDS/BCD 16:45, MCX 23:30 IST by default; `SANDBOX_SQUARE_OFF`), working MIS orders are
 *   cancelled and open MIS positions are closed at market. Without a usable price the close
 *   is retried on the next tick.
 * - Scheduled reset (`SANDBOX_RESET_DAY`/`SANDBOX_RESET_TIME`): accounts last reset before the
 *   latest slot are reset.
 * - Daily equity (equity-days.ts, docs/rules/sandbox.md#daily-equity): every account's day is
 *   recorded every few minutes.
 */
import type { SandboxRepository } from '../store/sandbox.repository.js';
import type { Logger } from 'pino';
import type { SandboxConfig } from '../../../config-sandbox.js';
import type { Clock } from '../../../platform/clock.js';
import { istDateOf, istInstant, type ExchangeSession } from '../../market/timings.service.js';
import { fundsOf, positionOf, withFunds } from '../core/fill-plan.js';
import { applyFundsDelta } from '../core/margin.js';
import { settleCncToHoldings } from '../core/positions.js';
import type { PositionRow } from '../store/sandbox.repository.js';
import type { SandboxService } from '../service/sandbox.service.js';
import type { Product } from '../core/types.js';
import { ExpirySettlement } from './expiry-settlement.js';
import type { EquityDays } from './equity-days.js';

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const DAY_MS = 86_400_000;

export interface SandboxJobsDeps {
  service: SandboxService;
  /** The accounts' rows the day-boundary work reads and settles. */
  repo: SandboxRepository;
  sessionOn: (exchange: string, date: string) => ExchangeSession | undefined;
  clock: Clock;
  config: SandboxConfig;
  logger: Logger;
  /**
   * The newest quote's time of an instrument (`EXCHANGE:SYMBOL`), without I/O: a square-off close
   * the sandbox refused is sent again only once the instrument has a newer quote.
   */
  latestQuoteAt?: (key: string) => number | undefined;
  /** Records the accounts' daily equity (docs/rules/sandbox.md#daily-equity). */
  equity?: EquityDays;
}

export class SandboxJobs {
  /**
   * Positions whose square-off close was refused, by `user:exchange:symbol:product`, with the
   * instrument's newest quote time then (null: none): docs/rules/sandbox.md#correct-exits.
   */
  private readonly refused = new Map<string, number | null>();
  /** Work this instance knows is finished (`rollover:<day>`, `squareoff:<ex>:<day>`): skipped cheaply. */
  private readonly done = new Set<string>();

  /** docs/rules/sandbox.md#expiry-settlement. */
  readonly expiry: ExpirySettlement;

  constructor(private readonly deps: SandboxJobsDeps) {
    this.expiry = new ExpirySettlement(deps);
  }

  /** Everything due at the clock's now. */
  async run(): Promise<void> {
    const now = this.deps.clock.now();
    await this.expiry.run(now);
    // docs/rules/sandbox.md#gtt-orders: GTTs fire on the latest prices (after expiry settlement:
    // an expired contract's GTTs expire, never fire).
    await this.deps.service.runGtts();
    await this.rollover(now);
    await this.squareOff(now);
    await this.scheduledReset(now);
    await this.deps.equity?.run(now);
  }

  private get repo(): SandboxRepository {
    return this.deps.repo;
  }

  /** The new-day work (see the file comment). */
  async rollover(now: number): Promise<void> {
    const today = istDateOf(now);
    const marker = `rollover:${today}`;
    if (this.done.has(marker)) return;
    const { service } = this.deps;
    for (const o of await this.repo.restingOrders()) {
      if (o.day >= today) continue;
      await service
        .cancelOrder(o.user_id, o.id, 'expired at the end of its trading day')
        .catch((err: unknown) => this.deps.logger.debug({ err, orderId: o.id }, 'expiry skipped'));
    }
    let left = 0;
    const past = (await this.repo.allPositions()).filter((p) => p.day < today);
    for (const p of past.filter((p) => p.product === 'MIS' && p.quantity !== 0)) left += await this.close(p);
    const users = new Set(past.map((p) => p.user_id));
    for (const userId of users) await this.settle(userId, today, now);
    if (left === 0) this.done.add(marker);
  }

  /** T+1 for one user: past days' CNC positions into holdings; past days' flat positions dropped. */
  private async settle(userId: number, today: string, now: number): Promise<void> {
    await this.repo.transaction(async (repo) => {
      const account = await repo.lockAccount(userId, this.deps.config.startingFunds, now);
      const positions = (await repo.positionsOf(userId)).filter((p) => p.day < today);
      const cnc = positions.filter((p) => p.product === 'CNC');
      if (cnc.length > 0) {
        const holdings = (await repo.holdingsOf(userId)).map((h) => ({
          symbol: h.symbol,
          exchange: h.exchange,
          quantity: h.quantity,
          cost: h.cost,
        }));
        const s = settleCncToHoldings(
          cnc.map((p) => positionOf(p, p.symbol, p.exchange, 'CNC')),
          holdings,
        );
        const kept = new Set(s.holdings.map((h) => `${h.exchange}:${h.symbol}`));
        for (const h of holdings)
          if (!kept.has(`${h.exchange}:${h.symbol}`))
            await repo.saveHolding({
              user_id: userId,
              symbol: h.symbol,
              exchange: h.exchange,
              quantity: 0,
              cost: 0,
              updated_at: now,
            });
        for (const h of s.holdings)
          await repo.saveHolding({
            user_id: userId,
            symbol: h.symbol,
            exchange: h.exchange,
            quantity: h.quantity,
            cost: h.cost,
            updated_at: now,
          });
        await repo.deletePositions(cnc.map((p) => p.id));
        for (const c of s.carried)
          await repo.upsertPosition({
            user_id: userId,
            symbol: c.symbol,
            exchange: c.exchange,
            product: 'CNC',
            quantity: c.quantity,
            cost: c.cost,
            margin: c.margin,
            realised_pnl: c.realisedPnl,
            charges: c.charges ?? 0,
            day: today,
            updated_at: now,
          });
        if (s.shortfalls.length > 0)
          this.deps.logger.warn(
            { userId, shortfalls: s.shortfalls },
            'CNC sells exceeded holdings at settlement',
          );
        await repo.saveAccount(withFunds(account, applyFundsDelta(fundsOf(account), s.fundsDelta), now));
      }
      await repo.deletePositions(
        positions.filter((p) => p.product !== 'CNC' && p.quantity === 0).map((p) => p.id),
      );
    });
  }

  /**
   * Closes one position at market; returns 1 when it is still open, else 0. A close the sandbox
   * refused (no price to close at) is not sent again until the instrument has a newer quote: the
   * same refusal would only fill the order book (docs/rules/sandbox.md#correct-exits).
   */
  private async close(p: PositionRow): Promise<number> {
    // An expired contract waiting for its underlying's close is settled, never closed at market.
    if (this.expiry.waiting.has(`${p.exchange}:${p.symbol}`)) return 1;
    const key = `${p.user_id}:${p.exchange}:${p.symbol}:${p.product}`;
    const quoteAt = this.deps.latestQuoteAt?.(`${p.exchange}:${p.symbol}`) ?? null;
    if (this.refused.has(key) && this.refused.get(key) === quoteAt) return 1;
    const [r] = await this.deps.service.closePositions(
      p.user_id,
      { exchange: p.exchange, product: p.product as Product, symbol: p.symbol },
      null,
    );
    if (r && !r.ok) {
      this.refused.set(key, quoteAt);
      this.deps.logger.warn(
        { userId: p.user_id, instrument: `${p.exchange}:${p.symbol}`, reason: r.message },
        'MIS square-off could not close a position; retried once the instrument has a newer quote',
      );
      return 1;
    }
    this.refused.delete(key);
    return 0;
  }

  /** MIS square-off of every exchange whose cut-off has passed today (see the file comment). */
  async squareOff(now: number): Promise<void> {
    const today = istDateOf(now);
    const { service } = this.deps;
    for (const exchange of Object.keys(this.deps.config.squareOff)) {
      const marker = `squareoff:${exchange}:${today}`;
      if (this.done.has(marker)) continue;
      const session = this.deps.sessionOn(exchange, today);
      if (!session?.open) continue;
      const at = service.squareOffAt(exchange, today, session);
      if (at === undefined || now < at) continue;
      for (const o of await this.repo.restingOrders()) {
        if (o.exchange !== exchange || o.product !== 'MIS') continue;
        await service
          .cancelOrder(o.user_id, o.id, 'cancelled at the MIS square-off')
          .catch((err: unknown) =>
            this.deps.logger.debug({ err, orderId: o.id }, 'square-off cancel skipped'),
          );
      }
      // Users side by side, each user's positions one after another: placements of different
      // accounts share commits (SQLite's group commit, PostgreSQL's pool) and never wait for each
      // other's account lock; one user's closes stay in the order of their positions.
      const byUser = new Map<number, PositionRow[]>();
      for (const p of await this.repo.allPositions(true)) {
        if (p.exchange !== exchange || p.product !== 'MIS') continue;
        const own = byUser.get(p.user_id);
        if (own) own.push(p);
        else byUser.set(p.user_id, [p]);
      }
      const lefts = await Promise.all(
        [...byUser.values()].map(async (positions) => {
          let userLeft = 0;
          for (const p of positions) userLeft += await this.close(p);
          return userLeft;
        }),
      );
      const left = lefts.reduce((a, b) => a + b, 0);
      if (left === 0) {
        this.done.add(marker);
        this.deps.logger.info({ exchange, day: today }, 'MIS square-off done');
      }
    }
  }

  /** The latest reset slot at or before `now` (epoch ms), or undefined when resets are off. */
  resetSlot(now: number): number | undefined {
    const { resetDay, resetTime } = this.deps.config;
    if (resetDay === 'never') return undefined;
    for (let back = 0; back <= 7; back++) {
      const date = istDateOf(now - back * DAY_MS);
      const at = istInstant(date, resetTime);
      if (at > now) continue;
      const weekday = WEEKDAYS[new Date(Date.parse(`${date}T12:00:00Z`)).getUTCDay()];
      if (resetDay === 'daily' || resetDay === weekday) return at;
    }
    return undefined;
  }

  /** Resets every account last reset before the latest slot. */
  async scheduledReset(now: number): Promise<void> {
    const slot = this.resetSlot(now);
    if (slot === undefined) return;
    const marker = `reset:${slot}`;
    if (this.done.has(marker)) return;
    for (const userId of await this.repo.accountUserIds()) await this.deps.service.reset(userId, slot);
    this.done.add(marker);
  }
}
