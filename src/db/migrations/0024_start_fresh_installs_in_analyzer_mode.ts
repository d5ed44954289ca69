import { sql, type Kysely } from 'kysely';

/**
 * A fresh install starts in analyzer mode (docs/rules/orders.md#fresh-install-analyzer): with no
 * broker session its first order would otherwise answer "No broker session"; paper orders fill in
 * the sandbox. An install is fresh when this migration finds no user (it runs with every other
 * migration on the first start); an existing install keeps its mode. Switching to live stays the
 * user's explicit act.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update settings set analyze_mode = ${sql.lit(true)} where id = 1 and not exists (select 1 from users)`.execute(
    db,
  );
}
