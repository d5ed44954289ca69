/** The only place that touches `broker_apps` and `broker_app_choices` (docs/rules/brokers.md#broker-apps). */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { BrokerAppsTable, DB } from '../../db/schema.js';

export type BrokerAppRow = Selectable<BrokerAppsTable>;

export class BrokerAppsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  list(): Promise<BrokerAppRow[]> {
    return this.db.selectFrom('broker_apps').selectAll().orderBy('id').execute();
  }

  async insert(row: Omit<Insertable<BrokerAppsTable>, 'id'>): Promise<number> {
    const r = await this.db.insertInto('broker_apps').values(row).returning('id').executeTakeFirstOrThrow();
    return Number(r.id);
  }

  /** Updates the given columns; false when no such app. */
  async update(
    id: number,
    set: Partial<Omit<Selectable<BrokerAppsTable>, 'id' | 'broker' | 'created_at'>>,
  ): Promise<boolean> {
    const r = await this.db.updateTable('broker_apps').set(set).where('id', '=', id).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /**
   * Deletes the app, the users' choices of it and the sessions made with it, in one transaction;
   * the users whose choice or session went, for the caches to drop.
   */
  async delete(id: number): Promise<{ found: boolean; users: number[] }> {
    return this.db.transaction().execute(async (tx) => {
      const chose = await tx
        .selectFrom('broker_app_choices')
        .select('user_id')
        .where('broker_app_id', '=', id)
        .execute();
      const sessions = await tx
        .selectFrom('broker_sessions')
        .select('user_id')
        .where('broker_app_id', '=', id)
        .execute();
      await tx.deleteFrom('broker_app_choices').where('broker_app_id', '=', id).execute();
      await tx.deleteFrom('broker_sessions').where('broker_app_id', '=', id).execute();
      const r = await tx.deleteFrom('broker_apps').where('id', '=', id).executeTakeFirst();
      const users = [...new Set([...chose, ...sessions].map((u) => Number(u.user_id)))];
      return { found: Number(r.numDeletedRows) > 0, users };
    });
  }

  /** Forgets a deleted account's choice. */
  async forgetUser(userId: number): Promise<void> {
    await this.db.deleteFrom('broker_app_choices').where('user_id', '=', userId).execute();
  }

  /** The user's chosen app id; undefined: none chosen (the bootstrap app). */
  async choice(userId: number): Promise<number | undefined> {
    const r = await this.db
      .selectFrom('broker_app_choices')
      .select('broker_app_id')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return r ? Number(r.broker_app_id) : undefined;
  }

  /** Records the user's choice (0: back to the bootstrap app) and drops a session of another app. */
  async choose(userId: number, appId: number, at: number): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('broker_app_choices').where('user_id', '=', userId).execute();
      if (appId !== 0)
        await tx
          .insertInto('broker_app_choices')
          .values({ user_id: userId, broker_app_id: appId, chosen_at: at })
          .execute();
      const other =
        appId === 0
          ? tx
              .deleteFrom('broker_sessions')
              .where('user_id', '=', userId)
              .where('broker_app_id', 'is not', null)
          : tx
              .deleteFrom('broker_sessions')
              .where('user_id', '=', userId)
              .where((eb) => eb.or([eb('broker_app_id', 'is', null), eb('broker_app_id', '!=', appId)]));
      await other.execute();
    });
  }
}
