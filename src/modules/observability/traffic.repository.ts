import type { Insertable, Kysely, Selectable } from 'kysely';
import { CompiledQuery, sql } from 'kysely';
import { isPostgres } from '../../platform/db/database.js';
import { deleteBelow } from '../../platform/db/batched-delete.js';
import type { RowTuple, SqliteWriterThread } from '../../platform/db/sqlite-writer-thread.js';
import type { DB, TrafficLogTable } from '../../db/schema.js';

/** A stored request. */
export type TrafficRow = Selectable<TrafficLogTable>;
/** A request about to be stored (the id is the database's). */
export type NewTrafficRow = Omit<Insertable<TrafficLogTable>, 'id'>;

/** Per-group numbers of {@link TrafficRepository.stats}. Durations are milliseconds. */
export interface TrafficGroupStats {
  endpoint_group: string;
  requests: number;
  /** Responses with status >= 400 (server errors included). */
  errors: number;
  /** Responses with status >= 500. */
  server_errors: number;
  avg_ms: number;
  /** Nearest-rank 95th percentile of `duration_ms`. */
  p95_ms: number;
}

/** Column order of every traffic INSERT and of {@link toTuple}. */
const INSERT_COLUMNS = [
  'ts',
  'ip',
  'method',
  'path',
  'endpoint_group',
  'status',
  'duration_ms',
  'host',
  'user_id',
] as const;

/** A row's values in {@link INSERT_COLUMNS} order. */
function toTuple(r: NewTrafficRow): RowTuple {
  return [
    r.ts,
    r.ip,
    r.method,
    r.path,
    r.endpoint_group,
    r.status,
    r.duration_ms,
    r.host ?? null,
    r.user_id ?? null,
  ];
}

/** The one-row INSERT the SQLite writer thread prepares. */
export const SINGLE_ROW_INSERT = `insert into traffic_log (${INSERT_COLUMNS.join(', ')}) values (${INSERT_COLUMNS.map(() => '?').join(', ')})`;

/** Rows per INSERT: 500 × 9 columns stays far below SQLite's and PostgreSQL's bind limits. */
export const INSERT_CHUNK = 500;

/** With traffic-dashboard.repository.ts (the dashboard's reads), the only place that touches `traffic_log`. */
export class TrafficRepository {
  /**
   * @param writer SQLite only: writes go through a worker thread (its `traffic` statement,
   * {@link SINGLE_ROW_INSERT});
   * reads, retention and PostgreSQL stay on Kysely.
   */
  constructor(
    private readonly db: Kysely<DB>,
    private readonly writer?: SqliteWriterThread,
  ) {}

  /**
   * Stores a batch with one multi-row INSERT per {@link INSERT_CHUNK} rows. Chunks of one batch
   * share a transaction so a flush is stored whole or not at all (and SQLite commits once).
   * With a SQLite writer the batch goes to its worker thread. Otherwise the statement text is
   * built once per row count and run as a compiled query: building a 500-row INSERT through the
   * query builder on every flush cost ~10% of the CPU of a busy instance (every row a request).
   */
  insertMany(rows: readonly NewTrafficRow[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    // Not awaited here: the rows are not held while the thread writes them.
    if (this.writer) return this.writer.insert('traffic', rows.map(toTuple)).then(() => undefined);
    return this.insertOnKysely(rows);
  }

  private async insertOnKysely(rows: readonly NewTrafficRow[]): Promise<void> {
    const run = async (executor: Kysely<DB>) => {
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
        const chunk = rows.slice(i, i + INSERT_CHUNK);
        await executor.executeQuery(CompiledQuery.raw(this.insertText(chunk.length), chunk.flatMap(toTuple)));
      }
    };
    if (rows.length <= INSERT_CHUNK) await run(this.db);
    else await this.db.transaction().execute((trx) => run(trx));
  }

  private readonly insertTexts = new Map<number, string>();

