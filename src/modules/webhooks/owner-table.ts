/**
 * The table of a webhook source whose rows a user owns (scanners, flows): each row has a name
 * unique among the user's rows that are not deleted, and a webhook credential stored as its digest.
 * A deletion is soft: the credential dies (its digest is cleared), the name is free again, the
 * de-duplication claims go, and the audit stays.
 */
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { DB } from '../../db/schema.js';
import { forgetClaims, type SourceName } from './webhooks.repository.js';

type OwnerTable = 'scanners' | 'flows';

/** The columns every owner table has, all the generic queries read. */
interface OwnerColumns {
  id: number;
  user_id: number;
  name: string;
  webhook_digest: string | null;
  deleted_at: number | null;
  updated_at: number;
}

export class OwnerTableRepository<N extends OwnerTable> {
  /**
   * The database seen through the columns the owner tables share: `owner` stands for this
   * repository's table at the type level only (the statements name the real table).
   */
  private readonly rows: Kysely<{ owner: OwnerColumns }>;

  constructor(
    protected readonly db: Kysely<DB>,
    private readonly table: N,
    private readonly source: SourceName,
  ) {
    this.rows = db as unknown as Kysely<{ owner: OwnerColumns }>;
  }

  private select() {
    return this.rows.selectFrom(this.table as unknown as 'owner').selectAll();
  }

  async insert(row: Insertable<DB[N]>): Promise<Selectable<DB[N]>> {
    return (await this.rows
      .insertInto(this.table as unknown as 'owner')
      .values(row as never)
      .returningAll()
      .executeTakeFirstOrThrow()) as Selectable<DB[N]>;
  }

  /** A user's row that is not deleted. */
  async own(userId: number, id: number): Promise<Selectable<DB[N]> | undefined> {
    return (await this.select()
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst()) as Selectable<DB[N]> | undefined;
  }

  async listForUser(userId: number): Promise<Selectable<DB[N]>[]> {
    return (await this.select()
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .execute()) as Selectable<DB[N]>[];
  }

  /** Whether the user has a row named `name` that is not deleted, other than `exceptId`. */
  async nameTaken(userId: number, name: string, exceptId?: number): Promise<boolean> {
    let q = this.select()
      .where('user_id', '=', userId)
      .where('name', '=', name)
      .where('deleted_at', 'is', null);
    if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
    return (await q.executeTakeFirst()) !== undefined;
  }

  /** The row a credential digest names. */
  async byDigest(digest: string): Promise<Selectable<DB[N]> | undefined> {
    return (await this.select()
      .where('webhook_digest', '=', digest)
      .where('deleted_at', 'is', null)
      .executeTakeFirst()) as Selectable<DB[N]> | undefined;
  }

  async update(id: number, patch: Updateable<DB[N]>): Promise<Selectable<DB[N]> | undefined> {
    return (await this.rows
      .updateTable(this.table as unknown as 'owner')
      .set(patch as never)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst()) as Selectable<DB[N]> | undefined;
  }

  /** Deletes a row: its credential dies, its name is free, its claims go; its audit stays. */
  async softDelete(id: number, now: number): Promise<boolean> {
    const r = await this.rows
      .updateTable(this.table as unknown as 'owner')
      .set({ deleted_at: now, webhook_digest: null, updated_at: now } as never)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    await forgetClaims(this.db, this.source, id);
    return Number(r.numUpdatedRows) > 0;
  }
}
