/**
 * The PostgreSQL-only statements of a placement (used by sandbox.repository.ts only). On
 * PostgreSQL every statement is a round trip to the database, and one user's placements run one
 * after another behind the lock on their account (platform/db/group-commit.ts), so a placement's
 * statements, not its CPU, bound that user's orders per second there: the reads of a placement's
 * stake take one statement (after the lock's own, or with it when the transaction holds the lock
 * already: docs/rules/sandbox.md#lock-then-read) and a fill at once one statement, where SQLite
 * runs three and five plain ones (statements.ts: a statement costs no round trip there).
 * Both paths write and read the same rows; the behaviour tests run on both databases.
 */
import { sql, type ExpressionBuilder, type Insertable, type Kysely } from 'kysely';
import type { DB, SandboxTradesTable } from '../../../db/schema.js';
import { prepareQuery, type PreparedQuery } from '../../../platform/db/prepared.js';
import type { AccountRow, HoldingRow, OrderRow, PositionRow } from './rows.js';
import { eventDetail, selectAccountForUpdate, type NewOrderRow } from './statements.js';
import { RESTING } from '../core/types.js';

export type FilledOrderParams = Record<string, number | string | null>;

/**
 * The order columns {@link filledOrderInsert} takes, each as parameter `o_<column>`: every column
 * but the id (`satisfies` fails to compile when the table gains or loses one).
 */
const ORDER_COLUMNS = Object.keys({
  user_id: true,
  symbol: true,
  exchange: true,
  side: true,
  price_type: true,
  product: true,
  kind: true,
  quantity: true,
  price: true,
  trigger_price: true,
  status: true,
  filled_quantity: true,
  average_price: true,
  blocked_margin: true,
  blocked_quantity: true,
  reason: true,
  strategy: true,
  tag: true,
  day: true,
  created_at: true,
  updated_at: true,
} satisfies Record<keyof NewOrderRow, true>) as (keyof NewOrderRow)[];

const filledOrderStatements = new Map<number, PreparedQuery<DB, FilledOrderParams, { id: number }>>();

/**
 * PostgreSQL only: an order inserted already filled together with every row its fill writes, in
 * one statement of data-modifying CTEs (docs/rules/sandbox.md#fills): the order (its id comes
 * back), its `n` event rows and its trade (both given that id by the statement), the position
 * upserted and the account saved. On PostgreSQL each statement is a round trip to the database,
 * and one user's placements run one after another behind the lock on their account: these five
 * writes as one statement are four round trips less per order. SQLite runs them one by one
 * (sandbox.repository.ts).
 *
 * Parameters: the order's columns as `o_<column>`; event `i`'s as `e<i>_user_id`,
 * `e<i>_from_status`, `e<i>_to_status`, `e<i>_detail`, `e<i>_at`; the trade's as `t_<column>`
 * (no `order_id`); the position's as `p_<column>`; the account's as `a_<column>`. The tables have
 * no foreign keys, and each CTE writes a different table, so none needs to see another's rows.
 */
