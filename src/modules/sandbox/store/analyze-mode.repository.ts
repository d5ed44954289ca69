/** The only place that touches the settings row's `analyze_mode` flag (id = 1). */
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.js';
import { fromDbBool, toDbBool } from '../../../platform/db/database.js';

export class AnalyzeModeRepository {
  constructor(private readonly db: Kysely<DB>) {}

  async read(): Promise<boolean> {
    const row = await this.db
      .selectFrom('settings')
      .select('analyze_mode')
      .where('id', '=', 1)
      .executeTakeFirst();
    return fromDbBool(row?.analyze_mode);
  }

  async write(analyze: boolean): Promise<void> {
    await this.db
      .updateTable('settings')
      .set({ analyze_mode: toDbBool(analyze) })
      .where('id', '=', 1)
      .execute();
  }
}
