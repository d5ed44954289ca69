import type { Kysely, Selectable } from 'kysely';
import type { DB, IpBansTable } from '../../db/schema.js';

export type BanRow = Selectable<IpBansTable>;

/** The only place that touches `ip_bans`. */
export class BansRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** One indexed lookup (unique index on ip): the ban row of an address, active or not. */
  find(ip: string): Promise<Pick<BanRow, 'expires_at'> | undefined> {
    return this.db.selectFrom('ip_bans').select('expires_at').where('ip', '=', ip).executeTakeFirst();
  }

  findFull(ip: string): Promise<BanRow | undefined> {
    return this.db.selectFrom('ip_bans').selectAll().where('ip', '=', ip).executeTakeFirst();
  }

  /**
   * Creates or renews the ban of `ip` in one transaction and returns the row. `decide` sees the
   * previous row (if any) and returns the new expiry and count, so the repeat-offender rule is
   * applied to what is actually stored.
   */
  upsert(
    ip: string,
    decide: (prev: BanRow | undefined) => {
      reason: string;
      createdBy: string;
      at: number;
      expiresAt: number | null;
      banCount: number;
    },
  ): Promise<BanRow> {
    return this.db.transaction().execute(async (trx) => {
      const prev = await trx.selectFrom('ip_bans').selectAll().where('ip', '=', ip).executeTakeFirst();
      const d = decide(prev);
      const values = {
        reason: d.reason,
        created_by: d.createdBy,
        created_at: d.at,
        expires_at: d.expiresAt,
        ban_count: d.banCount,
      };
      if (prev) await trx.updateTable('ip_bans').set(values).where('ip', '=', ip).execute();
      else
        await trx
          .insertInto('ip_bans')
          .values({ ip, ...values })
          .execute();
      return trx.selectFrom('ip_bans').selectAll().where('ip', '=', ip).executeTakeFirstOrThrow();
    });
  }

  async delete(ip: string): Promise<boolean> {
    const r = await this.db.deleteFrom('ip_bans').where('ip', '=', ip).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Active bans (permanent or not yet expired), newest first. */
  listActive(now: number, limit: number): Promise<BanRow[]> {
    return this.db
      .selectFrom('ip_bans')
      .selectAll()
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
  }

  async countActive(now: number): Promise<{ total: number; permanent: number }> {
    const row = await this.db
      .selectFrom('ip_bans')
      .select((eb) => [
        eb.fn.countAll<number>().as('total'),
        eb.fn.sum<number>(eb.case().when('expires_at', 'is', null).then(1).else(0).end()).as('permanent'),
      ])
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .executeTakeFirstOrThrow();
    return { total: Number(row.total), permanent: Number(row.permanent ?? 0) };
  }

  /** Deletes bans that expired before `before` (kept until then for the repeat-offender rule). */
  async deleteExpiredBefore(before: number): Promise<number> {
    const r = await this.db
      .deleteFrom('ip_bans')
      .where('expires_at', 'is not', null)
      .where('expires_at', '<', before)
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