export function filledOrderInsert(n: number): PreparedQuery<DB, FilledOrderParams, { id: number }> {
  let q = filledOrderStatements.get(n);
  if (q) return q;
  q = prepareQuery<DB, FilledOrderParams, { id: number }>((db, $) => {
    const v = (name: string) => $(name) as never;
    const order = Object.fromEntries(ORDER_COLUMNS.map((c) => [c, v(`o_${c}`)])) as unknown as NewOrderRow;
    return db
      .with('o', (qc) => qc.insertInto('sandbox_orders').values(order).returning('id'))
      .with('e', (qc) => {
        // Values in a SELECT list are typed by their casts (an untyped parameter there is text).
        const row = (i: number) =>
          qc
            .selectFrom('o')
            .select((eb) => [
              'o.id as order_id',
              eb.cast<number>(eb.val(v(`e${i}_user_id`)), 'integer').as('user_id'),
              eb.cast<string | null>(eb.val(v(`e${i}_from_status`)), 'varchar').as('from_status'),
              eb.cast<string>(eb.val(v(`e${i}_to_status`)), 'varchar').as('to_status'),
              eb.cast<string | null>(eb.val(v(`e${i}_detail`)), 'varchar').as('detail'),
              eb.cast<number>(eb.val(v(`e${i}_at`)), 'bigint').as('at'),
            ]);
        let rows = row(0);
        for (let i = 1; i < n; i++) rows = rows.unionAll(row(i));
        return qc
          .insertInto('sandbox_order_events')
          .columns(['order_id', 'user_id', 'from_status', 'to_status', 'detail', 'at'])
          .expression(rows);
      })
      .with('t', (qc) =>
        qc
          .insertInto('sandbox_trades')
          .columns([
            'order_id',
            'user_id',
            'symbol',
            'exchange',
            'side',
            'product',
            'quantity',
            'price',
            'strategy',
            'created_at',
            'brokerage',
            'stt',
            'exchange_charges',
            'sebi_fee',
            'stamp_duty',
            'gst',
            'charges',
          ])
          .expression(
            qc
              .selectFrom('o')
              .select((eb) => [
                'o.id as order_id',
                eb.cast<number>(eb.val(v('t_user_id')), 'integer').as('user_id'),
                eb.cast<string>(eb.val(v('t_symbol')), 'varchar').as('symbol'),
                eb.cast<string>(eb.val(v('t_exchange')), 'varchar').as('exchange'),
                eb.cast<string>(eb.val(v('t_side')), 'varchar').as('side'),
                eb.cast<string>(eb.val(v('t_product')), 'varchar').as('product'),
                eb.cast<number>(eb.val(v('t_quantity')), 'integer').as('quantity'),
                eb.cast<number>(eb.val(v('t_price')), 'bigint').as('price'),
                eb.cast<string | null>(eb.val(v('t_strategy')), 'varchar').as('strategy'),
                eb.cast<number>(eb.val(v('t_created_at')), 'bigint').as('created_at'),
                eb.cast<number>(eb.val(v('t_brokerage')), 'bigint').as('brokerage'),
                eb.cast<number>(eb.val(v('t_stt')), 'bigint').as('stt'),
                eb.cast<number>(eb.val(v('t_exchange_charges')), 'bigint').as('exchange_charges'),
                eb.cast<number>(eb.val(v('t_sebi_fee')), 'bigint').as('sebi_fee'),
                eb.cast<number>(eb.val(v('t_stamp_duty')), 'bigint').as('stamp_duty'),
                eb.cast<number>(eb.val(v('t_gst')), 'bigint').as('gst'),
                eb.cast<number>(eb.val(v('t_charges')), 'bigint').as('charges'),
              ]),
          ),
      )
      .with('p', (qc) =>
        qc
          .insertInto('sandbox_positions')
          .values({
            user_id: v('p_user_id'),
            symbol: v('p_symbol'),
            exchange: v('p_exchange'),
            product: v('p_product'),
            quantity: v('p_quantity'),
            cost: v('p_cost'),
            margin: v('p_margin'),
            realised_pnl: v('p_realised_pnl'),
            charges: v('p_charges'),
            day: v('p_day'),
            updated_at: v('p_updated_at'),
          })
          .onConflict((oc) =>
            oc.columns(['user_id', 'symbol', 'exchange', 'product']).doUpdateSet((eb) => ({
              quantity: eb.ref('excluded.quantity'),
              cost: eb.ref('excluded.cost'),
              margin: eb.ref('excluded.margin'),
              realised_pnl: eb.ref('excluded.realised_pnl'),
              charges: eb.ref('excluded.charges'),
              day: eb.ref('excluded.day'),
              updated_at: eb.ref('excluded.updated_at'),
            })),
          ),
      )
      .with('a', (qc) =>
        qc
          .updateTable('sandbox_accounts')
          .set({
            available: v('a_available'),
            used_margin: v('a_used_margin'),
            realised_pnl: v('a_realised_pnl'),
            charges: v('a_charges'),
            starting_funds: v('a_starting_funds'),
            reset_at: v('a_reset_at'),
            updated_at: v('a_updated_at'),
          })
          .where('user_id', '=', v('a_user_id')),
      )
      .selectFrom('o')
      .select('id');
  });
  filledOrderStatements.set(n, q);
  return q;
}

/** The stake's rows of one instrument and product, as {@link stakeColumns} select them. */
export interface StakeRows {
  stake_position: PositionRow | null;
  stake_holding: HoldingRow | null;
  stake_resting: OrderRow[];
}

type StakeParams = { userId: number; symbol: string; exchange: string; product: string };

/**
 * What a placement reads of one instrument and product, as three columns of one row: the
 * position, the delivery holding and the working orders, each as JSON of its rows (their columns
 * as the plain SELECTs give them: int8 is read as a number either way). Two round trips less per
 * placement than three SELECTs; SQLite runs them one by one (ledger.ts).
 */
function stakeColumns(
  eb: ExpressionBuilder<DB, never>,
  $: <K extends keyof StakeParams>(k: K) => StakeParams[K],
) {
  return [
    eb
      .selectFrom('sandbox_positions as p')
      .select(sql<PositionRow>`row_to_json(p)`.as('j'))
      .where('p.user_id', '=', $('userId'))
      .where('p.symbol', '=', $('symbol'))
      .where('p.exchange', '=', $('exchange'))
      .where('p.product', '=', $('product'))
      .as('stake_position'),
    eb
      .selectFrom('sandbox_holdings as h')
      .select(sql<HoldingRow>`row_to_json(h)`.as('j'))
      .where('h.user_id', '=', $('userId'))
      .where('h.symbol', '=', $('symbol'))
      .where('h.exchange', '=', $('exchange'))
      .as('stake_holding'),
    eb
      .selectFrom('sandbox_orders as o')
      .select(sql<OrderRow[]>`coalesce(json_agg(o order by o.id), '[]'::json)`.as('j'))
      .where('o.user_id', '=', $('userId'))
      .where('o.status', 'in', [...RESTING])
      .where('o.symbol', '=', $('symbol'))
      .where('o.exchange', '=', $('exchange'))
      .where('o.product', '=', $('product'))
      .as('stake_resting'),
  ] as const;
}

