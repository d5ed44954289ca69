import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { isPostgres } from '../../platform/db/database.js';
import { TRACKED_404_PATHS, TRACKED_KEY_DIGESTS } from '../../domain/limits.js';

export type TrackerKind = '404' | 'apikey';

/** One tracker's state for an address. `items` are paths (404) or key digests (API keys). */
export interface TrackerState {
  ip: string;
  count: number;
  items: string[];
  first_seen: number;
  last_seen: number;
}

const TABLES = {
  '404': { table: 'error_404_tracker', column: 'paths', cap: TRACKED_404_PATHS },
  apikey: { table: 'invalid_api_key_tracker', column: 'key_digests', cap: TRACKED_KEY_DIGESTS },
} as const;

/** The only place that touches the two tracker tables. */
export class TrackersRepository {
  private readonly pg: boolean;

  constructor(private readonly db: Kysely<DB>) {
    this.pg = isPostgres(db);
  }

  /**
   * Adds `count` events and their distinct `items` to the tracker of `ip`, in one transaction.
   * A window older than `windowMs` starts over. The row is locked (PostgreSQL) so several
   * instances flushing the same address add up instead of overwriting each other.
   */
  add(
    kind: TrackerKind,
    ip: string,
    count: number,
    items: string[],
    now: number,
    windowMs: number,
  ): Promise<TrackerState> {
    const { table, column, cap } = TABLES[kind];
    return this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto(table)
        .values({ ip, count: 0, [column]: '[]', first_seen: now, last_seen: now } as never)
        .onConflict((oc) => oc.column('ip').doNothing())
        .execute();
      let q = trx.selectFrom(table).selectAll().where('ip', '=', ip);
      if (this.pg) q = q.forUpdate();
      const row = (await q.executeTakeFirstOrThrow()) as unknown as Record<string, unknown>;
      const fresh = (row.first_seen as number) <= now - windowMs || (row.count as number) === 0;
      const prevItems = fresh ? [] : (JSON.parse(row[column] as string) as string[]);
      const merged = [...prevItems];
      for (const item of items) if (merged.length < cap && !merged.includes(item)) merged.push(item);
      const state: TrackerState = {
        ip,
        count: (fresh ? 0 : (row.count as number)) + count,
        items: merged,
        first_seen: fresh ? now : (row.first_seen as number),
        last_seen: now,
      };
      await trx
        .updateTable(table)
        .set({
          count: state.count,
          [column]: JSON.stringify(merged),
          first_seen: state.first_seen,
          last_seen: now,
        } as never)
        .where('ip', '=', ip)
        .execute();
      return state;
    });
  }

  /** Trackers whose window is still open, busiest first. */
  async list(kind: TrackerKind, now: number, windowMs: number, limit: number): Promise<TrackerState[]> {
    const { table, column } = TABLES[kind];
    const rows = (await this.db
      .selectFrom(table)
      .selectAll()
      .where('first_seen', '>', now - windowMs)
      .orderBy('count', 'desc')
      .limit(limit)
      .execute()) as unknown as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      ip: r.ip as string,
      count: r.count as number,
      items: JSON.parse(r[column] as string) as string[],
      first_seen: r.first_seen as number,
      last_seen: r.last_seen as number,
    }));
  }

  async clear(kind: TrackerKind, ip: string): Promise<boolean> {
    const r = await this.db.deleteFrom(TABLES[kind].table).where('ip', '=', ip).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Deletes trackers whose window closed (they would start over anyway). */
  async purge(now: number, windowMs: number): Promise<number> {
    let n = 0;
    for (const kind of ['404', 'apikey'] as const) {
      const r = await this.db
        .deleteFrom(TABLES[kind].table)
        .where('first_seen', '<=', now - windowMs)
        .executeTakeFirst();
      n += Number(r.numDeletedRows);
    }
    return n;
  }
}
