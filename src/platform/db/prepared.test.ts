import SQLite from 'better-sqlite3';
import { CamelCasePlugin, Kysely, SqliteDialect, type Generated, type KyselyPlugin } from 'kysely';
import { describe, expect, it } from 'vitest';
import { withStatementCache } from './database.js';
import { prepareQuery } from './prepared.js';

interface T {
  t: { id: Generated<number>; name: string; status: string; n: number | null };
}

function open(plugins: KyselyPlugin[] = []) {
  const raw = new SQLite(':memory:');
  raw.exec('create table t (id integer primary key, name text not null, status text not null, n integer)');
  const db = new Kysely<T>({ dialect: new SqliteDialect({ database: withStatementCache(raw) }), plugins });
  return { db };
}

const insert = prepareQuery<T, { name: string; n: number | null }, T['t']>((db, $) =>
  db
    .insertInto('t')
    .values({ name: $('name'), status: 'new', n: $('n') })
    .returningAll(),
);
const byName = prepareQuery<T, { name: string }, { id: number; n: number | null }>((db, $) =>
  db.selectFrom('t').select(['id', 'n']).where('name', '=', $('name')).where('status', 'in', ['new', 'old']),
);

describe('prepared statements: built and compiled once per database, run with fresh parameters', () => {
  it('gives the rows execute() gives, with each call its own parameters and the shape constants kept', async () => {
    const { db } = open();
    const a = (await insert.execute(db, { name: 'a', n: 1 })).rows[0];
    const b = (await insert.execute(db, { name: 'b', n: null })).rows[0];
    expect([a, b]).toEqual([
      { id: 1, name: 'a', status: 'new', n: 1 },
      { id: 2, name: 'b', status: 'new', n: null },
    ]);
    expect((await byName.execute(db, { name: 'b' })).rows).toEqual([{ id: 2, n: null }]);
    expect((await byName.execute(db, { name: 'zz' })).rows).toEqual([]);
    expect(await db.selectFrom('t').select(['id', 'n']).where('name', '=', 'a').execute()).toEqual(
      (await byName.execute(db, { name: 'a' })).rows,
    );
  });

  it('compiles a shape once per database, and again for another database', async () => {
    let builds = 0;
    const q = prepareQuery<T, { name: string }, never>((db, $) => {
      builds++;
      return db.insertInto('t').values({ name: $('name'), status: 's' });
    });
    const one = open().db;
    for (let i = 0; i < 5; i++) await q.execute(one, { name: `x${i}` });
    expect(builds).toBe(1);
    await q.execute(open().db, { name: 'y' });
    expect(builds).toBe(2);
    expect(await one.selectFrom('t').select('name').execute()).toHaveLength(5);
  });

  it('runs inside a transaction on its connection (a rollback undoes it)', async () => {
    const { db } = open();
    await db
      .transaction()
      .execute(async (trx) => {
        await insert.execute(trx, { name: 'gone', n: 0 });
        expect((await byName.execute(trx, { name: 'gone' })).rows).toHaveLength(1);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect((await byName.execute(db, { name: 'gone' })).rows).toEqual([]);
    const r = await db.transaction().execute((trx) => insert.execute(trx, { name: 'kept', n: 2 }));
    expect(r.rows[0]?.name).toBe('kept');
  });

  it('refuses a placeholder that did not end up as a parameter of the statement', async () => {
    const bad = prepareQuery<T, { name: string }, { id: number }>((db, $) => {
      void $('name');
      return db.selectFrom('t').select('id');
    });
    await expect(bad.execute(open().db, { name: 'x' })).rejects.toThrow(/parameter name/);
  });

  it('with a result-transforming plugin it builds the query on every call, so the plugin still applies', async () => {
    const { db } = open([new CamelCasePlugin()]);
    const q = prepareQuery<T, { name: string }, { id: number }>((d, $) =>
      d.selectFrom('t').select('id').where('name', '=', $('name')),
    );
    await db.insertInto('t').values({ name: 'p', status: 's', n: null }).execute();
    expect((await q.execute(db, { name: 'p' })).rows).toEqual([{ id: 1 }]);
  });
});
