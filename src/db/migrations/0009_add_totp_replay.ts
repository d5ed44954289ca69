import type { Kysely } from 'kysely';

/**
 * Two-factor codes (docs/rules/auth.md#totp-codes, docs/rules/auth.md#login-with-totp).
 *
 * - `users.totp_last_step`: the RFC 6238 time step of the last accepted code. A code is accepted
 *   only for a later step, written with a compare-and-set, so a code cannot be used twice even
 *   when two instances receive it at the same moment (replay protection held in the database).
 * - `users.totp_pending_secret`: the secret of an enrollment not yet confirmed with a code
 *   (SecretBox ciphertext, purpose `totp-secret`, like `totp_secret`); the active secret is never
 *   replaced until the user proves the new one.
 * - `pending_totp_logins`: a correct password whose login still needs a code. The browser holds a
 *   random token; the row holds only its SHA-256, and dies after five minutes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('totp_last_step', 'bigint').execute();
  await db.schema.alterTable('users').addColumn('totp_pending_secret', 'text').execute();

  await db.schema
    .createTable('pending_totp_logins')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('ip', 'varchar(64)')
    .addColumn('user_agent', 'varchar(512)')
    .execute();
  await db.schema
    .createIndex('pending_totp_logins_expires_at_idx')
    .on('pending_totp_logins')
    .column('expires_at')
    .execute();
}
