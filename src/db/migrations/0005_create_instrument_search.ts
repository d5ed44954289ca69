import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../../platform/db/database.js';

/**
 * The database fallback of the instrument search (search rule 6) reads a trigram index instead of
 * scanning every row. SQLite: an FTS5 table with the trigram tokenizer over `search_key`, keyed by
 * the instrument id and kept in step by triggers (so every import and purge maintains it inside
 * its own statements). PostgreSQL keeps its sequential scan (pg_trgm is an optional extension).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return;
  // A numeric term also matches by strike: those rows are found through this index.
  await db.schema
    .createIndex('instruments_strike_idx')
    .on('instruments')
    .columns(['generation', 'strike'])
    .execute();
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
