import type { Kysely, Selectable } from 'kysely';
import type { DB, SessionsTable } from '../../db/schema.js';

export type SessionRow = Selectable<SessionsTable>;

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

  async deleteForUser(userId: number): Promise<number> {
    const r = await this.db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst();
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
