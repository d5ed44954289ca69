import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * Remote agents' OAuth 2.1 (docs/rules/mcp.md#mcp-oauth): registered clients (approved by an
 * administrator when the settings ask), authorization codes (PKCE S256, single use), access and
 * refresh tokens (digests only; refresh tokens rotate within a family, reuse revokes the family),
 * and the one row of MCP settings, kill switch included.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_clients')
    .addColumn('client_id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(200)', (c) => c.notNull())
    /** JSON array of exact redirect URIs. */
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    /** `pending`, `approved` or `revoked`. */
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .execute();

  await db.schema
    .createTable('oauth_codes')
    .addColumn('code_digest', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('client_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('user_id', 'bigint', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('scope', 'varchar(200)', (c) => c.notNull())
    .addColumn('code_challenge', 'varchar(128)', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();

  await withId(db, db.schema.createTable('oauth_tokens'))
    .addColumn('token_digest', 'varchar(64)', (c) => c.notNull().unique())
    /** `access` or `refresh`. */
    .addColumn('kind', 'varchar(8)', (c) => c.notNull())
    .addColumn('client_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('user_id', 'bigint', (c) => c.notNull())
    .addColumn('scope', 'varchar(200)', (c) => c.notNull())
    /** Every token issued from one authorization shares it (refresh reuse revokes them all). */
    .addColumn('family', 'varchar(64)', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('revoked_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_tokens_family_idx').on('oauth_tokens').columns(['family']).execute();
  await db.schema.createIndex('oauth_tokens_client_idx').on('oauth_tokens').columns(['client_id']).execute();

  await db.schema
    .createTable('mcp_settings')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('require_approval', 'integer', (c) => c.notNull())
    .addColumn('writes_enabled', 'integer', (c) => c.notNull())
    /** JSON array of the scopes clients may be granted. */
    .addColumn('allowed_scopes', 'text', (c) => c.notNull())
    /** Tool calls per minute per access token. */
    .addColumn('token_rate_per_minute', 'integer', (c) => c.notNull())
    .addColumn('kill_switch', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}
