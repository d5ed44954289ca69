import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { Logger } from 'pino';
import { badRequest, importFailed, importRunning, isAppError } from '../../platform/errors.js';
import type { Clock } from '../../platform/clock.js';
import type { Instrument, MasterContractFormat } from './instrument.js';
import type { ContractsService } from './contracts.service.js';
import type { ContractImportRow, ContractImportsRepository } from './contract-imports.repository.js';
import type { InstrumentsRepository } from './instruments.repository.js';

/** Rows buffered before one write: bounded memory whatever the file size. */
const WRITE_BATCH = 2000;
/** An import unfinished after this long belongs to a process that died. */
const STALE_IMPORT_MS = 30 * 60_000;
/** Skip examples kept in the summary (the counts by reason are complete). */
const SKIP_EXAMPLES = 20;
/** Distinct skip reasons kept; rarer ones are counted under "other". */
const SKIP_REASONS = 50;

export interface ImportSummary {
  import_id: number;
  broker: string;
  rows: number;
  skipped: number;
  duration_ms: number;
  /** Rows per canonical exchange and instrument type. */
  by_exchange: Record<string, Record<string, number>>;
  /** Skipped rows per reason. */
  skipped_by_reason: Record<string, number>;
  skipped_examples: { line: number; reason: string }[];
}

export interface ImportProgress {
  /** Bytes of the (compressed) input read so far. */
  bytes: number;
  rows: number;
  skipped: number;
}

/**
 * A skip reason without its values, for counting (`bad expiry 2026-13-01` → `bad expiry …`,
 * `ambiguous symbol IMC1 on NSE (ISIN …)` → `ambiguous symbol … on …`); examples keep the values.
 */
export function reasonKind(reason: string): string {
  return reason
    .replace(/\s*\(.*\)\s*$/, '')
    .replace(/(?<![\w…])(?=[^\sa-z,;]*[A-Z0-9])[^\sa-z,;]+/g, '…')
    .trim();
}

/**
 * The bytes of a plain or gzip-compressed input (gzip recognised by its magic bytes), with
 * backpressure and errors (a truncated gzip) passed through to the reader.
 */
export async function* decompressed(input: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const it = input[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  const head = first.value;
  const all = (async function* () {
    yield head;
    for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
  })();
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) {
    const gunzip = createGunzip();
    pipeline(Readable.from(all), gunzip, () => {});
    yield* gunzip as AsyncIterable<Buffer>;
  } else yield* all;
}

/** Passes chunks through, reporting the running byte count (progress of a file or download). */
export async function* counted(
  input: AsyncIterable<Buffer>,
  onBytes: (n: number) => void,
): AsyncGenerator<Buffer> {
  let n = 0;
  for await (const chunk of input) {
    n += chunk.length;
    onBytes(n);
    yield chunk;
  }
}

/**
 * Master-contract import: stream → parser → batched inserts under a new generation → one
 * UPDATE makes it live → every instance rebuilds its index. A failure at any point (bad file,
 * truncated download, database error) marks the run failed and deletes its rows; the previous
 * contract stays live throughout.
 */
export class ContractImportService {
  private running: number | null = null;
  /** The run reading its input on this instance now, and how far it has got. */
  private reading: { id: number; progress: ImportProgress } | null = null;

