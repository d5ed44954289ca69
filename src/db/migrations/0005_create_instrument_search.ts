import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../../platform/db/database.js';

/**
 * The database fallback of the instrument search (docs/rules/market.md#index-or-database) reads a
 * trigram index instead of scanning every row. SQLite: an FTS5 table with the trigram tokenizer
 * over `search_key`, keyed by the instrument id and kept in step by triggers (so every import and
 * purge maintains it inside its own statements). PostgreSQL: a GIN trigram index (`pg_trgm`) on
 * `search_key`, which `LIKE '%term%'` uses, when the extension is installed or this role may
 * install it; otherwise the search stays a sequential scan (correct, slower).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // A numeric term also matches by strike: those rows are found through this index.
  await db.schema
    .createIndex('instruments_strike_idx')
    .on('instruments')
    .columns(['generation', 'strike'])
    .execute();
  if (isPostgres(db)) return trigramIndexOnPostgres(db);
  await sql`create virtual table instruments_fts using fts5(search_key, tokenize = 'trigram')`.execute(db);
  await sql`create trigger instruments_fts_insert after insert on instruments begin
      insert into instruments_fts(rowid, search_key) values (new.id, new.search_key);
    end`.execute(db);
  await sql`create trigger instruments_fts_delete after delete on instruments begin
      delete from instruments_fts where rowid = old.id;
    end`.execute(db);
  await sql`insert into instruments_fts(rowid, search_key) select id, search_key from instruments`.execute(
    db,
  );
}

/**
 * Installs `pg_trgm` in `public` if it is missing and allowed (migrations run under Kysely's
 * database-wide advisory lock, so concurrent migrators do not race), then indexes `search_key`
 * with the extension's operator class, schema-qualified so any search_path works.
 */
async function trigramIndexOnPostgres(db: Kysely<unknown>): Promise<void> {
  const probe = await sql<{ installed: string | null; available: boolean; allowed: boolean }>`
    select
      (select extnamespace::regnamespace::text from pg_extension where extname = 'pg_trgm') as installed,
      exists (select 1 from pg_available_extensions where name = 'pg_trgm') as available,
      (select rolsuper from pg_roles where rolname = current_user)
        or (exists (select 1 from pg_available_extension_versions where name = 'pg_trgm' and trusted)
            and has_database_privilege(current_database(), 'CREATE')
            and has_schema_privilege('public', 'CREATE')) as allowed`.execute(db);
  const { installed, available, allowed } = probe.rows[0]!;
  let schema = installed;
  if (schema === null) {
    if (!available || !allowed) return;
    await sql`create extension if not exists pg_trgm schema public`.execute(db);
    schema = 'public';
  }
  await sql`create index instruments_search_trgm_idx on instruments using gin (search_key ${sql.id(schema)}.gin_trgm_ops)`.execute(
    db,
  );
}
