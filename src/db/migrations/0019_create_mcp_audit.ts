import type { Kysely } from 'kysely';
import { withId } from './helpers.js';

/**
 * `mcp_audit` (docs/rules/mcp.md#mcp-audit): every agent tool call — when, over which transport
 * and client, as which user, which tool and scope, a digest of the arguments (never the
 * arguments), the outcome, the duration and the caller's address.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('mcp_audit'))
    .addColumn('ts', 'bigint', (c) => c.notNull())
    .addColumn('transport', 'varchar(8)', (c) => c.notNull())
    .addColumn('client_id', 'varchar(64)')
    .addColumn('user_id', 'bigint')
    .addColumn('tool', 'varchar(64)', (c) => c.notNull())
    .addColumn('scope', 'varchar(16)')
    .addColumn('args_digest', 'varchar(64)', (c) => c.notNull())
    .addColumn('http_status', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'varchar(16)', (c) => c.notNull())
    .addColumn('duration_ms', 'double precision', (c) => c.notNull())
    .addColumn('ip', 'varchar(64)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('mcp_audit_ts_idx').on('mcp_audit').columns(['ts']).execute();
}
