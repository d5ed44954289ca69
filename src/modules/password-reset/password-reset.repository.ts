import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB, PasswordResetsTable } from '../../db/schema.js';
import type { UserRow } from '../auth/users.repository.js';

export type PasswordResetRow = Selectable<PasswordResetsTable>;

/**
 * The `password_resets` table, plus the one write that completes a reset. That write touches
 * `users`, `sessions` and `pending_totp_logins` as well, because it must be one transaction: the
 * token is spent, the hash replaced and every session of the user ended together, or not at all.
 */
export class PasswordResetRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** The user whose address this is (case-insensitive); the oldest account when several share it. */
  findUserByEmail(email: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where(sql<string>`lower(email)`, '=', email.toLowerCase())
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
  }

  /**
   * Stores a new token. An e-mailed link replaces the user's earlier unused links, so only the
   * newest message in the inbox works.
   */
  async insert(row: PasswordResetRow): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      if (row.method === 'email') {
        await trx
          .deleteFrom('password_resets')
          .where('user_id', '=', row.user_id)
          .where('method', '=', 'email')
          .where('used_at', 'is', null)
          .execute();
      }
      await trx.insertInto('password_resets').values(row).execute();
    });
  }

  find(id: string): Promise<PasswordResetRow | undefined> {
    return this.db.selectFrom('password_resets').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Spends the token and sets the password: true only for the one caller whose UPDATE took the
   * unused, unexpired token. In the same transaction the user's other tokens, sessions and
   * pending two-factor logins are deleted.
   */
  complete(id: string, userId: number, passwordHash: string, now: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const spent = await trx
        .updateTable('password_resets')
        .set({ used_at: now })
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (Number(spent.numUpdatedRows) !== 1) return false;
      await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
      await trx.deleteFrom('password_resets').where('user_id', '=', userId).where('id', '!=', id).execute();
      await trx.deleteFrom('sessions').where('user_id', '=', userId).execute();
      await trx.deleteFrom('pending_totp_logins').where('user_id', '=', userId).execute();
      return true;
    });
  }

  /** Deletes tokens past their expiry (spent ones included); returns how many. */
  async deleteExpired(now: number): Promise<number> {
    const r = await this.db.deleteFrom('password_resets').where('expires_at', '<=', now).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
