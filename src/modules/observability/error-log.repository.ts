import { sql, type Kysely, type Selectable } from 'kysely';
import { deleteBelow } from '../../platform/db/batched-delete.js';
import { isPostgres } from '../../platform/db/database.js';
import type { DB, ErrorLogTable } from '../../db/schema.js';
import type { ErrorEntry, ErrorLevel, ErrorOrigin } from './error-record.js';

export type ErrorLogRow = Selectable<ErrorLogTable>;

export interface ErrorQuery {
  limit: number;
  /** Levels to include (the requested level and the more severe ones). */
  levels?: readonly ErrorLevel[];
  origin?: ErrorOrigin;
  /** Case-insensitive substring of message, module, exception or path. */
  q?: string;
}

export interface ErrorGroupRow {
  fingerprint: string;
  count: number;
  first_seen: number;
  last_seen: number;
  sample_id: number;
}

/** Rows per INSERT statement (well under SQLite's 32,766 and PostgreSQL's 65,535 parameters). */
const INSERT_CHUNK = 200;

/**
 * True where the column holds `needle` (lower case), a literal substring: `strpos` on PostgreSQL,
 * `instr` on SQLite. Not `LIKE '%…%'`: PostgreSQL estimates a handful of rows match such a
 * pattern, so it reads the whole log and sorts the matches (30 ms for 50,000 rows), where the
 * function's default estimate (a third of the rows) lets it walk the time index from the newest
 * row and stop at the page's last match, as SQLite does (0.5 ms). A text no row holds walks the
 * whole log either way.
 */
function holds(postgres: boolean, col: string, needle: string) {
  return postgres
    ? sql<boolean>`strpos(lower(${sql.ref(col)}), ${needle}) > 0`
    : sql<boolean>`instr(lower(${sql.ref(col)}), ${needle}) > 0`;
}

/** The only place that touches the `error_log` table. */
export class ErrorLogRepository {
  private readonly postgres: boolean;

  constructor(private readonly db: Kysely<DB>) {
    this.postgres = isPostgres(db);
  }

  async insert(entries: readonly ErrorEntry[]): Promise<void> {
    for (let i = 0; i < entries.length; i += INSERT_CHUNK) {
      await this.db
        .insertInto('error_log')
        .values(entries.slice(i, i + INSERT_CHUNK))
        .execute();
    }
  }

  /** Newest first (time, then insertion order). */
  list(query: ErrorQuery): Promise<ErrorLogRow[]> {
    let qb = this.db.selectFrom('error_log').selectAll();
    if (query.levels) qb = qb.where('level', 'in', [...query.levels]);
    if (query.origin) qb = qb.where('origin', '=', query.origin);
    if (query.q) {
      const needle = query.q.toLowerCase();
      qb = qb.where((eb) =>
        eb.or(
          (['message', 'module', 'exception', 'path'] as const).map((col) =>
            holds(this.postgres, col, needle),
          ),
        ),
      );
    }
    return qb.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
  }

  /**
   * Counts by level and origin (kept by the database's triggers, migration 0033: one row per
   * level and origin, whatever the log's size), and the counts since each of `since` (epoch ms).
   */
  async stats(since: { hour: number; day: number }): Promise<{
    byLevel: { level: string; origin: string; n: number }[];
    lastHour: number;
    lastDay: number;
  }> {
    const byLevel = await this.db
      .selectFrom('error_log_counts')
      .select(['level', 'origin', 'n'])
      .where('n', '>', 0)
      .execute();
    const recent = await this.db
      .selectFrom('error_log')
      .select([
        sql<number>`sum(case when created_at >= ${since.hour} then 1 else 0 end)`.as('hour'),
        (eb) => eb.fn.countAll<number>().as('day'),
      ])
      .where('created_at', '>=', since.day)
      .executeTakeFirst();
    return {
      byLevel: byLevel.map((r) => ({ ...r, n: Number(r.n) })),
      lastHour: Number(recent?.hour ?? 0),
      lastDay: Number(recent?.day ?? 0),
    };
  }

  /** Groups by fingerprint, most recently seen first, with the newest row of each as a sample. */
  async groups(limit: number, levels?: readonly ErrorLevel[]): Promise<ErrorGroupRow[]> {
    let qb = this.db
      .selectFrom('error_log')
      .select((eb) => [
        'fingerprint',
        eb.fn.countAll<number>().as('count'),
        eb.fn.min('created_at').as('first_seen'),
        eb.fn.max('created_at').as('last_seen'),
        eb.fn.max('id').as('sample_id'),
      ])
      .groupBy('fingerprint');
    if (levels) qb = qb.where('level', 'in', [...levels]);
    const rows = await qb
      .orderBy((eb) => eb.fn.max('created_at'), 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      fingerprint: r.fingerprint,
      count: Number(r.count),
      first_seen: Number(r.first_seen),
      last_seen: Number(r.last_seen),
      sample_id: Number(r.sample_id),
    }));
  }

  byIds(ids: readonly number[]): Promise<ErrorLogRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('error_log')
      .selectAll()
      .where('id', 'in', [...ids])
      .execute();
  }

  /**
   * Retention: rows older than `before`, and all but the newest `maxRows` rows, are deleted, in
   * batches (platform/db/batched-delete.ts). Returns how many rows went.
   */
  async prune(before: number, maxRows: number): Promise<number> {
    const aged = await deleteBelow(this.db, 'error_log', 'created_at', before);
    const edge = await this.db
      .selectFrom('error_log')
      .select('id')
      .orderBy('id', 'desc')
      .offset(maxRows)
      .limit(1)
      .executeTakeFirst();
    const capped = edge ? await deleteBelow(this.db, 'error_log', 'id', Number(edge.id) + 1) : 0;
    return aged + capped;
  }

  async count(): Promise<number> {
    const r = await this.db
      .selectFrom('error_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }
}
