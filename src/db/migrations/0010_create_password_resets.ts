import type { Kysely } from 'kysely';

/**
 * Password reset (docs/rules/auth.md#password-reset-paths).
 *
 * `password_resets`: one row per reset token handed out, by the e-mailed link or after a correct
 * authenticator code. The token itself is shown once (in the mail, or in the TOTP step's
 * response); the row holds only its SHA-256, so the link works in any browser without a session
 * and a copy of the database cannot reset anyone's password. A token is good for 15 minutes and
 * once: `used_at` is set in the same transaction that writes the new password hash.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('password_resets')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    /** `email` (the mailed link) or `totp` (issued after a correct code). */
    .addColumn('method', 'varchar(8)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('ip', 'varchar(64)')
    .execute();
  await db.schema.createIndex('password_resets_user_idx').on('password_resets').column('user_id').execute();
  await db.schema
    .createIndex('password_resets_expires_at_idx')
    .on('password_resets')
    .column('expires_at')
    .execute();
}
