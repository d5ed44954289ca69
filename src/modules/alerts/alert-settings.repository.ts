/**
 * The only reader and writer of `alert_settings` (one row per user, migrations 0008 and 0022).
 * Rows hold ciphertext; sealing and opening is the service's job.
 */
import type { Kysely, Selectable } from 'kysely';
import type { DB } from '../../db/schema.js';

/** The table's columns: Telegram, Slack and `notify_on` (0008), WhatsApp (0022). */
export type AlertSettingsTable = DB['alert_settings'];

export type AlertSettingsRow = Selectable<AlertSettingsTable>;

/** A complete row as written (booleans as 0/1, which both dialects accept). */
export interface AlertSettingsWrite {
  user_id: number;
  telegram_enabled: number;
  telegram_bot_token_encrypted: string | null;
  telegram_chat_id: string | null;
  slack_enabled: number;
  slack_webhook_url_encrypted: string | null;
  notify_on: string;
  whatsapp_access_token_encrypted: string | null;
  whatsapp_phone_number_id: string | null;
  whatsapp_own_number: string | null;
  updated_at: number;
}

export class AlertSettingsRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** The user's row, undefined when the user never saved alert settings. */
  get(userId: number): Promise<AlertSettingsRow | undefined> {
    return this.db.selectFrom('alert_settings').selectAll().where('user_id', '=', userId).executeTakeFirst();
  }

  /** Inserts or replaces the user's row in one statement. */
  async save(row: AlertSettingsWrite): Promise<void> {
    const { user_id: _userId, ...rest } = row;
    await this.db
      .insertInto('alert_settings')
      .values(row)
      .onConflict((oc) => oc.column('user_id').doUpdateSet(rest))
      .execute();
  }
}
