/**
 * What a member of a group knows (the earlier kept members of its key, what they handed on) and
 * running a group's members again after a failure (platform/db/group-commit.ts).
 */
import { describe, expect, it } from 'vitest';
import { GROUP_COMMIT_MAX, GroupCommit } from './group-commit.js';
import { insert, open } from '../../../test/helpers/group-commit-db.js';

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