  /** `insert into traffic_log (…) values (…), …` for `n` rows, in this dialect's placeholders. */
  private insertText(n: number): string {
    let text = this.insertTexts.get(n);
    if (text === undefined) {
      const pg = isPostgres(this.db);
      const width = INSERT_COLUMNS.length;
      const tuples: string[] = [];
      for (let row = 0; row < n; row++) {
        const ph = INSERT_COLUMNS.map((_, c) => (pg ? `$${row * width + c + 1}` : '?'));
        tuples.push(`(${ph.join(', ')})`);
      }
      text = `insert into traffic_log (${INSERT_COLUMNS.join(', ')}) values ${tuples.join(', ')}`;
      if (this.insertTexts.size > 64) this.insertTexts.clear();
      this.insertTexts.set(n, text);
    }
    return text;
  }

  /** The newest requests first (ties broken by insertion order), optionally from `since` on. */
  recent(opts: { limit: number; since?: number | undefined }): Promise<TrafficRow[]> {
    let q = this.db.selectFrom('traffic_log').selectAll();
    if (opts.since !== undefined) q = q.where('ts', '>=', opts.since);
    return q.orderBy('ts', 'desc').orderBy('id', 'desc').limit(opts.limit).execute();
  }

  /**
   * Requests, errors, average and p95 duration per endpoint group since `since`, busiest group
   * first, in one statement that runs unchanged on SQLite and PostgreSQL.
   *
   * p95 uses the nearest-rank method: within a group of `n` rows ordered by duration, the value
   * at rank ceil(0.95 × n) (1..100 ms → 95 ms). The rank is computed in integer arithmetic,
   * `(95 * n + 99) / 100`, because both engines divide integers exactly while `ceil()` is an
   * optional extension in SQLite and `percentile_cont` exists only in PostgreSQL.
   */
  async stats(opts: { since: number }): Promise<TrafficGroupStats[]> {
    const rows = await this.db
      .with('ranked', (db) =>
        db
          .selectFrom('traffic_log')
          .where('ts', '>=', opts.since)
          .select((eb) => [
            'endpoint_group',
            'status',
            'duration_ms',
            eb.fn
              .agg<number>('row_number', [])
              .over((ob) => ob.partitionBy('endpoint_group').orderBy('duration_ms'))
              .as('rn'),
            eb.fn
              .countAll<number>()
              .over((ob) => ob.partitionBy('endpoint_group'))
              .as('n'),
          ]),
      )
      .selectFrom('ranked')
      .select((eb) => [
        'endpoint_group',
        eb.fn.countAll<number>().as('requests'),
        // Literals, not bind parameters: PostgreSQL cannot infer a type for sum($1).
        eb.fn
          .sum<number>(eb.case().when('status', '>=', eb.lit(400)).then(eb.lit(1)).else(eb.lit(0)).end())
          .as('errors'),
        eb.fn
          .sum<number>(eb.case().when('status', '>=', eb.lit(500)).then(eb.lit(1)).else(eb.lit(0)).end())
          .as('server_errors'),
        eb.fn.avg<number>('duration_ms').as('avg_ms'),
        eb.fn
          .max<number | null>(
            eb
              .case()
              .when(sql<boolean>`rn = (95 * n + 99) / 100`)
              .then(eb.ref('duration_ms'))
              .end(),
          )
          .as('p95_ms'),
      ])
      .groupBy('endpoint_group')
      .orderBy('requests', 'desc')
      .orderBy('endpoint_group')
      .execute();
    return rows.map((r) => ({
      endpoint_group: r.endpoint_group,
      requests: Number(r.requests),
      errors: Number(r.errors ?? 0),
      server_errors: Number(r.server_errors ?? 0),
      avg_ms: Number(r.avg_ms ?? 0),
      p95_ms: Number(r.p95_ms ?? 0),
    }));
  }

  /** Distinct client addresses whose requests carried `host` since `since` (index host, ts). */
  async ipsForHost(host: string, since: number, limit = 10_000): Promise<string[]> {
    const rows = await this.db
      .selectFrom('traffic_log')
      .select('ip')
      .distinct()
      .where('host', '=', host)
      .where('ts', '>=', since)
      .orderBy('ip')
      .limit(limit)
      .execute();
    return rows.map((r) => r.ip);
  }

  /** Deletes requests stored before `ts`, in batches (platform/db/batched-delete.ts); returns how many. */
  deleteOlderThan(ts: number): Promise<number> {
    return deleteBelow(this.db, 'traffic_log', 'ts', ts);
  }
}
