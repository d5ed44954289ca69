import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  GROUP_COMMIT_MAX,
  GroupCommit,
  KeyedGroupCommit,
  PLACEMENT_WEIGHT,
  transactionRunner,
  type GroupCommitOptions,
  type TransactionRunner,
} from './group-commit.js';
import { insert, open, type T } from '../../../test/helpers/group-commit-db.js';

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

    it('a group closes when its members’ weights reach `max`: 64 lone writes, or 16 placements', async () => {
      const { db, seen, committed } = open();
      const g = new GroupCommit(db, 8, opts);
      // 1 + 1 + 1 + 4 + 1 = 8 closes the first group; the last 4 opens the second.
      await Promise.all([1, 1, 1, 4, 1, 4].map((w, i) => g.run((trx) => insert(trx, i), undefined, w)));
      expect(seen.commits).toBe(2);
      expect(committed()).toEqual([0, 1, 2, 3, 4, 5]);

      const { db: db2, seen: seen2 } = open();
      const h = new GroupCommit(db2, GROUP_COMMIT_MAX, opts);
      await Promise.all(Array.from({ length: 64 }, (_, i) => h.run((trx) => insert(trx, i))));
      expect(seen2.commits).toBe(1);
      await Promise.all(
        Array.from({ length: 32 }, (_, i) =>
          h.run((trx) => insert(trx, 100 + i), undefined, PLACEMENT_WEIGHT),
        ),
      );
      expect(seen2.commits).toBe(3);
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

  it('a key’s group (PostgreSQL’s runner) counts its members, not their weights: 32 placements of one user share a COMMIT', async () => {
    const { db, seen, committed } = open();
    const g: TransactionRunner<T> = new KeyedGroupCommit(db);
    await Promise.all(
      Array.from({ length: 32 }, (_, i) => g.run((trx) => insert(trx, i), 7, PLACEMENT_WEIGHT)),
    );
    expect(seen.commits).toBe(1);
    expect(committed()).toHaveLength(32);
  });
});
