import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Charges in the sandbox (docs/rules/sandbox.md#charges-booked) and its daily equity
 * (docs/rules/sandbox.md#daily-equity). Money columns are bigint ten-thousandths of a rupee.
 *
 * - `sandbox_trades`: each fill's contract-note charges, by kind (`brokerage`, `stt` — CTT on
 *   commodities —, `exchange_charges`, `sebi_fee`, `stamp_duty`, `gst`) and their total
 *   `charges`. Trades booked before this migration paid none (0).
 * - `sandbox_positions.charges`: what the fills of the position row paid, so its net P&L is
 *   realised − charges.
 * - `sandbox_accounts.charges`: what every fill since the last reset paid; `available` is already
 *   net of it (starting funds + realised − charges = available + used margin + holdings at cost).
 * - `sandbox_equity_days`: one row per account and IST day: the funds, realised and unrealised
 *   P&L, charges and holdings' value as the day left them (the last pass of the day wins).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const c of ['brokerage', 'stt', 'exchange_charges', 'sebi_fee', 'stamp_duty', 'gst', 'charges'])
    await db.schema
      .alterTable('sandbox_trades')
      .addColumn(c, 'bigint', (col) => col.notNull().defaultTo(0))
      .execute();
  await db.schema
    .alterTable('sandbox_positions')
    .addColumn('charges', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('sandbox_accounts')
    .addColumn('charges', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute();

  await withId(db, db.schema.createTable('sandbox_equity_days'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    /** IST day, `YYYY-MM-DD`. */
    .addColumn('day', 'varchar(10)', (c) => c.notNull())
    .addColumn('available', 'bigint', (c) => c.notNull())
    .addColumn('used_margin', 'bigint', (c) => c.notNull())
    /** Realised P&L and charges since the account's last reset (running totals). */
    .addColumn('realised_pnl', 'bigint', (c) => c.notNull())
    .addColumn('charges', 'bigint', (c) => c.notNull())
    /** Open positions marked at the day's last prices (unmarked ones count 0). */
    .addColumn('unrealised_pnl', 'bigint', (c) => c.notNull())
    /** Delivery holdings at the day's last prices (at cost when unmarked). */
    .addColumn('holdings_value', 'bigint', (c) => c.notNull())
    /** available + used margin + holdings' value + unrealised P&L. */
    .addColumn('equity', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sandbox_equity_days_key_idx')
    .on('sandbox_equity_days')
    .columns(['user_id', 'day'])
    .unique()
    .execute();
}
