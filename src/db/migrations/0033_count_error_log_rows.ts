import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../../platform/db/database.js';

/**
 * The error log's statistics count its rows by level and origin. Counted at read time, that count
 * grows with the log (9 ms for 50,000 rows, bench/README.md, "The growth bench"); here the
 * counts are kept in `error_log_counts`, one row per level and origin, by triggers on `error_log`,
 * so every writer keeps them exact inside its own statement: the log's writer, the retention's
 * batched deletes, another instance on the same database, a seed script. The counts start from
 * the rows already logged. The index `error_log_level_origin_idx` served only the old count.
 *
 * SQLite: a row trigger per insert and per delete. PostgreSQL: a statement trigger over the
 * statement's transition table, one upsert per level and origin a statement touched, taking the
 * counter rows' locks in key order (so two statements cannot wait on each other).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('error_log_counts')
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('error_log_counts_pkey', ['level', 'origin'])
    .execute();
  await db.schema.dropIndex('error_log_level_origin_idx').execute();
  if (isPostgres(db)) await countOnPostgres(db);
  else await countOnSqlite(db);
  await sql`insert into error_log_counts (level, origin, n)
    select level, origin, count(*) from error_log group by level, origin`.execute(db);
}

async function countOnSqlite(db: Kysely<unknown>): Promise<void> {
  await sql`create trigger error_log_counts_insert after insert on error_log begin
      insert into error_log_counts (level, origin, n) values (new.level, new.origin, 1)
        on conflict (level, origin) do update set n = n + 1;
    end`.execute(db);
  await sql`create trigger error_log_counts_delete after delete on error_log begin
      update error_log_counts set n = n - 1 where level = old.level and origin = old.origin;
    end`.execute(db);
}

/**
 * The function keeps the search path it was created under, so it finds `error_log_counts` in the
 * schema the migrations ran in whatever the calling session's path.
 */
async function countOnPostgres(db: Kysely<unknown>): Promise<void> {
  await sql`create function error_log_count_rows() returns trigger language plpgsql
    set search_path from current as $body$
    begin
      if tg_op = 'INSERT' then
        insert into error_log_counts as c (level, origin, n)
          select level, origin, count(*) from new_rows group by level, origin order by level, origin
          on conflict (level, origin) do update set n = c.n + excluded.n;
      else
        perform 1 from error_log_counts c
          where (c.level, c.origin) in (select level, origin from old_rows)
          order by c.level, c.origin for update;
        update error_log_counts as c set n = c.n - d.n
          from (select level, origin, count(*) as n from old_rows group by level, origin) d
          where c.level = d.level and c.origin = d.origin;
      end if;
      return null;
    end
    $body$`.execute(db);
  await sql`create trigger error_log_counts_insert after insert on error_log
    referencing new table as new_rows for each statement
    execute function error_log_count_rows()`.execute(db);
  await sql`create trigger error_log_counts_delete after delete on error_log
    referencing old table as old_rows for each statement
    execute function error_log_count_rows()`.execute(db);
}
