/**
 * The error log store (its decisions: src/modules/observability/README.md). Server records arrive as the lines pino
 * already wrote (so redaction is exactly the log's), are parsed and queued in memory, and a 1 s
 * timer writes them in batches: the request path only pushes a string into an array. Retention
 * (a row cap and an age limit, `ERROR_LOG_MAX_ROWS` and `ERROR_LOG_RETENTION_DAYS`) is
 * {@link ErrorLogService.purge}, in batches: the observability plugin runs it on a timer, and the
 * writer after a burst of records.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import { warnCaptureOf } from '../../platform/logger.js';
import type { ErrorLogRepository, ErrorLogRow } from './error-log.repository.js';
import {
  ERROR_LEVELS,
  entryFromClientReport,
  entryFromLogLine,
  normaliseMessage,
  type ClientReport,
  type ErrorEntry,
  type ErrorLevel,
  type ErrorOrigin,
} from './error-record.js';

/** Retention and buffering figures (documented in this module's README.md). */
export const ERROR_LOG_LIMITS = {
  /** Rows kept at most, unless `ERROR_LOG_MAX_ROWS` says otherwise; the oldest go first. */
  maxRows: 10_000,
  /** Rows older than this are deleted, unless `ERROR_LOG_RETENTION_DAYS` says otherwise. */
  maxAgeDays: 30,
  /** Records waiting for the writer; beyond this they are dropped and counted. */
  maxPending: 5_000,
  /** `limit` of the list: default and range (values outside are clamped). */
  listDefault: 100,
  listMin: 1,
  listMax: 500,
  groupsDefault: 50,
  groupsMax: 200,
} as const;

const FLUSH_MS = 1_000;
/** A failed write is logged at most this often. */
const FAILURE_LOG_EVERY_MS = 60_000;
const HOUR = 3_600_000;

/** An entry as the routes answer it. */
export interface ErrorLogView {
  id: number;
  time: string;
  level: string;
  origin: string;
  module: string | null;
  message: string;
  exception: string | null;
  stack: string | null;
  request: { id: string | null; method: string | null; path: string | null };
  user_id: number | null;
  url: string | null;
  user_agent: string | null;
  component_stack: string | null;
  context: string | null;
  fingerprint: string;
}

export interface ErrorStats {
  total: number;
  by_level: Record<ErrorLevel, number>;
  by_origin: Record<ErrorOrigin, number>;
  last_hour: number;
  last_24h: number;
  /** Records not stored because the queue was full or a write failed (since start). */
  dropped: number;
  pending: number;
  retention: { max_rows: number; max_age_days: number };
}

export interface ErrorGroup {
  fingerprint: string;
  level: string;
  module: string | null;
  pattern: string;
  count: number;
  first_seen: string;
  last_seen: string;
  sample: ErrorLogView;
}

/** The levels a `level` filter selects: that level and the more severe ones. */
export function levelsFrom(level: ErrorLevel | undefined): readonly ErrorLevel[] | undefined {
  return level ? ERROR_LEVELS.slice(ERROR_LEVELS.indexOf(level)) : undefined;
}

const iso = (t: number) => new Date(t).toISOString();

export function toView(r: ErrorLogRow): ErrorLogView {
  return {
    id: Number(r.id),
    time: iso(Number(r.created_at)),
    level: r.level,
    origin: r.origin,
    module: r.module,
    message: r.message,
    exception: r.exception,
    stack: r.stack,
    request: { id: r.request_id, method: r.method, path: r.path },
    user_id: r.user_id === null ? null : Number(r.user_id),
    url: r.url,
    user_agent: r.user_agent,
    component_stack: r.component_stack,
    context: r.context,
    fingerprint: r.fingerprint,
  };
}

export class ErrorLogService {
  private pending: ErrorEntry[] = [];
  private dropped = 0;
  /** Rows written since the last purge (see {@link write}). */
  private writtenSincePurge = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private lastFailureLog = -Infinity;
  private readonly consumer = (line: string) => this.captureLine(line);

  private readonly retention: { maxRows: number; maxAgeDays: number };

  constructor(
    private readonly repo: ErrorLogRepository,
    private readonly clock: Clock,
    private readonly logger: Logger,
    retention: { maxRows?: number; maxAgeDays?: number } = {},
  ) {
    this.retention = {
      maxRows: retention.maxRows ?? ERROR_LOG_LIMITS.maxRows,
      maxAgeDays: retention.maxAgeDays ?? ERROR_LOG_LIMITS.maxAgeDays,
    };
  }

