/**
 * The statements of an order's placement and fill (issue 5), compiled once per database
 * (platform/db/prepared.ts): building and compiling them on every call cost as much CPU as
 * running them. Used by sandbox.repository.ts only.
 */
import type { DB } from '../../db/schema.js';
import { isPostgres } from '../../platform/db/database.js';
import { prepareQuery, type PreparedQuery } from '../../platform/db/prepared.js';
import type { AccountRow, OrderRow, PositionRow, TradeRow } from './sandbox.repository.js';
import { RESTING } from './types.js';

/** An order row to insert: every column but the id. */
export type NewOrderRow = Omit<OrderRow, 'id'>;

/** The user's account row, locked on PostgreSQL (`FOR UPDATE`). */
export const selectAccountForUpdate = prepareQuery<DB, { userId: number }, AccountRow>((db, $) => {
  const q = db.selectFrom('sandbox_accounts').selectAll().where('user_id', '=', $('userId'));
  return isPostgres(db) ? q.forUpdate() : q;
});

export const updateAccount = prepareQuery<DB, AccountRow, never>((db, $) =>
  db
    .updateTable('sandbox_accounts')
    .set({
      available: $('available'),
      used_margin: $('used_margin'),
      realised_pnl: $('realised_pnl'),
      starting_funds: $('starting_funds'),
      reset_at: $('reset_at'),
      updated_at: $('updated_at'),
    })
    .where('user_id', '=', $('user_id')),
);

export const insertOrderRow = prepareQuery<DB, NewOrderRow, OrderRow>((db, $) =>
  db
    .insertInto('sandbox_orders')
    .values({
      user_id: $('user_id'),
      symbol: $('symbol'),
      exchange: $('exchange'),
      side: $('side'),
      price_type: $('price_type'),
      product: $('product'),
      kind: $('kind'),
      quantity: $('quantity'),
      price: $('price'),
      trigger_price: $('trigger_price'),
      status: $('status'),
      filled_quantity: $('filled_quantity'),
      average_price: $('average_price'),
      blocked_margin: $('blocked_margin'),
      blocked_quantity: $('blocked_quantity'),
      reason: $('reason'),
      strategy: $('strategy'),
      day: $('day'),
      created_at: $('created_at'),
      updated_at: $('updated_at'),
    })
    .returningAll(),
);

export type EventParams = Record<string, number | string | null>;
/** Multi-row event inserts by row count (1 to 3 per order transition step). */
const insertEventRows = new Map<number, PreparedQuery<DB, EventParams, never>>();
export const eventInsert = (n: number): PreparedQuery<DB, EventParams, never> => {
  let q = insertEventRows.get(n);
  if (!q)
    insertEventRows.set(
      n,
      (q = prepareQuery<DB, EventParams, never>((db, $) =>
        db.insertInto('sandbox_order_events').values(
          Array.from({ length: n }, (_, i) => ({
            order_id: $(`order_id${i}`) as number,
            user_id: $(`user_id${i}`) as number,
            from_status: $(`from${i}`) as string | null,
            to_status: $(`to${i}`) as string,
            detail: $(`detail${i}`) as string | null,
            at: $(`at${i}`) as number,
          })),
        ),
      )),
    );
  return q;
};

export const selectPosition = prepareQuery<
  DB,
  { user_id: number; symbol: string; exchange: string; product: string },
  PositionRow
>((db, $) =>
  db
    .selectFrom('sandbox_positions')
    .selectAll()
    .where('user_id', '=', $('user_id'))
    .where('symbol', '=', $('symbol'))
    .where('exchange', '=', $('exchange'))
    .where('product', '=', $('product')),
);

export const upsertPositionRow = prepareQuery<DB, Omit<PositionRow, 'id'>, never>((db, $) =>
  db
    .insertInto('sandbox_positions')
    .values({
      user_id: $('user_id'),
      symbol: $('symbol'),
      exchange: $('exchange'),
      product: $('product'),
      quantity: $('quantity'),
      cost: $('cost'),
      margin: $('margin'),
      realised_pnl: $('realised_pnl'),
      day: $('day'),
      updated_at: $('updated_at'),
    })
    .onConflict((oc) =>
      oc.columns(['user_id', 'symbol', 'exchange', 'product']).doUpdateSet({
        quantity: $('quantity'),
        cost: $('cost'),
        margin: $('margin'),
        realised_pnl: $('realised_pnl'),
        day: $('day'),
        updated_at: $('updated_at'),
      }),
    ),
);

export const insertTradeRow = prepareQuery<DB, Omit<TradeRow, 'id'>, never>((db, $) =>
  db.insertInto('sandbox_trades').values({
    order_id: $('order_id'),
    user_id: $('user_id'),
    symbol: $('symbol'),
    exchange: $('exchange'),
    side: $('side'),
    product: $('product'),
    quantity: $('quantity'),
    price: $('price'),
    strategy: $('strategy'),
    created_at: $('created_at'),
  }),
);

/** The user's working orders on one instrument and product (placement's account context). */
export const selectRestingOn = prepareQuery<
  DB,
  { user_id: number; symbol: string; exchange: string; product: string },
  OrderRow
>((db, $) =>
  db
    .selectFrom('sandbox_orders')
    .selectAll()
    .where('user_id', '=', $('user_id'))
    .where('status', 'in', [...RESTING])
    .where('symbol', '=', $('symbol'))
    .where('exchange', '=', $('exchange'))
    .where('product', '=', $('product')),
);
