/**
 * A burst of one user's orders is one group on that user's locked account
 * (platform/db/group-commit.ts), and on PostgreSQL a placement that filled at once hands the
 * account and the stake it left to the next placement of the group, which then reads neither
 * (src/modules/sandbox/store/handed-stakes.ts; docs/rules/sandbox.md#lock-then-read). What is
 * handed on must be exactly what a read would have found: the same orders placed one at a time,
 * each reading everything after the previous one's COMMIT, must leave the same books.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { Product } from '../../src/domain/orders.js';
import { MINI } from '../helpers/sandbox.js';
import { describeEachDb } from '../helpers/test-app.js';
import { createTestDatabase } from '../helpers/test-database.js';
import { startTrading, type Trading } from '../helpers/trading-services.js';

type Row = Record<string, unknown>;

/** The user's account and positions without what differs between two equal histories (ids, times). */
async function books(t: Trading) {
  const strip = ({ id: _id, updated_at: _u, ...rest }: Row) => rest;
  const account = await t.s.db.database.db
    .selectFrom('sandbox_accounts')
    .selectAll()
    .where('user_id', '=', t.userId)
    .executeTakeFirstOrThrow();
  const positions = await t.s.db.database.db
    .selectFrom('sandbox_positions')
    .selectAll()
    .where('user_id', '=', t.userId)
    .orderBy('symbol')
    .orderBy('product')
    .execute();
  return { account: strip(account), positions: positions.map(strip) };
}

describeEachDb('sandbox: a burst of one user’s orders, handed on within its group', (dialect) => {
  it('leaves the books that the same orders placed one at a time leave, and on PostgreSQL reads the stake once per group', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'algodesk-handoff-'));
    let counting = false;
    const seen = { stakeReads: 0, commits: 0 };
    const db = await createTestDatabase(dialect, dir, {
      onQuery: (q) => {
        if (!counting) return;
        if (q.sql.includes('stake_position')) seen.stakeReads++;
        if (q.sql === 'commit') seen.commits++;
      },
    });
    const burst = await startTrading(dialect, { db });
    const oneByOne = await startTrading(dialect);
    try {
      await burst.marketOpen();
      await oneByOne.marketOpen();
      // The account exists before the burst (its first order creates it: that one reads no stake).
      const first = {
        symbol: MINI.SBIN.symbol,
        exchange: MINI.SBIN.exchange,
        side: 'BUY' as const,
        quantity: 3,
      };
      expect((await burst.place(first)).ok).toBe(true);
      expect((await oneByOne.place(first)).ok).toBe(true);
      // Both sides, several quantities, two instruments and both products of one: positions grow,
      // shrink and reverse within the group, and members of one instrument follow the other's.
      const orders = Array.from({ length: 24 }, (_, i) => ({
        symbol: i % 5 === 4 ? MINI.NIFTY_CE.symbol : MINI.SBIN.symbol,
        exchange: i % 5 === 4 ? MINI.NIFTY_CE.exchange : MINI.SBIN.exchange,
        side: i % 3 === 1 ? ('SELL' as const) : ('BUY' as const),
        quantity: i % 5 === 4 ? 65 : 1 + ((i * 7) % 11),
        product: (i % 7 === 3 ? 'NRML' : 'MIS') as Product,
      }));
      counting = true;
      const answers = await Promise.all(orders.map((o) => burst.place(o)));
      counting = false;
      expect(answers.map((a) => a.ok)).toEqual(orders.map(() => true));
      // The group ran them in the order of their ids: the same order, one at a time.
      const placed = (await burst.rows('sandbox_orders')).slice(1);
      for (const row of placed) {
        const o = orders[answers.findIndex((a) => a.order.orderId === String(row.id))]!;
        expect((await oneByOne.place(o)).ok).toBe(true);
      }
      expect(await books(burst)).toEqual(await books(oneByOne));
      if (dialect === 'postgres') {
        // One user's burst in a few groups (what arrives while one runs joins it): in each, a
        // stake is read by the first order of its instrument and product (three stakes here:
        // SBIN MIS and NRML, the option MIS), not by every order.
        expect(seen.commits).toBeGreaterThan(0);
        expect(seen.commits).toBeLessThan(orders.length / 4);
        expect(seen.stakeReads).toBeLessThanOrEqual(3 * seen.commits);
      }
    } finally {
      await oneByOne.close();
      await burst.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
