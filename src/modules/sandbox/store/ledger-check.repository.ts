/**
 * The reads of the ledger check (docs/rules/sandbox.md#ledger-check): per account, the trade book
 * netted in SQL (one row per instrument and product, however many trades), the position and holding
 * rows, the margin working orders block, and the orders and trades that do not match each other.
 * Read-only; each read uses the user's index, so one account costs what its own rows cost.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.js';
import type { AccountRow, HoldingRow, PositionRow } from './rows.js';
import { RESTING } from '../core/types.js';

/** The trade book of one instrument and product, netted. */
export interface NettedTrades {
  symbol: string;
  exchange: string;
  product: string;
  /** Bought less sold quantity. */
  net: number;
  /** Σ sell values − Σ buy values (Money). */
  cash: number;
  /** Σ the trades' charges (Money). */
  charges: number;
  trades: number;
}

/** What the ledger check reads of one account. */
export interface LedgerSnapshot {
  account: AccountRow;
  trades: NettedTrades[];
  positions: PositionRow[];
  holdings: HoldingRow[];
  /** Σ blocked margin of the working orders and the active GTTs' reservations (Money). */
  blocked: number;
  /** Complete orders without their trade (ids, oldest first, at most {@link SAMPLE}). */
  filledWithoutTrade: { count: number; ids: number[] };
  /** Trades whose order is not complete, or differs in quantity or price (order ids). */
  tradeWithoutFill: { count: number; ids: number[] };
}

/** Order ids named per mismatch at most. */
const SAMPLE = 5;

export class LedgerCheckRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Users with a sandbox account, in id order. */
  async accountUserIds(): Promise<number[]> {
    const rows = await this.db.selectFrom('sandbox_accounts').select('user_id').orderBy('user_id').execute();
    return rows.map((r) => r.user_id);
  }

  /**
   * Everything the check needs of one account, read in one transaction so the rows agree with
   * each other (a placement committing between two reads would otherwise show as a difference).
   */
  snapshot(userId: number): Promise<LedgerSnapshot | undefined> {
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(async (trx) => {
        const account = await trx
          .selectFrom('sandbox_accounts')
          .selectAll()
          .where('user_id', '=', userId)
          .executeTakeFirst();
        if (!account) return undefined;
        const trades = await trx
          .selectFrom('sandbox_trades')
          .select((eb) => [
            'symbol',
            'exchange',
            'product',
            eb
              .cast<number>(
                eb.fn.sum(
                  eb
                    .case()
                    .when('side', '=', 'BUY')
                    .then(eb.ref('quantity'))
                    .else(eb.neg(eb.ref('quantity')))
                    .end(),
                ),
                'bigint',
              )
              .as('net'),
            eb
              .cast<number>(
                eb.fn.sum(
                  eb
                    .case()
                    .when('side', '=', 'SELL')
                    .then(eb('price', '*', eb.ref('quantity')))
                    .else(eb.neg(eb('price', '*', eb.ref('quantity'))))
                    .end(),
                ),
                'bigint',
              )
              .as('cash'),
            eb.cast<number>(eb.fn.sum('charges'), 'bigint').as('charges'),
            eb.cast<number>(eb.fn.countAll(), 'integer').as('trades'),
          ])
          .where('user_id', '=', userId)
          .groupBy(['symbol', 'exchange', 'product'])
          .orderBy('exchange')
          .orderBy('symbol')
          .orderBy('product')
          .execute();
        const positions = await trx
          .selectFrom('sandbox_positions')
          .selectAll()
          .where('user_id', '=', userId)
          .orderBy('id')
          .execute();
        const holdings = await trx
          .selectFrom('sandbox_holdings')
          .selectAll()
          .where('user_id', '=', userId)
          .orderBy('id')
          .execute();
        const blocked = await trx
          .selectFrom('sandbox_orders')
          .select((eb) =>
            eb.cast<number>(eb.fn.coalesce(eb.fn.sum('blocked_margin'), eb.lit(0)), 'bigint').as('m'),
          )
          .where('user_id', '=', userId)
          .where('status', 'in', [...RESTING])
          .executeTakeFirstOrThrow();
        // Active GTTs reserve margin too (docs/rules/sandbox.md#gtt-orders).
        const reserved = await trx
          .selectFrom('sandbox_gtts')
          .select((eb) =>
            eb.cast<number>(eb.fn.coalesce(eb.fn.sum('blocked_margin'), eb.lit(0)), 'bigint').as('m'),
          )
          .where('user_id', '=', userId)
          .where('status', '=', 'active')
          .executeTakeFirstOrThrow();
        const unfilled = await trx
          .selectFrom('sandbox_orders as o')
          .leftJoin('sandbox_trades as t', 't.order_id', 'o.id')
          .select('o.id')
          .where('o.user_id', '=', userId)
          .where('o.status', '=', 'complete')
          .where('t.id', 'is', null)
          .orderBy('o.id')
          .execute();
        const strays = await trx
          .selectFrom('sandbox_trades as t')
          .leftJoin('sandbox_orders as o', 'o.id', 't.order_id')
          .select('t.order_id')
          .where('t.user_id', '=', userId)
          .where((eb) =>
            eb.or([
              eb('o.id', 'is', null),
              eb('o.status', '!=', 'complete'),
              eb('o.filled_quantity', '!=', eb.ref('t.quantity')),
              eb('o.average_price', '!=', eb.ref('t.price')),
            ]),
          )
          .orderBy('t.id')
          .execute();
        return {
          account,
          trades: trades.map((t) => ({
            ...t,
            net: Number(t.net),
            cash: Number(t.cash),
            trades: Number(t.trades),
          })),
          positions,
          holdings,
          blocked: Number(blocked.m) + Number(reserved.m),
          filledWithoutTrade: { count: unfilled.length, ids: unfilled.slice(0, SAMPLE).map((r) => r.id) },
          tradeWithoutFill: {
            count: strays.length,
            ids: strays.slice(0, SAMPLE).map((r) => r.order_id),
          },
        };
      });
  }
}
