/**
 * The only place that touches the orders tables: the order and analyzer logs, latency records and
 * the Action Center queue.
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DB, OrderLatencyTable, OrderLogsTable, PendingOrdersTable } from '../../db/schema.js';
import { prepareQuery } from '../../platform/db/prepared.js';
import type { SqliteWriterThread } from '../../platform/db/sqlite-writer-thread.js';

export type OrderLogRow = Selectable<OrderLogsTable>;
export type LatencyRow = Selectable<OrderLatencyTable>;
export type PendingOrderRow = Selectable<PendingOrdersTable>;

/** 11 columns a row: 1,000 rows are 11,000 parameters, within SQLite's and PostgreSQL's bounds. */
export const LATENCY_ROWS_PER_INSERT = 1_000;

/** The order log (live and semi-automatic orders) and the analyzer log (sandbox orders). */
export type LogTable = 'order_logs' | 'analyzer_logs';

/** A log row to write: every column but the id. */
export type LogInsert = Omit<OrderLogRow, 'id'>;

/** One log row's INSERT, compiled once per database (it runs inside every sandbox placement). */
const logInsert = (table: LogTable) =>
  prepareQuery<DB, LogInsert, { id: number }>((db, $) =>
    db
      .insertInto(table)
      .values({
        user_id: $('user_id'),
        event: $('event'),
        api_type: $('api_type'),
        broker: $('broker'),
        order_id: $('order_id'),
        status_code: $('status_code'),
        request: $('request'),
        response: $('response'),
        created_at: $('created_at'),
        dispatched_at: $('dispatched_at'),
      })
      .returning('id'),
  );
const insertOrderLog = logInsert('order_logs');
const insertAnalyzerLog = logInsert('analyzer_logs');

/** Column order of a log row for the SQLite writer thread's statements. */
const LOG_COLUMNS = [
  'user_id',
  'event',
  'api_type',
  'broker',
  'order_id',
  'status_code',
  'request',
  'response',
  'created_at',
  'dispatched_at',
] as const satisfies readonly (keyof LogInsert)[];

const insertText = (table: LogTable) =>
  `insert into ${table} (${LOG_COLUMNS.join(', ')}) values (${LOG_COLUMNS.map(() => '?').join(', ')})`;

/** Column order of a latency row for the SQLite writer thread's statement. */
const LATENCY_COLUMNS = [
  'label',
  'user_id',
  'broker',
  'symbol',
  'order_id',
  'status',
  'total_ms',
  'broker_ms',
  'validation_ms',
  'overhead_ms',
  'created_at',
] as const satisfies readonly (keyof Insertable<OrderLatencyTable>)[];

/** The mark of a log row whose fan-out ran, one row by id, for the SQLite writer thread. */
const dispatchedText = (table: LogTable) => `update ${table} set dispatched_at = ? where id = ?`;

/**
 * The one-row statements of the log and latency tables for the SQLite writer thread: each table's
 * INSERT (by table name) and each log's dispatched mark (`<table>_dispatched`).
 */
export const LOG_THREAD_STATEMENTS: Readonly<
  Record<LogTable | 'order_latency' | `${LogTable}_dispatched`, string>
> = {
  order_logs: insertText('order_logs'),
  analyzer_logs: insertText('analyzer_logs'),
  order_logs_dispatched: dispatchedText('order_logs'),
  analyzer_logs_dispatched: dispatchedText('analyzer_logs'),
  order_latency: `insert into order_latency (${LATENCY_COLUMNS.join(', ')}) values (${LATENCY_COLUMNS.map(() => '?').join(', ')})`,
};

export class OrdersRepository {
  /**
   * @param writer SQLite only: {@link appendLog} writes through this worker thread (its
   * {@link LOG_THREAD_STATEMENTS}), off the event loop.
   */
  constructor(
    private readonly db: Kysely<DB>,
    private readonly writer?: SqliteWriterThread,
  ) {}

  /**
   * Writes one log row on its own and returns its id once committed: on SQLite in the writer
   * thread, on PostgreSQL as one autocommitted INSERT.
   */
  async appendLog(table: LogTable, row: LogInsert): Promise<number> {
    if (!this.writer) return this.insertLog(this.db, table, row);
    const [id] = await this.writer.insert(table, [LOG_COLUMNS.map((c) => row[c])]);
    if (id === undefined) throw new Error(`${table} insert returned no id`);
    return id;
  }

  /**
   * Appends log rows in one INSERT (the batched log writer's; it keeps each call within the
   * databases' bound-parameter limits, `rowsPerInsert`).
   */
  async insertLogs(table: 'order_logs' | 'analyzer_logs', rows: Insertable<OrderLogsTable>[]): Promise<void> {
    if (rows.length > 0) await this.db.insertInto(table).values(rows).execute();
  }

