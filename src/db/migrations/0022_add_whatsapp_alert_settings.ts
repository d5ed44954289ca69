import type { Kysely } from 'kysely';

/**
 * WhatsApp Business Cloud API settings of each user, for `POST /api/v1/whatsapp/notify`
 * (docs/rules/alerts.md#notify-api). The access token is a credentials
 * (docs/rules/alerts.md#alert-credentials), stored only as AES-256-GCM ciphertext (SecretBox,
 * purpose `whatsapp-token`); the business phone-number id and the user's own number are
 * addresses, kept in clear like the Telegram chat id. All three are nullable, so existing rows
 * need no value. One column per statement: SQLite adds one column per ALTER TABLE.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('alert_settings').addColumn('whatsapp_access_token_encrypted', 'text').execute();
  await db.schema.alterTable('alert_settings').addColumn('whatsapp_phone_number_id', 'varchar(32)').execute();
  /** E.164 digits without the `+` (at most 15). */
  await db.schema.alterTable('alert_settings').addColumn('whatsapp_own_number', 'varchar(20)').execute();
}
