import type { Kysely } from 'kysely';

/**
 * `instruments.reference_price`: the price the broker's instrument file states for the contract
 * (its `last_price` column), in rupees like `strike` and `tick_size`; null when the file states
 * none (a Fyers master, Kite's frequent 0). The simulated price source starts an instrument's walk
 * from it (docs/rules/sandbox.md#simulated-prices). Rows imported before this column existed keep
 * null until the next import.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('instruments').addColumn('reference_price', 'double precision').execute();
}
