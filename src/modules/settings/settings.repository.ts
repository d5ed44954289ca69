import type { Kysely, Selectable } from 'kysely';
import type { DB, SettingsTable } from '../../db/schema.js';

export type SettingsRow = Selectable<SettingsTable>;

/** The single settings row (id = 1), created by the first migration. */
export class SettingsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  get(): Promise<SettingsRow> {
    return this.db.selectFrom('settings').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  }
}