  /** Starts taking the logger's warn-and-above lines and the 1 s writer. */
  start(): void {
    warnCaptureOf(this.logger)?.attach(this.consumer);
    this.timer ??= setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /** Stops capturing and writes what is queued. */
  async stop(): Promise<void> {
    warnCaptureOf(this.logger)?.detach(this.consumer);
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** A pino line at warn or above (synchronous, no I/O: parsed and queued). */
  captureLine(line: string): void {
    // A request's lines carry its method and masked URL (platform/http/lazy-request-logger.ts).
    const entry = entryFromLogLine(line, this.clock.now());
    if (entry) this.enqueue(entry);
  }

  /**
   * Queues a browser's report (cleaned and capped) for the writer; undefined when no message is
   * left once control characters are gone. Nothing is written on the request path.
   */
  ingestClient(report: ClientReport, userId: number): { fingerprint: string; level: string } | undefined {
    const entry = entryFromClientReport(report, this.clock.now(), userId);
    if (!entry) return undefined;
    this.enqueue(entry);
    return { fingerprint: entry.fingerprint, level: entry.level };
  }

  /** Writes the queue now (the timer does this each second); one write at a time. */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  private enqueue(entry: ErrorEntry): void {
    if (this.pending.length >= ERROR_LOG_LIMITS.maxPending) {
      this.dropped++;
      return;
    }
    this.pending.push(entry);
  }

  private async write(): Promise<void> {
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    try {
      await this.repo.insert(batch);
      this.writtenSincePurge += batch.length;
    } catch (err) {
      this.dropped += batch.length;
      // This warning is itself captured: logged at most once a minute so a broken database
      // cannot turn the writer into a loop of its own failures.
      const now = this.clock.now();
      if (now - this.lastFailureLog >= FAILURE_LOG_EVERY_MS) {
        this.lastFailureLog = now;
        this.logger.warn({ err, module: 'error-log', lost: batch.length }, 'error log write failed');
      }
      return;
    }
    // A burst of records (a broker down, every order warning) must not outgrow the row cap until
    // the next sweep: past a tenth of the cap written since the last purge, the writer purges.
    if (this.writtenSincePurge >= this.retention.maxRows / 10)
      await this.purge().catch((err: unknown) => {
        const now = this.clock.now();
        if (now - this.lastFailureLog < FAILURE_LOG_EVERY_MS) return;
        this.lastFailureLog = now;
        this.logger.warn({ err, module: 'error-log' }, 'error log purge failed');
      });
  }

  /**
   * Retention: deletes the rows past the age limit, then all but the newest `maxRows`, in batches
   * between which requests run; returns how many went. Run on a timer by the plugin, and by the
   * writer after a burst.
   */
  purge(): Promise<number> {
    this.writtenSincePurge = 0;
    const before = this.clock.now() - this.retention.maxAgeDays * 24 * HOUR;
    return this.repo.prune(before, this.retention.maxRows);
  }

  async list(query: {
    limit?: number;
    level?: ErrorLevel;
    origin?: ErrorOrigin;
    q?: string;
  }): Promise<{ limit: number; entries: ErrorLogView[] }> {
    await this.flush();
    const limit = clamp(query.limit ?? ERROR_LOG_LIMITS.listDefault, 1, ERROR_LOG_LIMITS.listMax);
    const q = query.q?.trim();
    const rows = await this.repo.list({
      limit,
      ...(query.level ? { levels: levelsFrom(query.level) } : {}),
      ...(query.origin ? { origin: query.origin } : {}),
      ...(q ? { q } : {}),
    });
    return { limit, entries: rows.map(toView) };
  }

  async stats(): Promise<ErrorStats> {
    await this.flush();
    const now = this.clock.now();
    const s = await this.repo.stats({ hour: now - HOUR, day: now - 24 * HOUR });
    const by_level: Record<ErrorLevel, number> = { warn: 0, error: 0, fatal: 0 };
    const by_origin: Record<ErrorOrigin, number> = { server: 0, client: 0 };
    let total = 0;
    for (const r of s.byLevel) {
      total += r.n;
      if (r.level in by_level) by_level[r.level as ErrorLevel] += r.n;
      if (r.origin in by_origin) by_origin[r.origin as ErrorOrigin] += r.n;
    }
    return {
      total,
      by_level,
      by_origin,
      last_hour: s.lastHour,
      last_24h: s.lastDay,
      dropped: this.dropped,
      pending: this.pending.length,
      retention: { max_rows: this.retention.maxRows, max_age_days: this.retention.maxAgeDays },
    };
  }

  async groups(query: {
    limit?: number;
    level?: ErrorLevel;
  }): Promise<{ limit: number; groups: ErrorGroup[] }> {
    await this.flush();
    const limit = clamp(query.limit ?? ERROR_LOG_LIMITS.groupsDefault, 1, ERROR_LOG_LIMITS.groupsMax);
    const rows = await this.repo.groups(limit, levelsFrom(query.level));
    const samples = new Map(
      (await this.repo.byIds(rows.map((r) => r.sample_id))).map((r) => [Number(r.id), r]),
    );
    const groups: ErrorGroup[] = [];
    for (const g of rows) {
      const sample = samples.get(g.sample_id);
      if (!sample) continue; // pruned between the two reads
      groups.push({
        fingerprint: g.fingerprint,
        level: sample.level,
        module: sample.module,
        pattern: normaliseMessage(sample.message),
        count: g.count,
        first_seen: iso(g.first_seen),
        last_seen: iso(g.last_seen),
        sample: toView(sample),
      });
    }
    return { limit, groups };
  }
}

export function clamp(n: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.trunc(n)));
}
