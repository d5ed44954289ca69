/** The only place that touches the automatic-ban columns of the settings row (id = 1). */
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { DB, SettingsTable } from '../../db/schema.js';

export type SecuritySettingsRow = Pick<
  Selectable<SettingsTable>,
  | 'security_auto_ban_enabled'
  | 'security_404_threshold'
  | 'security_404_ban_duration'
  | 'security_api_threshold'
  | 'security_api_ban_duration'
  | 'security_repeat_offender_limit'
>;

export class SecuritySettingsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  read(): Promise<SecuritySettingsRow> {
    return this.db
      .selectFrom('settings')
      .select([
        'security_auto_ban_enabled',
        'security_404_threshold',
        'security_404_ban_duration',
        'security_api_threshold',
        'security_api_ban_duration',
        'security_repeat_offender_limit',
      ])
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
  }

  async write(patch: Updateable<SettingsTable>): Promise<void> {
    await this.db.updateTable('settings').set(patch).where('id', '=', 1).execute();
  }
}
