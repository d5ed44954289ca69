/**
 * What the sandbox's operations (place.ts, manage.ts, basket-margin.ts and the facade) share:
 * the dependencies, the instrument and quote they fetch before a transaction, the phase of the
 * MIS day, and the listeners told about every order change (the engine keeps its book by them).
 * The facade (sandbox.service.ts) holds one and hands it to those files; they never see the facade.
 */
import { badRequest, notFound } from '../../../platform/errors.js';
import type { Instrument } from '../../market/instrument.js';
import { istDay } from '../core/ist-day.js';
import { checkQuote, type MarketPrices, type SessionPhase } from '../core/rules.js';
import { closedReason } from '../core/sessions.js';
import { squareOffAt, type SessionBounds } from '../core/square-off.js';
import type { OrderRow, SandboxRepository } from '../store/sandbox.repository.js';
import type { BrokerMarginFn, SandboxServiceDeps } from './service.types.js';

export class SandboxContext {
  /** Told about every order that was created, changed or ended. */
  private readonly listeners: ((order: OrderRow) => void)[] = [];
  /** Square-off instants by exchange on one IST date (the configured times are fixed). */
  private squareOffs = { date: '', at: new Map<string, number | undefined>() };

  /**
   * The user's broker margin calculator (set by the orders plugin, which owns the broker
   * sessions): docs/rules/sandbox.md#margins-like-a-broker.
   */
  brokerMargin: BrokerMarginFn | undefined;

  /** Instruments of the active GTTs as the last full trigger pass found them (gtt.ts `runGtts`). */
  gttKeys: Set<string> | undefined;

  /** Told about a GTT placed on this instance (the engine keeps its instrument priced). */
  gttPlaced: ((symbol: string, exchange: string) => void) | undefined;

  constructor(readonly deps: SandboxServiceDeps) {}

  onOrderChange(listener: (order: OrderRow) => void): void {
    this.listeners.push(listener);
  }

  /** Tells the listeners about an order created, changed or ended. */
  changed(order: OrderRow | undefined): void {
    if (order) for (const l of this.listeners) l(order);
  }

  /** The MIS square-off instant of `exchange` on an IST date (see core/square-off.ts). */
  squareOffAt(exchange: string, date: string, session?: SessionBounds): number | undefined {
    return squareOffAt(this.deps.config.squareOff, exchange, date, session);
  }

  /** Phase of the MIS day for `exchange` at `now`. */
  sessionPhase(exchange: string, now: number): SessionPhase {
    const date = istDay(now);
    if (this.squareOffs.date !== date) this.squareOffs = { date, at: new Map() };
    let at = this.squareOffs.at.get(exchange);
    if (at === undefined && !this.squareOffs.at.has(exchange))
      this.squareOffs.at.set(exchange, (at = this.squareOffAt(exchange, date)));
    return at !== undefined && now >= at ? 'after-square-off' : 'regular';
  }

  /**
   * Why `exchange` takes no order at `now` (docs/rules/sandbox.md#sessions-and-holidays), or
   * undefined: in session, sessions ignored (`SANDBOX_SESSIONS=ignore`), or no calendar.
   */
  closedReason(exchange: string, now: number): string | undefined {
    const { sessionOn, config } = this.deps;
    if (config.sessions !== 'enforce' || !sessionOn) return undefined;
    return closedReason(sessionOn, exchange, now);
  }

  /** The instrument, or a 400 naming it. */
  async instrument(symbol: string, exchange: string): Promise<Instrument> {
    const instrument = await this.deps.instruments.get(symbol, exchange);
    if (!instrument)
      throw badRequest(`Symbol '${symbol}' not found on exchange ${exchange} in the master contract`);
    return instrument;
  }

  /** A quote for the instrument and whether it may fill (stale or out-of-range quotes may not). */
  async pricesFor(instrument: Instrument): Promise<{ prices?: MarketPrices; fallback?: MarketPrices }> {
    const quote = await this.deps
      .prices()
      .quote(instrument)
      .catch((err: unknown) => {
        this.deps.logger.warn(
          { err, symbol: instrument.symbol, exchange: instrument.exchange },
          'sandbox quote failed',
        );
        return undefined;
      });
    if (!quote) return {};
    const c = checkQuote(quote, this.deps.clock.now(), this.deps.config.maxQuoteAgeMs);
    if (c.ok) return { prices: c.prices };
    const ltp = Math.round(quote.ltp * 10_000);
    return ltp > 0 ? { fallback: { ltp, bid: 0, ask: 0 } } : {};
  }
}

/** The user's order, or a 404 (another user's order is as unknown as a missing one). */
export async function ownOrder(repo: SandboxRepository, userId: number, orderId: number): Promise<OrderRow> {
  const order = await repo.getOrder(orderId);
  if (!order || order.user_id !== userId) throw notFound(`Order ${orderId} not found`);
  return order;
}
