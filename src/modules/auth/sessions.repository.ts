import type { Kysely, Selectable } from 'kysely';
import type { DB, PendingTotpLoginsTable, SessionsTable } from '../../db/schema.js';

export type SessionRow = Selectable<SessionsTable>;
export type PendingTotpLoginRow = Selectable<PendingTotpLoginsTable>;

/** The only place that touches the `sessions` table. Ids are SHA-256 digests of cookie values. */
export class SessionsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async insert(row: SessionRow): Promise<void> {
    await this.db.insertInto('sessions').values(row).execute();
  }

  find(id: string): Promise<SessionRow | undefined> {
    return this.db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async touch(id: string, at: number): Promise<void> {
    await this.db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
  }

  async delete(id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('sessions').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Deletes the user's sessions, but `keep` (a session id) when given. */
  async deleteForUser(userId: number, keep?: string): Promise<number> {
    let q = this.db.deleteFrom('sessions').where('user_id', '=', userId);
    if (keep !== undefined) q = q.where('id', '!=', keep);
    const r = await q.executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** Removes sessions past their absolute expiry or idle for longer than `idleMs`. */
  async deleteExpired(now: number, idleMs: number): Promise<number> {
    const r = await this.db
      .deleteFrom('sessions')
      .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', now - idleMs)]))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** Stamps the session's two-factor marker (`totp_verified_at`). */
  async stampTotp(id: string, at: number): Promise<void> {
    await this.db.updateTable('sessions').set({ totp_verified_at: at }).where('id', '=', id).execute();
  }

  async totpVerifiedAt(id: string): Promise<number | null | undefined> {
    const row = await this.db
      .selectFrom('sessions')
      .select('totp_verified_at')
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : row.totp_verified_at;
  }

  // Pending two-factor logins: a correct password waiting for its code.

  async insertPendingTotp(row: PendingTotpLoginRow): Promise<void> {
    await this.db.insertInto('pending_totp_logins').values(row).execute();
  }

  findPendingTotp(id: string): Promise<PendingTotpLoginRow | undefined> {
    return this.db.selectFrom('pending_totp_logins').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Deletes a pending login; true for the one caller that removed it (single use). */
  async deletePendingTotp(id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('pending_totp_logins').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async deleteExpiredPendingTotp(now: number): Promise<number> {
    const r = await this.db
      .deleteFrom('pending_totp_logins')
      .where('expires_at', '<=', now)
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** Live sessions with their user's name, newest first. */
  listActive(now: number, idleMs: number) {
    return this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select([
        'sessions.id',
        'sessions.user_id',
        'users.username',
        'sessions.ip',
        'sessions.user_agent',
        'sessions.created_at',
        'sessions.last_seen_at',
        'sessions.expires_at',
      ])
      .where('sessions.expires_at', '>', now)
      .where('sessions.last_seen_at', '>', now - idleMs)
      .orderBy('sessions.last_seen_at', 'desc')
      .execute();
  }
}