  /**
   * Writes one order's log row on `db` (the database, or the transaction of the order itself) and
   * returns its id: the record of an answered order, committed before the answer.
   */
  async insertLog(db: Kysely<DB>, table: LogTable, row: LogInsert): Promise<number> {
    const r = (await (table === 'order_logs' ? insertOrderLog : insertAnalyzerLog).execute(db, row)).rows[0];
    if (!r) throw new Error(`${table} insert returned no id`);
    return r.id;
  }

  /**
   * Marks log rows whose socket and chat fan-out ran (the outbox is done with them). On SQLite in
   * the writer thread: on the event loop, an UPDATE that waited for the write lock the thread held
   * stalled every request in flight (calls of 1–2 ms in the live order bench).
   */
  async markDispatched(table: LogTable, ids: readonly number[], at: number): Promise<void> {
    if (ids.length === 0) return;
    if (this.writer) {
      await this.writer.insert(
        `${table}_dispatched`,
        ids.map((id) => [at, id]),
      );
      return;
    }
    await this.db.updateTable(table).set({ dispatched_at: at }).where('id', 'in', ids).execute();
  }

  /**
   * Claims up to `limit` rows created before `before` whose fan-out never ran (the process ended
   * first): marked dispatched in the same statement, so each is handed to one claimer only, also
   * with several instances claiming at once.
   */
  claimUndispatched(table: LogTable, before: number, limit: number, at: number): Promise<OrderLogRow[]> {
    return this.db
      .updateTable(table)
      .set({ dispatched_at: at })
      .where('dispatched_at', 'is', null)
      .where('id', 'in', (eb) =>
        eb
          .selectFrom(table)
          .select('id')
          .where('dispatched_at', 'is', null)
          .where('created_at', '<=', before)
          .orderBy('id')
          .limit(limit),
      )
      .returningAll()
      .execute();
  }

  logs(table: 'order_logs' | 'analyzer_logs', limit: number): Promise<OrderLogRow[]> {
    return this.db.selectFrom(table).selectAll().orderBy('id', 'desc').limit(limit).execute();
  }

  /** How many analyzer log rows the user has (`/api/v1/analyzer`'s `total_logs`). */
  async analyzerLogCount(userId: number): Promise<number> {
    const row = await this.db
      .selectFrom('analyzer_logs')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /**
   * Writes latency rows: on SQLite in the writer thread (a burst of rows written on
   * the event loop held up every request in flight); otherwise in one transaction, in statements
   * of at most {@link LATENCY_ROWS_PER_INSERT} rows (one statement of a whole second's samples
   * would pass SQLite's 32,766 bound parameters at about 3,000 orders per second).
   */
  async insertLatency(rows: Insertable<OrderLatencyTable>[]): Promise<void> {
    if (rows.length === 0) return;
    if (this.writer) {
      await this.writer.insert(
        'order_latency',
        rows.map((r) => LATENCY_COLUMNS.map((c) => r[c] ?? null)),
      );
      return;
    }
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += LATENCY_ROWS_PER_INSERT)
        await trx
          .insertInto('order_latency')
          .values(rows.slice(i, i + LATENCY_ROWS_PER_INSERT))
          .execute();
    });
  }

  /** Latency rows at or after `since`, newest first, at most `limit`. */
  latency(since: number, limit: number): Promise<LatencyRow[]> {
    return (
      this.db
        .selectFrom('order_latency')
        .selectAll()
        .where('created_at', '>=', since)
        // Newest first through the time index: ordered by id, the newest rows of a quiet window would
        // be found by walking every older row of the table.
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute()
    );
  }

  // ---- Action Center ----

  async insertPending(row: Insertable<PendingOrdersTable>): Promise<PendingOrderRow> {
    return this.db.insertInto('pending_orders').values(row).returningAll().executeTakeFirstOrThrow();
  }

  pendingOf(userId: number, status?: string): Promise<PendingOrderRow[]> {
    let q = this.db.selectFrom('pending_orders').selectAll().where('user_id', '=', userId);
    if (status) q = q.where('status', '=', status);
    return q.orderBy('id', 'desc').execute();
  }

  getPending(id: number): Promise<PendingOrderRow | undefined> {
    return this.db.selectFrom('pending_orders').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Compare-and-set of a queued order's status; false when it was no longer `from`. */
  async decidePending(
    id: number,
    from: string,
    patch: {
      status: string;
      reason?: string | null;
      order_id?: string | null;
      response?: string | null;
      decided_at: number;
    },
  ): Promise<boolean> {
    const r = await this.db
      .updateTable('pending_orders')
      .set(patch)
      .where('id', '=', id)
      .where('status', '=', from)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async deletePending(id: number, userId: number): Promise<boolean> {
    const r = await this.db
      .deleteFrom('pending_orders')
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(r.numDeletedRows) === 1;
  }
}
