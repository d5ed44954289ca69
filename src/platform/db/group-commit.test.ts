import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type Generated } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { withStatementCache } from './database.js';
import { GROUP_COMMIT_MAX, GroupCommit, transactionRunner, type GroupCommitOptions } from './group-commit.js';

interface T {
  parent: { id: number };
  t: { id: Generated<number>; v: number; parent_id: number | null };
}

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A WAL database file, its Kysely, a count of COMMITs run, and a second connection to read it. */
function open() {
  const dir = mkdtempSync(join(tmpdir(), 'algodesk-group-'));
  dirs.push(dir);
  const file = join(dir, 't.db');
  const raw = new SQLite(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('foreign_keys = ON');
  raw.exec(`create table parent (id integer primary key);
    create table t (id integer primary key, v integer not null,
      parent_id integer references parent (id) deferrable initially deferred)`);
  const inner = withStatementCache(raw);
  const seen = { commits: 0, savepoints: 0, rollbacks: 0 };
  const inserts: string[] = [];
  const counting = {
    prepare(sql: string) {
      if (sql.startsWith('insert')) inserts.push(sql);
      if (sql === 'commit') seen.commits++;
      if (sql.startsWith('savepoint')) seen.savepoints++;
      if (sql === 'rollback') seen.rollbacks++;
      return inner.prepare(sql);
    },
    close: () => inner.close(),
  };
  const db = new Kysely<T>({ dialect: new SqliteDialect({ database: counting as never }) });
  const reader = new SQLite(file, { readonly: true });
  const committed = () =>
    (reader.prepare('select v from t order by id').all() as { v: number }[]).map((r) => r.v);
  const rows = (): [id: number, v: number][] =>
    (reader.prepare('select id, v from t order by id').all() as { id: number; v: number }[]).map((r) => [
      r.id,
      r.v,
    ]);
  return { db, seen, committed, rows, inserts };
}

const insert = (db: Kysely<T>, v: number, parent_id: number | null = null) =>
  db.insertInto('t').values({ v, parent_id }).execute();

describe.each([
  ['each member in a savepoint', {}],
  ['members without savepoints, run again after a failure', { rerun: true }],
] as [string, GroupCommitOptions][])(
  'group commit (%s): transactions of one event-loop turn share a COMMIT, each atomic on its own',
  (_, opts) => {
    it('concurrent transactions commit once together and each gets its own result', async () => {
      const { db, seen, committed } = open();
      const g = new GroupCommit(db, GROUP_COMMIT_MAX, opts);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          g.run(async (trx) => {
            await insert(trx, i);
            return i * 10;
          }),
        ),
      );
      expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i * 10));
      expect(seen.commits).toBe(1);
      expect(committed()).toEqual(Array.from({ length: 20 }, (_, i) => i));
    });

    it('a transaction settles only once its writes are committed (another connection sees them)', async () => {
      const { db, committed } = open();
      const g = new GroupCommit(db, GROUP_COMMIT_MAX, opts);
      const seenAtSettle: number[][] = [];
      await Promise.all(
        [1, 2, 3].map((v) => g.run((trx) => insert(trx, v)).then(() => void seenAtSettle.push(committed()))),
      );
      expect(seenAtSettle).toEqual([
        [1, 2, 3],
        [1, 2, 3],
        [1, 2, 3],
      ]);
    });

    it('a failing transaction is undone alone: its caller gets its error, the others commit', async () => {
      const { db, committed } = open();
      const g = new GroupCommit(db, GROUP_COMMIT_MAX, opts);
      const outcomes = await Promise.allSettled([
        g.run((trx) => insert(trx, 1)),
        g.run(async (trx) => {
          await insert(trx, 2);
          await insert(trx, 3);
          throw new Error('input error');
        }),
        g.run((trx) => insert(trx, 4)),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((outcomes[1] as PromiseRejectedResult).reason).toEqual(new Error('input error'));
      expect(committed()).toEqual([1, 4]);
    });

    it('failures one after another and between successes each undo their own writes only', async () => {
      const { db, committed } = open();
      const g = new GroupCommit(db, GROUP_COMMIT_MAX, opts);
      const failing = (v: number) => async (trx: Kysely<T>) => {
        await insert(trx, v);
        throw new Error(`no ${v}`);
      };
      const outcomes = await Promise.allSettled([
        g.run(failing(1)),
        g.run(failing(2)),
        g.run((trx) => insert(trx, 3)),
        g.run((trx) => insert(trx, 4)),
        g.run(failing(5)),
        g.run((trx) => insert(trx, 6)),
        g.run(failing(7)),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual([
        'rejected',
        'rejected',
        'fulfilled',
        'fulfilled',
        'rejected',
        'fulfilled',
        'rejected',
      ]);
      expect(committed()).toEqual([3, 4, 6]);
    });

    it('a failed COMMIT fails every member of the group and keeps none of their writes', async () => {
      const { db, committed } = open();
      const g = new GroupCommit(db, GROUP_COMMIT_MAX, opts);
      const outcomes = await Promise.allSettled([
        g.run((trx) => insert(trx, 1)),
        // A deferred foreign key is checked at COMMIT: this member makes the whole COMMIT fail.
        g.run((trx) => insert(trx, 2, 999)),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
      expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
      expect(committed()).toEqual([]);
      // The runner is usable afterwards.
      await g.run((trx) => insert(trx, 5));
      expect(committed()).toEqual([5]);
    });

    it('one after another (each awaited), every transaction commits on its own', async () => {
      const { db, seen, committed } = open();
      const g = new GroupCommit(db, GROUP_COMMIT_MAX, opts);
      for (let i = 0; i < 5; i++) await g.run((trx) => insert(trx, i));
      expect(seen.commits).toBe(5);
      expect(committed()).toEqual([0, 1, 2, 3, 4]);
    });

    it('a group takes at most `max` members; the rest go to the next group', async () => {
      const { db, seen, committed } = open();
      const g = new GroupCommit(db, 3, opts);
      await Promise.all(Array.from({ length: 7 }, (_, i) => g.run((trx) => insert(trx, i))));
      expect(seen.commits).toBe(3);
      expect(committed()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    });

    it('rows queued for the COMMIT are one INSERT for the group, each id the row it queued; a failed member’s are not written', async () => {
      const { db, rows, inserts } = open();
      const g = new GroupCommit(db, GROUP_COMMIT_MAX, opts);
      const member = (v: number, fail = false) =>
        g.run(async (trx, m) => {
          await insert(trx, v);
          const id = m.insertAtCommit('t', { v: v + 100, parent_id: null });
          if (fail) throw new Error(`no ${v}`);
          return { id };
        }, 'u');
      const outcomes = await Promise.allSettled([member(1), member(2, true), member(3), member(4)]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      const ids = await Promise.all(
        outcomes.flatMap((o) => (o.status === 'fulfilled' ? [(o.value as { id: Promise<number> }).id] : [])),
      );
      const stored = new Map<number, number>(rows().map(([id, v]) => [v, id]));
      expect(ids).toEqual([stored.get(101), stored.get(103), stored.get(104)]);
      expect([...stored.keys()].sort((a, b) => a - b)).toEqual([1, 3, 4, 101, 103, 104]);
      // Besides the members' own single-row inserts, one INSERT of the three rows kept.
      const multiRow = inserts.filter((q) => q.includes('), ('));
      expect(multiRow.map((q) => q.split('), (').length)).toEqual([3]);
    });

    it('a queued row the database refuses at the COMMIT fails every member and keeps nothing', async () => {
      const { db, committed } = open();
      const g = new GroupCommit(db, GROUP_COMMIT_MAX, opts);
      const outcomes = await Promise.allSettled([
        g.run(async (trx, m) => {
          await insert(trx, 1);
          void m.insertAtCommit('t', { v: 2, parent_id: null });
        }, 'u'),
        g.run(async (trx, m) => {
          await insert(trx, 3);
          // No such column: the INSERT before the COMMIT fails.
          void m.insertAtCommit('t', { v: 4, nope: 1 });
        }, 'u'),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
      expect(String((outcomes[0] as PromiseRejectedResult).reason)).toMatch(/nope/);
      expect(committed()).toEqual([]);
    });

    it('queries outside the group wait for its COMMIT and then run', async () => {
      const { db, committed } = open();
      const g = new GroupCommit(db, GROUP_COMMIT_MAX, opts);
      const grouped = g.run((trx) => insert(trx, 1));
      const outside = insert(db, 2);
      await Promise.all([grouped, outside]);
      expect(committed()).toEqual([1, 2]);
    });
  },
);

describe('group commit: what a member knows, and running members again', () => {
  it('each member learns how many earlier members of its key were kept (what they locked is still held)', async () => {
    const { db } = open();
    const g = new GroupCommit(db);
    const seenBy: string[] = [];
    const member = (name: string, key: number | undefined, fail = false) =>
      g
        .run(async (trx, m) => {
          seenBy.push(`${name}:${m.earlierWithKey}`);
          await insert(trx, 1);
          if (fail) throw new Error(`${name} failed`);
        }, key)
        .catch(() => undefined);
    await Promise.all([
      member('a1', 1, true), // undone: it counts for nobody
      member('a2', 1),
      member('b1', 2),
      member('a3', 1),
      member('none', undefined),
      member('b2', 2),
    ]);
    expect(seenBy).toEqual(['a1:0', 'a2:0', 'b1:0', 'a3:1', 'none:0', 'b2:1']);
  });

  it('a member gets what the last kept member of its key handed on: not a failed one’s, not another key’s, nothing after one that handed nothing', async () => {
    const { db } = open();
    const g = new GroupCommit(db);
    const seenBy: string[] = [];
    const member = (name: string, key: number | undefined, hand?: string, fail = false) =>
      g
        .run(async (trx, m) => {
          seenBy.push(`${name}:${String(m.handedOn)}`);
          if (hand !== undefined) m.handOn(hand);
          await insert(trx, 1);
          if (fail) throw new Error(`${name} failed`);
        }, key)
        .catch(() => undefined);
    await Promise.all([
      member('a1', 1, 'from a1'),
      member('a2', 1, 'from a2', true), // undone: what it handed on goes with it
      member('b1', 2, 'from b1'),
      member('a3', 1), // hands nothing: a4 gets nothing
      member('none', undefined, 'from none'),
      member('a4', 1, 'from a4'),
      member('a5', 1),
      member('b2', 2),
    ]);
    expect(seenBy).toEqual([
      'a1:undefined',
      'a2:from a1',
      'b1:undefined',
      'a3:from a1',
      'none:undefined',
      'a4:undefined',
      'a5:from a4',
      'b2:from b1',
    ]);
    // The next group starts with nothing handed on.
    const next: unknown[] = [];
    await g.run(async (_trx, m) => void next.push(m.handedOn), 1);
    expect(next).toEqual([undefined]);
  });

  it('run again: what members handed on before the failure is dropped; each hands on again as it reruns', async () => {
    const { db } = open();
    const g = new GroupCommit(db, GROUP_COMMIT_MAX, { rerun: true });
    const seenBy: string[] = [];
    const member = (name: string, fail = false) =>
      g
        .run(async (trx, m) => {
          seenBy.push(`${name}:${String(m.handedOn)}`);
          m.handOn(name);
          await insert(trx, 1);
          if (fail) throw new Error(`${name} failed`);
        }, 'u')
        .catch(() => undefined);
    await Promise.all([member('x'), member('y'), member('bad', true), member('z')]);
    expect(seenBy).toEqual([
      'x:undefined',
      'y:x',
      'bad:y',
      // The group is undone and x and y run again, each in a savepoint, from nothing handed on.
      'x:undefined',
      'y:x',
      'z:y',
    ]);
  });

  it('run again: without a failure no savepoint is sent, and the group commits once', async () => {
    const { db, seen, committed } = open();
    const g = new GroupCommit(db, GROUP_COMMIT_MAX, { rerun: true });
    await Promise.all(Array.from({ length: 10 }, (_, i) => g.run((trx) => insert(trx, i), 'u')));
    expect(seen).toEqual({ commits: 1, savepoints: 0, rollbacks: 0 });
    expect(committed()).toEqual(Array.from({ length: 10 }, (_, i) => i));
  });

  it('run again: a failure is its answer; the group is undone and the members before it run again, each in a savepoint', async () => {
    const { db, seen, committed } = open();
    const g = new GroupCommit(db, GROUP_COMMIT_MAX, { rerun: true });
    const runs = new Map<number, number>();
    const seenBy: string[] = [];
    const member = (v: number, fail = false) =>
      g.run(async (trx, m) => {
        const n = (runs.get(v) ?? 0) + 1;
        runs.set(v, n);
        seenBy.push(`${v}:${m.earlierWithKey}`);
        await insert(trx, v);
        if (fail) throw new Error(`no ${v}`);
        return `${v} run ${n}`;
      }, 'u');
    const outcomes = await Promise.allSettled([
      member(1),
      member(2),
      member(3, true),
      member(4),
      member(5, true),
      member(6),
    ]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : String(o.reason)))).toEqual([
      '1 run 2',
      '2 run 2',
      'Error: no 3',
      '4 run 1',
      'Error: no 5',
      '6 run 1',
    ]);
    // 1, 2 and 3 ran without savepoints, then 3 failed: rolled back, 1 and 2 run again, and from
    // then on each member has its savepoint (the second failure is undone alone).
    expect([...runs]).toEqual([
      [1, 2],
      [2, 2],
      [3, 1],
      [4, 1],
      [5, 1],
      [6, 1],
    ]);
    expect(seenBy).toEqual(['1:0', '2:1', '3:2', '1:0', '2:1', '4:2', '5:3', '6:3']);
    expect(seen).toEqual({ commits: 1, savepoints: 5, rollbacks: 1 });
    expect(committed()).toEqual([1, 2, 4, 6]);
  });

  it('run again: members that arrive while the group runs again join it, and the runner stays usable', async () => {
    const { db, committed } = open();
    const g = new GroupCommit(db, GROUP_COMMIT_MAX, { rerun: true });
    const first = Promise.allSettled([
      g.run(async (trx) => {
        await insert(trx, 1);
        throw new Error('no 1');
      }),
      g.run((trx) => insert(trx, 2)),
    ]);
    await new Promise((r) => setImmediate(r));
    const late = g.run((trx) => insert(trx, 3));
    expect((await first).map((o) => o.status)).toEqual(['rejected', 'fulfilled']);
    await late;
    await g.run((trx) => insert(trx, 4));
    expect(committed()).toEqual([2, 3, 4]);
  });
});

describe('group commit: one runner per database, lone writes in its groups', () => {
  it('every module asking for the runner of a database gets the same one, so their transactions share a COMMIT', async () => {
    const { db, seen, committed } = open();
    const sandbox = transactionRunner(db);
    const strategies = transactionRunner(db);
    expect(strategies).toBe(sandbox);
    await Promise.all([sandbox.run((trx) => insert(trx, 1)), strategies.run((trx) => insert(trx, 2))]);
    expect(seen.commits).toBe(1);
    expect(committed()).toEqual([1, 2]);
  });

  it('a lone write joins the open group (one COMMIT), settles after it, and fails alone', async () => {
    const { db, seen, committed } = open();
    const g = transactionRunner(db);
    const outcomes = await Promise.allSettled([
      g.run((trx) => insert(trx, 1)),
      g.statement((q) => insert(q, 2)),
      g.statement((q) =>
        q
          .insertInto('t')
          .values({ v: null as never, parent_id: null })
          .execute(),
      ),
      g.statement(async (q) => {
        const r = await q.updateTable('t').set({ v: 3 }).where('v', '=', 2).executeTakeFirst();
        return Number(r.numUpdatedRows);
      }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[3] as PromiseFulfilledResult<number>).value).toBe(1);
    expect(seen.commits).toBe(1);
    expect(committed()).toEqual([1, 3]);
  });
});
