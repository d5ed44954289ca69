import type { Kysely } from 'kysely';

/**
 * A broker session's other credentials (docs/rules/brokers.md#broker-sessions): the refresh token
 * that renews an access token (Angel One's `refreshToken`) and the market-feed token its tick
 * stream wants (Angel's `feedToken`), each sealed like the access token (SecretBox, purpose
 * `broker-token`). Null: the broker gave none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('broker_sessions').addColumn('refresh_token_encrypted', 'text').execute();
  await db.schema.alterTable('broker_sessions').addColumn('feed_token_encrypted', 'text').execute();
}
