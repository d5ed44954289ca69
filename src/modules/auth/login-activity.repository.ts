import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { fromDbBool, toDbBool } from '../../platform/db/database.js';

export interface LoginAttempt {
  ts: number;
  ip: string;
  username: string;
  success: boolean;
  userAgent: string | undefined;
}

/** Every login attempt (time, IP, username tried, outcome, user agent). */
export class LoginActivityRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async record(a: LoginAttempt): Promise<void> {
    await this.db
      .insertInto('login_activity')
      .values({
        ts: a.ts,
        ip: a.ip,
        username: a.username.slice(0, 64),
        success: toDbBool(a.success),
        user_agent: a.userAgent?.slice(0, 512) ?? null,
      })
      .execute();
  }

  async recent(limit: number) {
    const rows = await this.db
      .selectFrom('login_activity')
      .selectAll()
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ ...r, success: fromDbBool(r.success) }));
  }

  async clear(): Promise<number> {
    const r = await this.db.deleteFrom('login_activity').executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
