import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

export interface ApiKeyOwner {
  user_id: number;
  username: string;
  order_mode: string;
  is_admin: number | boolean;
  created_at: number;
}

/** The only place that touches `api_keys`: one row per user, looked up by its unique digest. */
export class ApiKeysRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** One indexed lookup: the key's owner, or undefined. */
  findOwnerByDigest(digest: string): Promise<ApiKeyOwner | undefined> {
    return this.db
      .selectFrom('api_keys')
      .innerJoin('users', 'users.id', 'api_keys.user_id')
      .select([
        'api_keys.user_id',
        'users.username',
        'users.order_mode',
        'users.is_admin',
        'api_keys.created_at',
      ])
      .where('api_keys.key_digest', '=', digest)
      .where('users.disabled_at', 'is', null)
      .executeTakeFirst();
  }

  async deleteForUser(userId: number): Promise<void> {
    await this.db.deleteFrom('api_keys').where('user_id', '=', userId).execute();
  }

  findByUser(userId: number): Promise<{ key_digest: string; created_at: number } | undefined> {
    return this.db
      .selectFrom('api_keys')
      .select(['key_digest', 'created_at'])
      .where('user_id', '=', userId)
      .executeTakeFirst();
  }

  /** Replaces the user's key in one transaction; returns the digest it replaced, if any. */
  replace(userId: number, digest: string, at: number): Promise<string | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const old = await trx
        .selectFrom('api_keys')
        .select('key_digest')
        .where('user_id', '=', userId)
        .executeTakeFirst();
      await trx.deleteFrom('api_keys').where('user_id', '=', userId).execute();
      await trx
        .insertInto('api_keys')
        .values({ user_id: userId, key_digest: digest, created_at: at })
        .execute();
      return old?.key_digest;
    });
  }
}
