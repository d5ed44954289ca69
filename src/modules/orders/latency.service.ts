/**
 * Order latency (docs/rules/orders.md#latency-statistics): every placement records total, broker
 * round trip, validation and overhead milliseconds under label `PLACE`, with broker, symbol and
 * status. Recording only appends to a buffer; a timer writes it (off the request path), and the
 * stats read the window's rows (see latency-stats.ts for the percentile method).
 */
import type { Logger } from 'pino';
import type { Insertable } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import { Columns } from '../../platform/columns.js';
import type { OrderLatencyTable } from '../../db/schema.js';
import {
  histogram,
  latencySeries,
  summarise,
  type HistogramBar,
  type LatencyPoint,
  type LatencySummary,
} from './latency-stats.js';
import type { LatencyRow, OrdersRepository } from './orders.repository.js';

export interface LatencySample {
  label: 'PLACE';
  userId: number | null;
  broker: string;
  symbol: string;
  orderId: string | null;
  status: 'success' | 'failed';
  totalMs: number;
  brokerMs: number;
  validationMs: number;
}

/** The fields of a sample that are not numbers (buffered as references). */
type SampleRefs = Pick<LatencySample, 'label' | 'broker' | 'symbol' | 'orderId' | 'status'>;
const NUMBERS = ['userId', 'totalMs', 'brokerMs', 'validationMs', 'at'] as const;
const REFS = ['label', 'broker', 'symbol', 'orderId', 'status'] as const;

/** The statistics of a window: overall, per broker, per API type (label), histogram and series. */
export interface LatencyStats {
  /** The window, epoch ms: `until` is the server's clock. */
  since: number;
  until: number;
  overall: LatencySummary;
  by_broker: Record<string, LatencySummary>;
  by_api_type: Record<string, LatencySummary>;
  histogram: HistogramBar[];
  series: { bucket: 'minute' | 'hour'; bucket_ms: number; points: LatencyPoint[] };
}

/** Windows of up to this many hours are charted per minute, longer ones per hour. */
export const MINUTE_SERIES_MAX_HOURS = 6;

/** Most rows a stats window reads (the newest ones). */
export const STATS_ROW_LIMIT = 100_000;
const BUFFER_LIMIT = 10_000;
/**
 * How often buffered samples are written. Turning them into rows runs on the event loop (and on
 * SQLite the INSERT runs in the writer thread): every 100 ms, a burst of 3,500 orders/s costs a
 * little at a time, not a second's worth at once while every request in flight waits.
 */
export const LATENCY_FLUSH_MS = 100;

export class LatencyService {
  /**
   * Samples waiting to be written, column by column (platform/columns.ts: a sample held for up to
   * a flush interval is no object for the young-generation GC to copy), each stamped with the
   * clock when it was recorded, not when it is written. A null user is NaN.
   */
  private buffer = new Columns<(typeof NUMBERS)[number], SampleRefs>(NUMBERS, REFS, BUFFER_LIMIT);
  private count = 0;
  private droppedSamples = 0;
  private droppedSinceWarning = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** After stop() (shutdown), samples of requests still in flight are written on the next turn. */
  private stopped = false;
  private lateFlush = false;

  constructor(
    private readonly repo: OrdersRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly flushMs = LATENCY_FLUSH_MS,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.flushMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.stopped = true;
    await this.flush();
  }

  /**
   * Appends a sample (no I/O). Beyond 10,000 unwritten samples new ones are dropped, counted
   * ({@link dropped}) and warned about at the next write.
   */
  record(s: LatencySample): void {
    if (this.count < BUFFER_LIMIT) {
      if (this.count === this.buffer.capacity) this.buffer.grow();
      const b = this.buffer;
      const i = this.count++;
      b.num('userId')[i] = s.userId ?? NaN;
      b.num('totalMs')[i] = s.totalMs;
      b.num('brokerMs')[i] = s.brokerMs;
      b.num('validationMs')[i] = s.validationMs;
      b.num('at')[i] = this.clock.now();
      b.ref('label')[i] = s.label;
      b.ref('broker')[i] = s.broker;
      b.ref('symbol')[i] = s.symbol;
      b.ref('orderId')[i] = s.orderId;
      b.ref('status')[i] = s.status;
    } else {
      this.droppedSamples++;
      this.droppedSinceWarning++;
    }
    // The interval is gone once stop() ran: a late sample must not wait for a timer that never
    // fires before the database closes.
    if (this.stopped && !this.lateFlush) {
      this.lateFlush = true;
      setImmediate(() => {
        this.lateFlush = false;
        void this.flush();
      });
    }
  }

