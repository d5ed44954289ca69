import type { Kysely, Selectable } from 'kysely';
import type { DB, UsersTable } from '../../db/schema.js';
import { toDbBool } from '../../platform/db/database.js';

export type UserRow = Selectable<UsersTable>;

export interface NewUser {
  username: string;
  email: string | null;
  passwordHash: string;
  createdAt: number;
}

/** The only place that touches the `users` table. */
export class UsersRepository {
  constructor(private readonly db: Kysely<DB>) {}

  findByUsername(username: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
  }

  findById(id: number): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  list(): Promise<UserRow[]> {
    return this.db.selectFrom('users').selectAll().orderBy('id').execute();
  }

  async count(): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * Inserts a user; the first user of the install becomes the administrator. The count and the
   * insert share one transaction so two concurrent first users cannot both become admin.
   */
  create(user: NewUser): Promise<UserRow> {
    return this.db.transaction().execute(async (trx) => {
      const existing = await trx
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const id = await trx
        .insertInto('users')
        .values({
          username: user.username,
          email: user.email,
          password_hash: user.passwordHash,
          is_admin: toDbBool(Number(existing.n) === 0),
          order_mode: 'auto',
          totp_enabled: 0,
          totp_required_for_login: 0,
          totp_required_for_mcp: 0,
          totp_required_for_password_reset: 0,
          created_at: user.createdAt,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return trx.selectFrom('users').selectAll().where('id', '=', id.id).executeTakeFirstOrThrow();
    });
  }

  async setOrderMode(userId: number, mode: string): Promise<void> {
    await this.db.updateTable('users').set({ order_mode: mode }).where('id', '=', userId).execute();
  }
}
