/**
 * The sandbox's books as the read APIs answer them (docs/rules/sandbox.md#read-apis): orders,
 * trades, positions and holdings marked at the latest LTP of the price source, and funds with the
 * unrealised P&L of the open positions.
 */
import type { Clock } from '../../../platform/clock.js';
import type { SandboxConfig } from '../../../config-sandbox.js';
import { positionOf } from '../core/fill-plan.js';
import { unrealisedPnl } from '../core/positions.js';
import { reduciblePosition } from '../core/margin.js';
import type { PriceSource } from '../prices/price-source.js';
import type {
  AccountRecord,
  HoldingRecord,
  OrderRecord,
  PositionRecord,
  TradeRecord,
} from '../core/records.js';
import type { SandboxRepository } from '../store/sandbox.repository.js';
import { toOrderRecord } from '../core/records.js';
import { contractNote, type ContractNote } from '../core/contract-note.js';
import { tradeValue } from '../core/money.js';
import { istDateOf, istMidnight } from '../../market/timings.service.js';
import type { EquityDayRow, TradeRow } from '../store/rows.js';
import { quoteKey, type Product, type Side } from '../core/types.js';

export interface SandboxBooksDeps {
  repo: SandboxRepository;
  prices: () => PriceSource;
  clock: Clock;
  config: SandboxConfig;
}

export class SandboxBooks {
  constructor(private readonly deps: SandboxBooksDeps) {}

  /** The start of the IST day the books cover (docs/rules/sandbox.md#read-apis). */
  private dayStart(): number {
    return istMidnight(istDateOf(this.deps.clock.now()));
  }

  /** The order book: today's orders (IST) and any earlier one still working. */
  async orders(userId: number): Promise<OrderRecord[]> {
    return (await this.deps.repo.ordersSince(userId, this.dayStart())).map(toOrderRecord);
  }

  /** The trade book: today's trades (IST). Every fill since the reset is `fills`. */
  async trades(userId: number): Promise<TradeRecord[]> {
    return (await this.deps.repo.tradesSince(userId, this.dayStart())).map((t) => ({
      tradeId: String(t.id),
      orderId: String(t.order_id),
      userId: t.user_id,
      symbol: t.symbol,
      exchange: t.exchange,
      side: t.side as Side,
      product: t.product as Product,
      quantity: t.quantity,
      price: t.price,
      strategy: t.strategy,
      createdAt: t.created_at,
      charges: t.charges,
    }));
  }

  private mark(exchange: string, symbol: string): number | undefined {
    const q = this.deps.prices().latest(quoteKey(exchange, symbol));
    const ltp = q ? Math.round(q.ltp * 10_000) : 0;
    return ltp > 0 ? ltp : undefined;
  }

  async positions(userId: number): Promise<PositionRecord[]> {
    return (await this.deps.repo.positionsOf(userId)).map((p) => ({
      ...positionOf(p, p.symbol, p.exchange, p.product as Product),
      userId,
      ltp: this.mark(p.exchange, p.symbol),
      updatedAt: p.updated_at,
    }));
  }

  /** The net quantity of the user's position in (symbol, exchange, product); 0 when there is none. */
  async netQuantity(
    userId: number,
    q: { symbol: string; exchange: string; product: string },
  ): Promise<number> {
    const row = await this.deps.repo.getPosition(userId, q.symbol, q.exchange, q.product);
    return row ? positionOf(row, q.symbol, q.exchange, q.product as Product).quantity : 0;
  }

  /**
   * The signed part of the position in (symbol, exchange, product) that a new closing order could
   * still close: the net quantity less what working orders on the closing side already close
   * (positive: long, to be sold; negative: short, to be bought back).
   */
  async closableQuantity(
    userId: number,
    q: { symbol: string; exchange: string; product: string },
  ): Promise<number> {
    const net = await this.netQuantity(userId, q);
    if (net === 0) return 0;
    const working = await this.deps.repo.restingOrdersOf(userId, q);
    return reduciblePosition(
      net,
      net > 0 ? 'SELL' : 'BUY',
      working.map((o) => ({ side: o.side as Side, quantity: o.quantity })),
    );
  }

  async holdings(userId: number): Promise<HoldingRecord[]> {
    return (await this.deps.repo.holdingsOf(userId)).map((h) => ({
      symbol: h.symbol,
      exchange: h.exchange,
      quantity: h.quantity,
      cost: h.cost,
      userId,
      ltp: this.mark(h.exchange, h.symbol),
      updatedAt: h.updated_at,
    }));
  }

  /** The contract note of IST day `day` (`YYYY-MM-DD`): docs/rules/sandbox.md#contract-note. */
  async contractNote(userId: number, day: string): Promise<ContractNote> {
    const from = istMidnight(day);
    return contractNote(day, await this.deps.repo.tradesBetween(userId, from, from + 86_400_000));
  }

  /** Every fill of the account since its last reset, with charges. */
  fills(userId: number): Promise<TradeRow[]> {
    return this.deps.repo.tradesOf(userId);
  }

  /**
   * The account's day now (docs/rules/sandbox.md#daily-equity): funds, realised P&L and charges,
   * open positions and holdings marked at the latest prices (unmarked: unrealised 0, holdings at
   * cost), and the equity they add up to.
   */
  async equityNow(userId: number): Promise<Omit<EquityDayRow, 'id'>> {
    const f = await this.funds(userId);
    let holdingsValue = 0;
    for (const h of await this.holdings(userId))
      holdingsValue += h.ltp === undefined ? h.cost : tradeValue(h.ltp, h.quantity);
    const now = this.deps.clock.now();
    return {
      user_id: userId,
      day: istDateOf(now),
      available: f.available,
      used_margin: f.usedMargin,
      realised_pnl: f.realisedPnl,
      charges: f.charges,
      unrealised_pnl: f.unrealisedPnl,
      holdings_value: holdingsValue,
      equity: f.available + f.usedMargin + holdingsValue + f.unrealisedPnl,
      updated_at: now,
    };
  }

  /** The account's daily equity, oldest first, today's row as it is now. */
  async equityHistory(userId: number): Promise<Omit<EquityDayRow, 'id'>[]> {
    const today = await this.equityNow(userId);
    const past = (await this.deps.repo.equityDaysOf(userId)).filter((r) => r.day < today.day);
    return [...past.map(({ id: _id, ...r }) => r), today];
  }

  /** The account's funds; unrealised P&L marks open positions at the latest LTP (unmarked ones count 0). */
  async funds(userId: number): Promise<AccountRecord> {
    const now = this.deps.clock.now();
    let a = await this.deps.repo.getAccount(userId);
    if (!a)
      a = await this.deps.repo.transaction((repo) =>
        repo.lockAccount(userId, this.deps.config.startingFunds, now),
      );
    let unrealised = 0;
    for (const p of await this.positions(userId))
      if (p.ltp !== undefined) unrealised += unrealisedPnl(p, p.ltp);
    return {
      userId,
      startingFunds: a.starting_funds,
      available: a.available,
      usedMargin: a.used_margin,
      realisedPnl: a.realised_pnl,
      charges: a.charges,
      unrealisedPnl: unrealised,
      resetAt: a.reset_at,
    };
  }
}
