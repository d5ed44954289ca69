/**
 * The order log and the analyzer log (docs/rules/orders.md#order-log): live and
 * semi-automatic events go to the order log, events whose mode is `analyze` to the analyzer log.
 * The stored request never holds the API key (publishers strip it; this writer strips it again,
 * whatever the casing).
 *
 * The row of an answered order is part of the order (docs/rules/orders.md#record-of-an-order): the pipeline writes it before it answers — in the sandbox order's own transaction, or
 * through {@link OrderLogWriter.record} (the SQLite writer thread) right after the broker answered —
 * and publishes the event with the row's id. The row is then an outbox entry: `dispatched_at` is
 * null until the event's fan-out (socket, chat alerts) has run, when this consumer marks it, in
 * batches off the request path. Rows a crash left unmarked are claimed and published again by
 * {@link OrderLogWriter.redeliver} (at start-up and periodically), so a restart delivers what was
 * pending instead of losing it.
 *
 * Events published without a row (an exception inside the pipeline: the generic 500) are still
 * buffered here and written in multi-row INSERTs every {@link ORDER_LOG_FLUSH_MS}. Rows are never
 * dropped silently: past {@link ORDER_LOG_BUFFER_MAX} waiting rows, or when a write fails, they
 * are counted in `dropped` and logged.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import type { InsertAtCommit } from '../../platform/db/inserts-at-commit.js';
import { rowsPerInsert } from '../../platform/db/database.js';
import type { OrderEvent, OrderEventName } from './order-events.js';
import type { LogInsert, LogTable, OrderLogRow, OrdersRepository } from './orders.repository.js';

/** Buffered rows are written this long after the first of them arrived. */
export const ORDER_LOG_FLUSH_MS = 25;
/** Rows waiting to be written at most; beyond that new rows are dropped (counted, logged). */
export const ORDER_LOG_BUFFER_MAX = 50_000;

/** Unmarked rows older than this are taken to be lost to a crash and published again. */
export const REDELIVER_AFTER_MS = 15_000;
/** How often unmarked rows are looked for (the first look is at start-up). */
export const REDELIVER_EVERY_MS = 5_000;
/** Rows claimed by one look at most. */
const REDELIVER_BATCH = 500;

type LogRow = LogInsert;

/** Columns of a log row as {@link toLogRow} writes it (sizes the chunks of an INSERT). */
const LOG_COLUMNS = 10;

/** The table an event's row belongs in. */
export const logTableOf = (e: Pick<OrderEvent, 'mode'>): LogTable =>
  e.mode === 'analyze' ? 'analyzer_logs' : 'order_logs';

const SECRET_FIELDS = /^(apikey|api_key|password|token|access_token|auth_token|secret)$/i;

/** A copy of `body` without credential fields (top level and one level down). */
export function withoutSecrets(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (SECRET_FIELDS.test(k)) continue;
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) ? withoutSecrets(v as Record<string, unknown>) : v;
  }
  return out;
}

/**
 * The log row of an event (the request without secrets); `dispatched` is when its fan-out ran,
 * null for a row written before its event is published (an outbox entry).
 */
export function toLogRow(e: OrderEvent, dispatched: number | null = e.at): LogRow {
  return {
    user_id: e.userId,
    event: e.name,
    api_type: e.apiType,
    broker: e.broker,
    order_id: e.orderId,
    status_code: e.statusCode,
    request: JSON.stringify(withoutSecrets(e.request)),
    response: JSON.stringify(e.response),
    created_at: e.at,
    dispatched_at: dispatched,
  };
}