/**
 * PostgreSQL only: the stake's rows ({@link stakeColumns}), read after the account's lock was
 * taken by a statement of its own (docs/rules/sandbox.md#lock-then-read): under READ COMMITTED a
 * statement that waited for a row lock sees the locked row as its holder committed it, but every
 * other row (these subqueries) as it was when the statement started, before that commit. A
 * placement whose position was read in the statement that waited for the previous placement's
 * lock computed its new position from the one before that placement: a lost update.
 */
export const selectStakeRows = prepareQuery<DB, StakeParams, StakeRows>((db, $) =>
  db.selectNoFrom((eb) => stakeColumns(eb, $)),
);

/**
 * PostgreSQL only: the account locked (`FOR UPDATE`) and its stake read in one statement, for a
 * transaction that holds that lock already (an earlier placement of its group took it): there is
 * no lock to wait for, so the statement's snapshot, taken at its start, already has every change
 * a holder of the lock committed. Never for a transaction that has yet to take the lock (see
 * {@link selectStakeRows}).
 */
export const selectLockedAccountWithStake = prepareQuery<DB, StakeParams, AccountRow & StakeRows>((db, $) =>
  db
    .selectFrom('sandbox_accounts as a')
    .selectAll('a')
    .select((eb) => stakeColumns(eb as unknown as ExpressionBuilder<DB, never>, $))
    .where('a.user_id', '=', $('userId'))
    .forUpdate(),
);

/** An account locked with its stake in one instrument and product ({@link selectStake}). */
export interface AccountStake {
  account: AccountRow;
  /** As read, or as a fill earlier in the transaction wrote it (its id then unknown). */
  position?: Omit<PositionRow, 'id'>;
  holding?: HoldingRow;
  /** The working orders, oldest first. */
  resting: OrderRow[];
}

/**
 * The account of `userId` locked, and its stake read; undefined when it has no account yet. The
 * lock first, then the reads it protects, as two statements (see {@link selectStakeRows}); one
 * statement when `lockHeld` says this transaction holds the lock already.
 */
export async function selectStake(
  db: Kysely<DB>,
  userId: number,
  key: { symbol: string; exchange: string; product: string },
  lockHeld: boolean,
): Promise<AccountStake | undefined> {
  const params = { userId, ...key };
  let account: AccountRow;
  let stake: StakeRows;
  if (lockHeld) {
    const row = (await selectLockedAccountWithStake.execute(db, params)).rows[0];
    if (!row) return undefined;
    const { stake_position, stake_holding, stake_resting, ...rest } = row;
    account = rest;
    stake = { stake_position, stake_holding, stake_resting };
  } else {
    const locked = (await selectAccountForUpdate.execute(db, { userId })).rows[0];
    if (!locked) return undefined;
    account = locked;
    const row = (await selectStakeRows.execute(db, params)).rows[0];
    if (!row) throw new Error('sandbox stake read returned no row');
    stake = row;
  }
  return {
    account,
    ...(stake.stake_position ? { position: stake.stake_position } : {}),
    ...(stake.stake_holding ? { holding: stake.stake_holding } : {}),
    resting: stake.stake_resting,
  };
}

/** The rows a fill writes beside its order: the position, the trade (its order id aside), the account. */
export interface FillRows {
  position: Omit<PositionRow, 'id'>;
  trade: Omit<Insertable<SandboxTradesTable>, 'id' | 'order_id'>;
  account: AccountRow;
}

/** One order inserted already filled, with its events and fill rows ({@link filledOrderInsert}). */
export async function insertFilledOrderAtOnce(
  db: Kysely<DB>,
  order: NewOrderRow,
  events: readonly { userId: number; from: string | null; to: string; detail: string | null; at: number }[],
  fill: FillRows,
): Promise<OrderRow> {
  const params: FilledOrderParams = {};
  const put = (prefix: string, values: object) => {
    for (const [k, v] of Object.entries(values)) params[`${prefix}${k}`] = v as number | string | null;
  };
  put('o_', order);
  events.forEach((e, i) => {
    params[`e${i}_user_id`] = e.userId;
    params[`e${i}_from_status`] = e.from;
    params[`e${i}_to_status`] = e.to;
    params[`e${i}_detail`] = eventDetail(e.detail);
    params[`e${i}_at`] = e.at;
  });
  put('t_', { ...fill.trade, strategy: fill.trade.strategy ?? null });
  put('p_', fill.position);
  put('a_', fill.account);
  const inserted = (await filledOrderInsert(events.length).execute(db, params)).rows[0];
  if (!inserted) throw new Error('sandbox order insert returned no row');
  return { id: inserted.id, ...order };
}
