/**
 * The traffic dashboard's reads of `traffic_log` (docs/rules/web.md#traffic-page): a filtered,
 * paged request list with its count, the status classes, the busiest paths and client addresses,
 * and requests and errors per time bucket. Writes, retention and the per-group statistics stay in
 * traffic.repository.ts; these two files are the only ones that touch the table. Every statement
 * runs unchanged on SQLite and PostgreSQL: integer division of the integer columns (`status / 100`,
 * `ts / bucket`) is exact on both, and text filters lower-case both sides.
 */
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { TrafficRow } from './traffic.repository.js';

/** A filter of the request list; every field narrows it, all optional. */
export interface TrafficFilter {
  /** Rows at or after this time (epoch ms). */
  since?: number | undefined;
  /** An exact status (`404`) or a class (`4xx`). */
  status?: string | undefined;
  /** An exact method, upper-case. */
  method?: string | undefined;
  /** A case-insensitive substring of the stored (masked) path. */
  path?: string | undefined;
  /**
   * The client address, case-insensitive: exactly, or — ending in `.` or `:` — every address that
   * starts with it (`203.0.113.` is that /24).
   */
  ip?: string | undefined;
}

/** Requests and errors (status ≥ 400) of one path or address. */
export interface TrafficTopRow {
  key: string;
  requests: number;
  errors: number;
}

/** Requests and errors of one time bucket that had any; `ts` is the bucket's start (epoch ms). */
export interface TrafficBucketRow {
  ts: number;
  requests: number;
  errors: number;
}

/** Requests per status class (`1xx` … `5xx`); other statuses are left out. */
export type StatusClasses = Record<'1xx' | '2xx' | '3xx' | '4xx' | '5xx', number>;

/** LIKE pattern of a literal text: `\` escapes the wildcards (ESCAPE '\' below). */
const escapeLike = (s: string) => s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);

export class TrafficDashboardRepository {
  constructor(private readonly db: Kysely<DB>) {}

  private filtered(f: TrafficFilter) {
    let q = this.db.selectFrom('traffic_log');
    if (f.since !== undefined) q = q.where('ts', '>=', f.since);
    if (f.status !== undefined) {
      const cls = /^([1-5])xx$/i.exec(f.status);
      if (cls) {
        const lo = Number(cls[1]) * 100;
        q = q.where('status', '>=', lo).where('status', '<', lo + 100);
      } else q = q.where('status', '=', Number(f.status));
    }
    if (f.method !== undefined) q = q.where('method', '=', f.method);
    if (f.path !== undefined)
      q = q.where(sql<SqlBool>`lower(path) like ${`%${escapeLike(f.path)}%`} escape '\\'`);
    if (f.ip !== undefined)
      q = /[.:]$/.test(f.ip)
        ? q.where(sql<SqlBool>`lower(ip) like ${`${escapeLike(f.ip)}%`} escape '\\'`)
        : q.where(sql<SqlBool>`lower(ip) = ${f.ip.toLowerCase()}`);
    return q;
  }

  /** One page of the filtered requests, newest first (ties in insertion order). */
  page(f: TrafficFilter, limit: number, offset: number): Promise<TrafficRow[]> {
    return this.filtered(f)
      .selectAll()
      .orderBy('ts', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  /** How many requests the filter matches. */
  async count(f: TrafficFilter): Promise<number> {
    const r = await this.filtered(f)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /** Requests per status class since `since`. */
  async statusClasses(since: number): Promise<StatusClasses> {
    const cls = sql<number>`status / 100`;
    const rows = await this.db
      .selectFrom('traffic_log')
      .where('ts', '>=', since)
      .select((eb) => [cls.as('cls'), eb.fn.countAll<number>().as('n')])
      .groupBy(cls)
      .execute();
    const out: StatusClasses = { '1xx': 0, '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 };
    for (const r of rows) {
      const key = `${Number(r.cls)}xx`;
      if (key in out) out[key as keyof StatusClasses] = Number(r.n);
    }
    return out;
  }

  /** The `limit` paths or addresses with the most requests since `since`, busiest first. */
  async top(column: 'path' | 'ip', since: number, limit: number): Promise<TrafficTopRow[]> {
    const rows = await this.db
      .selectFrom('traffic_log')
      .where('ts', '>=', since)
      .select((eb) => [
        eb.ref(column).as('key'),
        eb.fn.countAll<number>().as('requests'),
        eb.fn.sum<number>(errorFlag(eb.ref('status'))).as('errors'),
      ])
      .groupBy(column)
      .orderBy('requests', 'desc')
      .orderBy(column)
      .limit(limit)
      .execute();
    return rows.map((r) => ({ key: r.key, requests: Number(r.requests), errors: Number(r.errors ?? 0) }));
  }

  /** Requests and errors per `bucketMs` since `since`, oldest first; empty buckets are absent. */
  async series(since: number, bucketMs: number): Promise<TrafficBucketRow[]> {
    // A literal, not a parameter: PostgreSQL would otherwise type `ts / $1` as numeric.
    const bucket = sql<number>`(ts / ${sql.lit(bucketMs)}) * ${sql.lit(bucketMs)}`;
    const rows = await this.db
      .selectFrom('traffic_log')
      .where('ts', '>=', since)
      .select((eb) => [
        bucket.as('bucket'),
        eb.fn.countAll<number>().as('requests'),
        eb.fn.sum<number>(errorFlag(eb.ref('status'))).as('errors'),
      ])
      .groupBy(bucket)
      .orderBy(bucket)
      .execute();
    return rows.map((r) => ({
      ts: Number(r.bucket),
      requests: Number(r.requests),
      errors: Number(r.errors ?? 0),
    }));
  }
}

/** 1 for an error status (≥ 400), else 0; literals so PostgreSQL can type `sum(…)`. */
function errorFlag(status: Expression<number>) {
  return sql<number>`case when ${status} >= 400 then 1 else 0 end`;
}