  constructor(
    private readonly repo: InstrumentsRepository,
    private readonly runs: ContractImportsRepository,
    private readonly contracts: ContractsService,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Whether this instance is importing now. */
  get busy(): boolean {
    return this.running !== null;
  }

  /**
   * How far import run `id` has got while it reads its input on this instance (bytes read live,
   * rows and skips after each written batch); null when it does not, or not yet. The status route
   * shows it for a download and an upload alike (docs/rules/web.md#account-pages).
   */
  progress(id: number): ImportProgress | null {
    return this.reading?.id === id ? { ...this.reading.progress } : null;
  }

  /** Claims the single import slot of this instance (409 when taken). */
  async begin(broker: string, source: string, status: 'pending' | 'downloading'): Promise<number> {
    if (this.running !== null) throw importRunning('A master contract import is already running');
    this.running = -1;
    try {
      this.running = await this.runs.startImport(broker, source, status, this.clock.now());
      return this.running;
    } catch (err) {
      this.running = null;
      throw err;
    }
  }

  /** Imports `input` (plain or gzip bytes) as `format` under the import run `id` from `begin`. */
  async run(
    id: number,
    format: MasterContractFormat,
    input: AsyncIterable<Buffer>,
    onProgress?: (p: ImportProgress) => void,
  ): Promise<ImportSummary> {
    const t0 = performance.now();
    const summary: ImportSummary = {
      import_id: id,
      broker: format.broker,
      rows: 0,
      skipped: 0,
      duration_ms: 0,
      by_exchange: {},
      skipped_by_reason: {},
      skipped_examples: [],
    };
    const progress: ImportProgress = { bytes: 0, rows: 0, skipped: 0 };
    this.reading = { id, progress };
    const skip = (line: number, reason: string) => {
      summary.skipped++;
      const kind = reasonKind(reason);
      const known = kind in summary.skipped_by_reason;
      const key = known || Object.keys(summary.skipped_by_reason).length < SKIP_REASONS ? kind : 'other';
      summary.skipped_by_reason[key] = (summary.skipped_by_reason[key] ?? 0) + 1;
      if (summary.skipped_examples.length < SKIP_EXAMPLES) summary.skipped_examples.push({ line, reason });
    };
    let writing: Promise<void> | null = null;
    try {
      const seen = new Set<string>();
      let batch: Instrument[] = [];
      let line = 0;
      for await (const item of format.parse(decompressed(counted(input, (n) => (progress.bytes = n))))) {
        if (item.kind === 'skip') {
          skip(item.line, item.reason);
          continue;
        }
        line++;
        const r = item.row;
        const k = `${r.symbol}\u0000${r.exchange}`;
        if (seen.has(k)) {
          skip(line, `duplicate symbol ${r.symbol} on ${r.exchange}`);
          continue;
        }
        seen.add(k);
        const byType = (summary.by_exchange[r.exchange] ??= {});
        byType[r.instrumenttype] = (byType[r.instrumenttype] ?? 0) + 1;
        summary.rows++;
        batch.push(r);
        if (batch.length >= WRITE_BATCH) {
          // One batch is written while the next is parsed (at most two in memory).
          if (writing) await writing;
          writing = this.repo.insertBatch(id, batch);
          writing.catch(() => undefined); // awaited below; no unhandled rejection meanwhile
          batch = [];
          progress.rows = summary.rows;
          progress.skipped = summary.skipped;
          onProgress?.(progress);
        }
      }
      if (writing) await writing;
      writing = null;
      if (batch.length) await this.repo.insertBatch(id, batch);
      if (summary.rows === 0) throw badRequest('The file holds no instrument the importer could read');
      await this.repo.analyze();
      summary.duration_ms = Math.round(performance.now() - t0);
      progress.rows = summary.rows;
      progress.skipped = summary.skipped;
      onProgress?.(progress);
      await this.runs.finishImport(
        id,
        { rows: summary.rows, skipped: summary.skipped, summary },
        this.clock.now(),
      );
      this.logger.info(
        {
          importId: id,
          broker: format.broker,
          rows: summary.rows,
          skipped: summary.skipped,
          ms: summary.duration_ms,
        },
        'master contract imported',
      );
      this.contracts.announce(id);
      // The slot is free once the run's row says it ended: a status read that sees it finished
      // must find the next import allowed (the purge below is housekeeping).
      this.release(id);
      await this.runs.purge(this.clock.now(), STALE_IMPORT_MS);
      return summary;
    } catch (err) {
      // A batch still being written must land before the run's rows are deleted.
      await writing?.catch(() => undefined);
      const message = err instanceof Error ? err.message : String(err);
      summary.duration_ms = Math.round(performance.now() - t0);
      this.logger.warn(
        { importId: id, broker: format.broker, err: message },
        'master contract import failed',
      );
      await this.runs
        .failImport(id, message, { rows: summary.rows, skipped: summary.skipped, summary }, this.clock.now())
        .catch((e: unknown) => this.logger.error({ err: e }, 'could not record the failed import'));
      throw isAppError(err) ? err : importFailed(`Import failed: ${message}`);
    } finally {
      this.release(id);
    }
  }

  /** Frees the import slot, if run `id` still holds it (another run may have taken it since). */
  private release(id: number): void {
    if (this.running === id) this.running = null;
    if (this.reading?.id === id) this.reading = null;
  }

  /**
   * Records a run that failed before or outside `run` (the download could not start) and frees
   * the import slot; a run `run` already recorded is left as it is.
   */
  async abandon(id: number, err: unknown): Promise<void> {
    if (this.running === id) this.running = null;
    const message = err instanceof Error ? err.message : String(err);
    const row = await this.runs.getImport(id).catch(() => undefined);
    if (row && (row.status === 'pending' || row.status === 'downloading')) {
      this.logger.warn({ importId: id, err: message }, 'master contract download failed');
      await this.runs
        .failImport(id, message, { rows: 0, skipped: 0, summary: null }, this.clock.now())
        .catch((e: unknown) => this.logger.error({ err: e }, 'could not record the failed import'));
    }
  }

  liveGeneration(): Promise<number | null> {
    return this.repo.liveGeneration();
  }

  /** Whose instrument file is the live master contract (`zerodha`, `upstox`, …), null when none. */
  liveBroker(): Promise<string | null> {
    return this.repo.liveBroker();
  }

  /** Marks interrupted runs failed and drops rows of dead generations (startup). */
  purge(): Promise<void> {
    return this.runs.purge(this.clock.now(), STALE_IMPORT_MS);
  }

  latest(): Promise<ContractImportRow | undefined> {
    return this.runs.latestImport();
  }

  /** One import run by id (the live contract's own run, for its figures). */
  get(id: number): Promise<ContractImportRow | undefined> {
    return this.runs.getImport(id);
  }
}
