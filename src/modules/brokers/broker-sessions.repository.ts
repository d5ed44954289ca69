/** The only place that touches `broker_sessions`: one sealed broker session per user. */
import type { Kysely, Selectable } from 'kysely';
import type { BrokerSessionsTable, DB } from '../../db/schema.js';

export type BrokerSessionRow = Selectable<BrokerSessionsTable>;

export class BrokerSessionsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  getBrokerSession(userId: number): Promise<BrokerSessionRow | undefined> {
    return this.db.selectFrom('broker_sessions').selectAll().where('user_id', '=', userId).executeTakeFirst();
  }

  /** The most recently created session of any user, of `broker` when given (the sandbox's quotes run under it). */
  latestBrokerSession(broker?: string): Promise<BrokerSessionRow | undefined> {
    return this.db
      .selectFrom('broker_sessions')
      .selectAll()
      .$if(broker !== undefined, (q) => q.where('broker', '=', broker!))
      .orderBy('created_at', 'desc')
      .orderBy('user_id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  async saveBrokerSession(row: BrokerSessionRow): Promise<void> {
    await this.db
      .insertInto('broker_sessions')
      .values(row)
      .onConflict((oc) =>
        oc.column('user_id').doUpdateSet({
          broker: row.broker,
          access_token_encrypted: row.access_token_encrypted,
          broker_user_id: row.broker_user_id,
          expires_at: row.expires_at,
          created_at: row.created_at,
          refresh_token_encrypted: row.refresh_token_encrypted,
          feed_token_encrypted: row.feed_token_encrypted,
          broker_app_id: row.broker_app_id,
        }),
      )
      .execute();
  }

  async deleteBrokerSession(userId: number): Promise<void> {
    await this.db.deleteFrom('broker_sessions').where('user_id', '=', userId).execute();
  }
}