/** The event a stored row records (published again by {@link OrderLogWriter.redeliver}). */
export function fromLogRow(table: LogTable, row: OrderLogRow): OrderEvent {
  const object = (text: string): Record<string, unknown> => {
    try {
      const v: unknown = JSON.parse(text);
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  };
  return {
    name: row.event as OrderEventName,
    mode: table === 'analyzer_logs' ? 'analyze' : 'live',
    userId: row.user_id,
    apiType: row.api_type,
    broker: row.broker,
    orderId: row.order_id,
    statusCode: row.status_code,
    request: object(row.request),
    response: object(row.response),
    at: Number(row.created_at),
    logId: row.id,
    redelivered: true,
  };
}

export interface OrderLogWriterOptions {
  flushMs?: number;
  bufferMax?: number;
  /** Rows per INSERT (default: as many as SQLite's parameter limit allows). */
  chunkRows?: number;
}

export interface OrderLogWriterDeps {
  repo: OrdersRepository;
  clock: Clock;
  logger: Logger;
}

export class OrderLogWriter {
  private pending: { order_logs: LogRow[]; analyzer_logs: LogRow[] } = { order_logs: [], analyzer_logs: [] };
  /** Ids of rows whose fan-out ran, waiting to be marked. */
  private delivered: { order_logs: number[]; analyzer_logs: number[] } = {
    order_logs: [],
    analyzer_logs: [],
  };
  private size = 0;
  private redeliverTimer: NodeJS.Timeout | undefined;
  private redelivering: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** A drop was logged since the last write; later drops are summed into `unreported`. */
  private warned = false;
  private unreported = 0;
  private stopped = false;
  private readonly flushMs: number;
  private readonly bufferMax: number;
  private readonly chunkRows: number;
  /** Rows dropped since start (buffer full or write failed). */
  dropped = 0;
  /** Rows written since start. */
  written = 0;

  private readonly repo: OrdersRepository;
  private readonly logger: Logger;

  constructor(
    private readonly deps: OrderLogWriterDeps,
    opts: OrderLogWriterOptions = {},
  ) {
    this.repo = deps.repo;
    this.logger = deps.logger;
    this.flushMs = opts.flushMs ?? ORDER_LOG_FLUSH_MS;
    this.bufferMax = opts.bufferMax ?? ORDER_LOG_BUFFER_MAX;
    this.chunkRows = opts.chunkRows ?? rowsPerInsert(LOG_COLUMNS);
  }

  /**
   * Writes an answered order's row and returns the event carrying its id; resolves once the row
   * is committed (the caller answers after that).
   */
  async record(e: OrderEvent): Promise<OrderEvent> {
    const logId = await this.repo.appendLog(logTableOf(e), toLogRow(e, null));
    return { ...e, logId };
  }

  /** The newest `limit` rows of a log, newest first (the administrator's log views). */
  recent(table: LogTable, limit: number): Promise<OrderLogRow[]> {
    return this.repo.logs(table, limit);
  }

  /**
   * Queues an order's row in the order's own transaction, written with its group's just before
   * the COMMIT (platform/db/inserts-at-commit.ts); resolves with its id then.
   */
  recordAtCommit(atCommit: InsertAtCommit, e: OrderEvent): Promise<number> {
    return atCommit(logTableOf(e), toLogRow(e, null));
  }

  /**
   * The event consumer, after the other consumers of the event ran (it is subscribed last): a
   * recorded event's row is marked delivered; an event without a row is buffered to be written.
   * No I/O here: both are written in batches.
   */
  readonly consume = (e: OrderEvent): void => {
    if (e.logId !== undefined) {
      if (e.redelivered) return; // claimed (and so marked) when it was read back
      this.delivered[logTableOf(e)].push(e.logId);
      this.schedule();
      return;
    }
    if (this.size >= this.bufferMax) {
      this.drop(1, 'order log rows dropped: buffer full');
      return;
    }
    this.pending[logTableOf(e)].push(toLogRow(e));
    this.size++;
    this.schedule();
  };

  private schedule(): void {
    // After stop() (shutdown), an event of a request still in flight is written at once: the
    // database closes soon after, and a row must not wait for a timer that may never fire.
    this.timer ??= setTimeout(
      () => {
        this.timer = undefined;
        void this.flush();
      },
      this.stopped ? 0 : this.flushMs,
    );
  }

  /** Rows waiting to be written. */
  get buffered(): number {
    return this.size;
  }

  /** Writes everything buffered so far; resolves when it is written (or counted as dropped). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    const marks = this.delivered;
    this.pending = { order_logs: [], analyzer_logs: [] };
    this.delivered = { order_logs: [], analyzer_logs: [] };
    this.size = 0;
    this.writing = this.writing.then(async () => {
      for (const table of ['order_logs', 'analyzer_logs'] as const) {
        await this.write(table, batch[table]);
        await this.mark(table, marks[table]);
      }
      this.reportDrops();
    });
    return this.writing;
  }

  /**
   * Looks for rows a crash left undelivered now, then every {@link REDELIVER_EVERY_MS}, and hands
   * each to `publish` (the event bus) once.
   */
  start(publish: (e: OrderEvent) => void): void {
    const look = () => {
      this.redelivering = this.redeliver(publish).catch((err: unknown) =>
        this.logger.warn({ err }, 'order log redelivery failed; the next look retries'),
      );
    };
    look();
    this.redeliverTimer = setInterval(look, REDELIVER_EVERY_MS);
    this.redeliverTimer.unref();
  }

  /**
   * Claims the rows older than {@link REDELIVER_AFTER_MS} whose fan-out never ran and publishes
   * their events again; returns how many.
   */
  async redeliver(publish: (e: OrderEvent) => void): Promise<number> {
    const now = this.deps.clock.now();
    let n = 0;
    for (const table of ['order_logs', 'analyzer_logs'] as const) {
      for (;;) {
        const rows = await this.repo.claimUndispatched(table, now - REDELIVER_AFTER_MS, REDELIVER_BATCH, now);
        for (const row of rows.sort((a, b) => a.id - b.id)) publish(fromLogRow(table, row));
        n += rows.length;
        if (rows.length < REDELIVER_BATCH) break;
      }
    }
    if (n > 0) this.logger.warn({ rows: n }, 'order events of an earlier run redelivered (socket, alerts)');
    return n;
  }

  /** Writes what is left (shutdown); later events are written without waiting for the interval. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.redeliverTimer);
    await this.redelivering;
    return this.flush();
  }

  private async mark(table: LogTable, ids: number[]): Promise<void> {
    const chunk = rowsPerInsert(1);
    for (let i = 0; i < ids.length; i += chunk) {
      try {
        await this.repo.markDispatched(table, ids.slice(i, i + chunk), this.deps.clock.now());
      } catch (err) {
        // Not lost: the rows are written; unmarked, they are redelivered later.
        this.logger.warn({ err, table, rows: ids.length }, 'order log rows not marked delivered');
      }
    }
  }

  private async write(table: LogTable, rows: LogRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += this.chunkRows) {
      const chunk = rows.slice(i, i + this.chunkRows);
      try {
        await this.repo.insertLogs(table, chunk);
        this.written += chunk.length;
      } catch (err) {
        this.dropped += chunk.length;
        this.logger.error(
          { err, table, rows: chunk.length, dropped: this.dropped },
          'order log write failed: rows dropped',
        );
      }
    }
  }

  /**
   * Counts dropped rows. The first drop is logged at once; further ones until the next write
   * are summed into one warning after it (a stalled database must not flood the log).
   */
  private drop(n: number, msg: string): void {
    this.dropped += n;
    if (this.warned) {
      this.unreported += n;
      return;
    }
    this.warned = true;
    this.logger.warn({ rows: n, dropped: this.dropped, bufferMax: this.bufferMax }, msg);
  }

  private reportDrops(): void {
    if (this.unreported > 0)
      this.logger.warn(
        { rows: this.unreported, dropped: this.dropped, bufferMax: this.bufferMax },
        'order log rows dropped: buffer full',
      );
    this.unreported = 0;
    this.warned = false;
  }
}
