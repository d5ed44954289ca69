/**
 * The hot statements (those `prepareQuery` compiles once per database) run on PostgreSQL as named
 * prepared statements, parsed and planned once per connection (platform/db/database.ts); any other
 * query stays unnamed. On SQLite the same statements give the same rows.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import type { DB } from '../../src/db/schema.js';
import { prepareQuery } from '../../src/platform/db/prepared.js';
import { createTestDatabase, describeEachDb, type TestDatabase } from '../helpers/test-app.js';

const settingsRow = prepareQuery<DB, { id: number }, { id: number }>((db, $) =>
  db.selectFrom('settings').select('id').where('id', '=', $('id')),
);

describeEachDb('hot statements on the database server', (dialect) => {
  let t: TestDatabase | undefined;
  afterEach(async () => {
    await t?.drop();
    t = undefined;
  });

  it('a prepared statement is prepared once on its connection, under a name; an ad-hoc query is not', async () => {
    t = await createTestDatabase(dialect, mkdtempSync(join(tmpdir(), 'algodesk-named-')));
    const { db } = t.database;
    const id = (await db.selectFrom('settings').select('id').limit(1).executeTakeFirstOrThrow()).id;
    // One transaction: one connection, whose prepared statements PostgreSQL lists.
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < 3; i++) expect((await settingsRow.execute(trx, { id })).rows).toEqual([{ id }]);
      await trx.selectFrom('settings').select('analyze_mode').where('id', '=', id).execute();
      if (dialect === 'sqlite') return;
      const prepared = await sql<{ name: string; statement: string }>`
        select name, statement from pg_prepared_statements where statement like '%"settings"%'`.execute(trx);
      expect(prepared.rows).toEqual([
        {
          name: expect.stringMatching(/^algodesk_\d+$/) as unknown,
          statement: 'select "id" from "settings" where "id" = $1',
        },
      ]);
    });
  });
});
