import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { InstrumentsRepository } from './instruments.repository.js';

export type ImportStatus = 'pending' | 'downloading' | 'success' | 'error';

export interface ContractImportRow {
  id: number;
  broker: string;
  source: string;
  status: ImportStatus;
  started_at: number;
  finished_at: number | null;
  row_count: number;
  skipped_count: number;
  summary: string | null;
  message: string | null;
}

/**
 * Import runs of the master contract (`contract_imports`). A run's id is the generation its
 * instruments carry; a failed run's rows are deleted, and so are rows of generations that are
 * neither live nor being written.
 */
export class ContractImportsRepository {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly instruments: InstrumentsRepository,
  ) {}

  /** Records a new import run; its id is the generation its rows carry. */
  async startImport(broker: string, source: string, status: ImportStatus, now: number): Promise<number> {
    const row = await this.db
      .insertInto('contract_imports')
      .values({
        broker,
        source: source.slice(0, 512),
        status,
        started_at: now,
        row_count: 0,
        skipped_count: 0,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  async setStatus(id: number, status: ImportStatus): Promise<void> {
    await this.db.updateTable('contract_imports').set({ status }).where('id', '=', id).execute();
  }

  /** Makes the import live: the one UPDATE that switches every reader to the new generation. */
  async finishImport(
    id: number,
    result: { rows: number; skipped: number; summary: unknown },
    now: number,
  ): Promise<void> {
    await this.db
      .updateTable('contract_imports')
      .set({
        status: 'success',
        finished_at: now,
        row_count: result.rows,
        skipped_count: result.skipped,
        summary: JSON.stringify(result.summary),
        message: null,
      })
      .where('id', '=', id)
      .execute();
  }

  async failImport(
    id: number,
    message: string,
    result: { rows: number; skipped: number; summary: unknown },
    now: number,
  ): Promise<void> {
    await this.db
      .updateTable('contract_imports')
      .set({
        status: 'error',
        finished_at: now,
        message: message.slice(0, 1024),
        row_count: result.rows,
        skipped_count: result.skipped,
        summary: result.summary === null ? null : JSON.stringify(result.summary),
      })
      .where('id', '=', id)
      .execute();
    await this.instruments.deleteGeneration(id);
  }

  /**
   * Drops every generation that is neither a broker's newest successful import nor being written by a recent import; imports
   * left unfinished longer than `staleMs` (a crashed process) are marked failed first.
   */
  async purge(now: number, staleMs: number): Promise<void> {
    await this.db
      .updateTable('contract_imports')
      .set({
        status: 'error',
        finished_at: now,
        message: 'interrupted (the process stopped during the import)',
      })
      .where('status', 'in', ['pending', 'downloading'])
      .where('started_at', '<', now - staleMs)
      .execute();
    // Kept: each broker's newest successful import (the live one among them), which maps that
    // broker's instruments while another broker's file is live (docs/rules/brokers.md#broker-apps).
    const kept = new Set(
      (
        await this.db
          .selectFrom('contract_imports')
          .select((eb) => eb.fn.max('id').as('id'))
          .where('status', '=', 'success')
          .groupBy('broker')
          .execute()
      ).map((r) => Number(r.id)),
    );
    const running = new Set(
      (
        await this.db
          .selectFrom('contract_imports')
          .select('id')
          .where('status', 'in', ['pending', 'downloading'])
          .execute()
      ).map((r) => Number(r.id)),
    );
    for (const g of await this.instruments.generations())
      if (!kept.has(g) && !running.has(g)) await this.instruments.deleteGeneration(g);
  }

  async latestImport(): Promise<ContractImportRow | undefined> {
    const row = await this.db
      .selectFrom('contract_imports')
      .selectAll()
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? ({ ...row, id: Number(row.id) } as ContractImportRow) : undefined;
  }

  async getImport(id: number): Promise<ContractImportRow | undefined> {
    const row = await this.db
      .selectFrom('contract_imports')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? ({ ...row, id: Number(row.id) } as ContractImportRow) : undefined;
  }
}
