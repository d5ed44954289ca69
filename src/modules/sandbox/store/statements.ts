/**
 * The statements of an order's placement and fill, compiled once per database
 * (platform/db/prepared.ts): building and compiling them on every call cost as much CPU as
 * running them. Used by sandbox.repository.ts only.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.js';
import { isPostgres } from '../../../platform/db/database.js';
import { prepareQuery, type PreparedQuery } from '../../../platform/db/prepared.js';
import type { AccountRow, OrderRow, PositionRow, TradeRow } from './rows.js';
import { RESTING } from '../core/types.js';

/** An order row to insert: every column but the id. */
export type NewOrderRow = Omit<OrderRow, 'id'>;

/** The row to insert of an order whose optional columns may be left out (they are null then). */
export function newOrderRow(
  o: Omit<NewOrderRow, 'reason' | 'strategy' | 'tag'> &
    Partial<Pick<NewOrderRow, 'reason' | 'strategy' | 'tag'>>,
): NewOrderRow {
  return { ...o, reason: o.reason ?? null, strategy: o.strategy ?? null, tag: o.tag ?? null };
}

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
      charges: $('charges'),
      starting_funds: $('starting_funds'),
      reset_at: $('reset_at'),
      updated_at: $('updated_at'),
    })
    .where('user_id', '=', $('user_id')),
);

/** Inserts an order; only the id comes back (the caller has every other column). */
export const insertOrderRow = prepareQuery<DB, NewOrderRow, { id: number }>((db, $) =>
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
      tag: $('tag'),
      day: $('day'),
      created_at: $('created_at'),
      updated_at: $('updated_at'),
    })
    .returning('id'),
);

export type EventParams = Record<string, number | string | null>;

/** Columns of an event row, in the order {@link eventParamNames} lists their parameters. */
const EVENT_COLUMNS = ['order_id', 'user_id', 'from_status', 'to_status', 'detail', 'at'] as const;

const eventStatements = new Map<
  number,
  { names: readonly string[]; query: PreparedQuery<DB, EventParams, never> }
>();

/**
 * The INSERT of `n` event rows (1 to 3 per order transition step) and its parameter names: row
 * `i`, column `c` is `names[i * 6 + c]` (columns as in EVENT_COLUMNS).
 */
export function eventInsert(n: number): {
  names: readonly string[];
  query: PreparedQuery<DB, EventParams, never>;
} {
  let e = eventStatements.get(n);
  if (!e) {
    const names = Array.from({ length: n }, (_, i) => EVENT_COLUMNS.map((c) => `${c}${i}`)).flat();
    const query = prepareQuery<DB, EventParams, never>((db, $) =>
      db.insertInto('sandbox_order_events').values(
        Array.from({ length: n }, (_, i) => ({
          order_id: $(names[i * 6]!) as number,
          user_id: $(names[i * 6 + 1]!) as number,
          from_status: $(names[i * 6 + 2]!) as string | null,
          to_status: $(names[i * 6 + 3]!) as string,
          detail: $(names[i * 6 + 4]!) as string | null,
          at: $(names[i * 6 + 5]!) as number,
        })),
      ),
    );
    eventStatements.set(n, (e = { names, query }));
  }
  return e;
}

/** An event row's detail as stored: at most 512 characters. */
export const eventDetail = (detail: string | null): string | null =>
  detail === null ? null : detail.slice(0, 512);

/** Appends event rows in one statement, in the given order (ids ascend with it). */
export async function insertEventRows(
  db: Kysely<DB>,
  events: readonly {
    orderId: number;
    userId: number;
    from: string | null;
    to: string;
    detail: string | null;
    at: number;
  }[],
): Promise<void> {
  if (events.length === 0) return;
  const { names, query } = eventInsert(events.length);
  const params: EventParams = {};
  let k = 0;
  for (const e of events)
    for (const v of [e.orderId, e.userId, e.from, e.to, eventDetail(e.detail), e.at]) params[names[k++]!] = v;
  await query.execute(db, params);
}

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
      charges: $('charges'),
      day: $('day'),
      updated_at: $('updated_at'),
    })
    .onConflict((oc) =>
      oc.columns(['user_id', 'symbol', 'exchange', 'product']).doUpdateSet({
        quantity: $('quantity'),
        cost: $('cost'),
        margin: $('margin'),
        realised_pnl: $('realised_pnl'),
        charges: $('charges'),
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
    brokerage: $('brokerage'),
    stt: $('stt'),
    exchange_charges: $('exchange_charges'),
    sebi_fee: $('sebi_fee'),
    stamp_duty: $('stamp_duty'),
    gst: $('gst'),
    charges: $('charges'),
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
