import type { Kysely } from 'kysely';

/**
 * An administrator can disable an account (docs/rules/auth.md#account-management): it keeps its
 * data but cannot sign in, and its sessions, API key and agent tokens are revoked. Null: enabled.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('disabled_at', 'bigint').execute();
}
