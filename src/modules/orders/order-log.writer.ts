/**
 * The log writer (spec "Order events", consumer rule 1): live events go to the order log,
 * events whose mode is `analyze` to the analyzer log. The stored request never holds the API
 * key (publishers strip it; this writer strips it again, whatever the casing).
 *
 * Rows are buffered and written in multi-row INSERTs (ARCHITECTURE.md "Hot paths stay hot": no
 * per-request DB write for logs): one INSERT and one commit per table every
 * {@link ORDER_LOG_FLUSH_MS} instead of one each per order, which was a tenth of an analyzer
 * order's CPU. The consumer only buffers, so it never holds a dispatch worker; the bus's
 * `whenIdle()` (tests, shutdown) runs {@link OrderLogWriter.flush}, and `stop()` writes what is
 * left (and writes later rows, of requests still in flight, without delay). Rows are never
 * dropped silently: past {@link ORDER_LOG_BUFFER_MAX} waiting rows, or when
 * a write fails, they are counted in `dropped` and logged.
 */
import type { Insertable } from 'kysely';
import type { Logger } from 'pino';
import type { OrderLogsTable } from '../../db/schema.js';
import { rowsPerInsert } from '../../platform/db/database.js';
import type { OrderEvent } from './order-events.js';
import type { OrdersRepository } from './orders.repository.js';

/** Buffered rows are written this long after the first of them arrived. */
export const ORDER_LOG_FLUSH_MS = 25;
/** Rows waiting to be written at most; beyond that new rows are dropped (counted, logged). */
export const ORDER_LOG_BUFFER_MAX = 50_000;

type LogTable = 'order_logs' | 'analyzer_logs';
type LogRow = Insertable<OrderLogsTable>;

/** Columns of a log row as {@link toLogRow} writes it (sizes the chunks of an INSERT). */
const LOG_COLUMNS = 9;

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

/** The log row of an event (the request without secrets). */
export function toLogRow(e: OrderEvent): LogRow {
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
  };
}

export interface OrderLogWriterOptions {
  flushMs?: number;
  bufferMax?: number;
  /** Rows per INSERT (default: as many as SQLite's parameter limit allows). */
  chunkRows?: number;
}

export class OrderLogWriter {
  private pending: { order_logs: LogRow[]; analyzer_logs: LogRow[] } = { order_logs: [], analyzer_logs: [] };
  private size = 0;
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

  constructor(
    private readonly repo: OrdersRepository,
    private readonly logger: Logger,
    opts: OrderLogWriterOptions = {},
  ) {
    this.flushMs = opts.flushMs ?? ORDER_LOG_FLUSH_MS;
    this.bufferMax = opts.bufferMax ?? ORDER_LOG_BUFFER_MAX;
    this.chunkRows = opts.chunkRows ?? rowsPerInsert(LOG_COLUMNS);
  }

  /** The event consumer: buffers the event's row (no I/O) and schedules a write. */
  readonly consume = (e: OrderEvent): void => {
    if (this.size >= this.bufferMax) {
      this.drop(1, 'order log rows dropped: buffer full');
      return;
    }
    this.pending[e.mode === 'analyze' ? 'analyzer_logs' : 'order_logs'].push(toLogRow(e));
    this.size++;
    // After stop() (shutdown), an event of a request still in flight is written at once: the
    // database closes soon after, and a row must not wait for a timer that may never fire.
    this.timer ??= setTimeout(
      () => {
        this.timer = undefined;
        void this.flush();
      },
      this.stopped ? 0 : this.flushMs,
    );
  };

  /** Rows waiting to be written. */
  get buffered(): number {
    return this.size;
  }

  /** Writes everything buffered so far; resolves when it is written (or counted as dropped). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = { order_logs: [], analyzer_logs: [] };
    this.size = 0;
    this.writing = this.writing.then(async () => {
      for (const table of ['order_logs', 'analyzer_logs'] as const) await this.write(table, batch[table]);
      this.reportDrops();
    });
    return this.writing;
  }

  /** Writes what is left (shutdown); later events are written without waiting for the interval. */
  stop(): Promise<void> {
    this.stopped = true;
    return this.flush();
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
