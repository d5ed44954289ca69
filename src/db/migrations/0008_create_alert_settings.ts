import type { Kysely } from 'kysely';

/**
 * Chat alerts: each user's Telegram and Slack-compatible alert settings. The bot token and the
 * webhook URL are credentials (docs/rules/alerts.md#alert-credentials), stored only as
 * AES-256-GCM ciphertext (SecretBox, purposes `telegram-token` and `slack-webhook`); the chat id
 * is an address, kept in clear so the settings page can show a hint of it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('alert_settings')
    // bigint like every other reference to users.id (bigserial on PostgreSQL).
    .addColumn('user_id', 'bigint', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('telegram_enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('telegram_bot_token_encrypted', 'text')
    .addColumn('telegram_chat_id', 'varchar(64)')
    .addColumn('slack_enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('slack_webhook_url_encrypted', 'text')
    /** `all` | `failures` | `placed`. */
    .addColumn('notify_on', 'varchar(32)', (c) => c.notNull().defaultTo('all'))
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}