  /** The buffered samples as rows to store; the buffer is empty afterwards. */
  private drain(): Insertable<OrderLatencyTable>[] {
    const b = this.buffer;
    const [userId, totalMs, brokerMs, validationMs, at] = [
      b.num('userId'),
      b.num('totalMs'),
      b.num('brokerMs'),
      b.num('validationMs'),
      b.num('at'),
    ];
    const rows = new Array<Insertable<OrderLatencyTable>>(this.count);
    for (let i = 0; i < this.count; i++) {
      const user = userId[i]!;
      rows[i] = {
        label: b.ref('label')[i]!,
        user_id: Number.isNaN(user) ? null : user,
        broker: b.ref('broker')[i]!,
        symbol: b.ref('symbol')[i]!.slice(0, 64),
        order_id: b.ref('orderId')[i] ?? null,
        status: b.ref('status')[i]!,
        total_ms: totalMs[i]!,
        broker_ms: brokerMs[i]!,
        validation_ms: validationMs[i]!,
        overhead_ms: Math.max(0, totalMs[i]! - brokerMs[i]! - validationMs[i]!),
        created_at: at[i]!,
      };
      b.release(i);
    }
    this.count = 0;
    return rows;
  }

  /** Samples dropped since start because the buffer was full. */
  get dropped(): number {
    return this.droppedSamples;
  }

  /** Writes what is buffered (the timer's work; tests call it). */
  flush(): Promise<void> {
    this.writing = this.writing.then(async () => {
      const batch = this.drain();
      if (this.droppedSinceWarning > 0) {
        this.logger.warn({ dropped: this.droppedSinceWarning }, 'latency samples dropped: buffer full');
        this.droppedSinceWarning = 0;
      }
      if (batch.length === 0) return;
      await this.repo.insertLatency(batch).catch((err: unknown) => {
        this.droppedSamples += batch.length;
        this.logger.warn({ err, rows: batch.length }, 'latency write failed');
      });
    });
    return this.writing;
  }

  /**
   * p50/p90/p95/p99 and SLA shares over the last `windowHours`, overall, per broker and per API
   * type (the sample's label); the histogram of totals; and the series per minute (windows of up
   * to 6 hours) or per hour.
   */
  async stats(windowHours: number): Promise<LatencyStats> {
    const until = this.clock.now();
    const since = until - windowHours * 3_600_000;
    const rows = await this.repo.latency(since, STATS_ROW_LIMIT);
    const totals = rows.map((r) => r.total_ms);
    const bucket = windowHours <= MINUTE_SERIES_MAX_HOURS ? 'minute' : 'hour';
    const bucketMs = bucket === 'minute' ? 60_000 : 3_600_000;
    return {
      since,
      until,
      overall: summarise(totals),
      by_broker: summariseBy(rows, (r) => r.broker),
      by_api_type: summariseBy(rows, (r) => r.label),
      histogram: histogram(totals),
      series: { bucket, bucket_ms: bucketMs, points: latencySeries(rows, bucketMs) },
    };
  }

  logs(limit: number): Promise<LatencyRow[]> {
    return this.repo.latency(0, limit);
  }
}

/** The summary of each group of rows (by broker, by label). */
function summariseBy(rows: readonly LatencyRow[], key: (r: LatencyRow) => string) {
  const groups = new Map<string, number[]>();
  for (const r of rows) {
    const k = key(r);
    let list = groups.get(k);
    if (!list) groups.set(k, (list = []));
    list.push(r.total_ms);
  }
  return Object.fromEntries([...groups].map(([k, xs]) => [k, summarise(xs)]));
}
