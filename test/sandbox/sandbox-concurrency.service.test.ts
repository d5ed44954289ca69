/**
 * Concurrent placements on one account keep its books in step (docs/rules/sandbox.md#fills,
 * docs/rules/sandbox.md#ledger-check): many MARKET orders of one user, both sides, several
 * quantities, on one instrument, through the real order pipeline, arriving staggered on two
 * instances of the service that share the database (each groups its own placements of the user),
 * so that transactions wait on the account's lock for one another all the time. Afterwards the derived state must be
 * what the trade book says: the position is the trades netted, the realised P&L is the trades
 * replayed, and the funds balance. It is a race, so each case runs several rounds.
 *
 * The books are recomputed here with plain arithmetic of their own (not the service's code), and
 * then checked once more with the ledger check the service ships (`sandbox verify`).
 */
import { describe, expect, it } from 'vitest';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import type { Quote } from '../../src/modules/sandbox/core/types.js';
import { seededRandom } from '../../src/platform/seeded-random.js';
import { MINI } from '../helpers/sandbox.js';
import { describeEachDb } from '../helpers/test-app.js';
import { createTestServices } from '../helpers/test-services.js';
import { key, pipelineOrder, START, startTrading, type Trading } from '../helpers/trading-services.js';

type Row = Record<string, unknown>;
const n = (v: unknown) => Number(v);
/** Money is ten-thousandths of a rupee. */
const MONEY = 10_000;

/** The account's books recomputed from the rows, in Money (integers), with what they should be. */
async function books(t: Trading) {
  const trades = await t.rows('sandbox_trades');
  const positions = await t.rows('sandbox_positions');
  const orders = await t.rows('sandbox_orders');
  const account = (await t.s.db.database.db
    .selectFrom('sandbox_accounts')
    .selectAll()
    .where('user_id', '=', t.userId)
    .executeTakeFirstOrThrow()) as Row;
  const netted = new Map<string, number>();
  let cash = 0; // Σ sell values − Σ buy values
  let charges = 0; // Σ the trades' charges
  const chargeless: number[] = []; // trades without charges, or whose parts do not add up
  for (const tr of trades) {
    const k = `${String(tr.exchange)}:${String(tr.symbol)}:${String(tr.product)}`;
    const signed = tr.side === 'BUY' ? n(tr.quantity) : -n(tr.quantity);
    netted.set(k, (netted.get(k) ?? 0) + signed);
    cash += (tr.side === 'SELL' ? 1 : -1) * n(tr.price) * n(tr.quantity);
    charges += n(tr.charges);
    const parts = ['brokerage', 'stt', 'exchange_charges', 'sebi_fee', 'stamp_duty', 'gst'];
    if (parts.reduce((s, c) => s + n(tr[c]), 0) !== n(tr.charges) || !(n(tr.charges) > 0))
      chargeless.push(n(tr.id));
  }
  const held = new Map<string, number>();
  let openValue = 0; // long entry values count against the cash, short ones for it
  let positionMargin = 0;
  for (const p of positions) {
    held.set(`${String(p.exchange)}:${String(p.symbol)}:${String(p.product)}`, n(p.quantity));
    openValue += (n(p.quantity) > 0 ? 1 : -1) * n(p.cost);
    positionMargin += n(p.margin);
  }
  const blocked = orders
    .filter((o) => o.status === 'open' || o.status === 'trigger pending')
    .reduce((s, o) => s + n(o.blocked_margin), 0);
  return {
    netted,
    held,
    /** Realised P&L: every rupee the trades moved, less what is still open at its entry value. */
    replayedRealised: cash + openValue,
    realised: n(account.realised_pnl),
    charges,
    chargeless,
    accountCharges: n(account.charges),
    available: n(account.available),
    usedMargin: n(account.used_margin),
    positionMargin,
    blocked,
    complete: orders.filter((o) => o.status === 'complete').length,
    trades: trades.length,
  };
}

describeEachDb('sandbox: concurrent orders on one account', (dialect) => {
  describe('the position is the trades netted, the realised P&L the trades replayed, the funds balance', () => {
    it('after staggered bursts of MARKET orders on one instrument, both sides, several quantities, on two instances', async () => {
      const env = { SANDBOX_CHARGES: 'book' };
      const t = await startTrading(dialect, { env });
      // A second instance of the services on the same database and clock, priced by its own feed.
      const other = await createTestServices(dialect, { db: t.s.db, clock: t.s.clock, env });
      const otherFeed = new ScriptedFeed();
      await other.services.sandbox.usePriceSource(otherFeed);
      try {
        await t.marketOpen();
        const random = seededRandom(41);
        const ROUNDS = 6;
        const PER_ROUND = 24;
        const REFUSED_PER_ROUND = 4;
        for (let round = 0; round < ROUNDS; round++) {
          // A new price each round, so the realised P&L depends on which position each order met.
          const quote: Quote = t.quote(800 + round * 3.5, { high: 900, low: 700 });
          otherFeed.push({ [key(MINI.SBIN)]: quote });
          await t.tick({ [key(MINI.SBIN)]: quote });
          const answers = await Promise.all(
            Array.from({ length: PER_ROUND + REFUSED_PER_ROUND }, (_, i) => {
              // The last few of each round are refused inside their transaction (a price off the
              // tick grid), among the others: on PostgreSQL a group of placements runs without
              // savepoints and is run again when one fails (platform/db/group-commit.ts).
              const refused = i >= PER_ROUND;
              const order = pipelineOrder({
                action: random() < 0.5 ? 'BUY' : 'SELL',
                quantity: 1 + Math.floor(random() * 9),
                strategy: `burst-${round}-${i}`,
                ...(refused ? { pricetype: 'LIMIT', price: '800.03' } : {}),
              });
              const pipeline = (i % 2 === 0 ? t.s : other).services.orders.pipeline;
              // Arrivals spread over a few tens of milliseconds, on both instances.
              const delay = Math.floor(random() * 40);
              return new Promise((r) => setTimeout(r, delay)).then(() =>
                pipeline.run(t.userId, order, { apiType: 'placeorder' }),
              );
            }),
          );
          const statuses = answers.map((a) => `${a.status} ${String(a.body.status)}`);
          expect(statuses).toEqual([
            ...Array<string>(PER_ROUND).fill('200 success'),
            ...Array<string>(REFUSED_PER_ROUND).fill('400 error'),
          ]);
        }
        const b = await books(t);
        expect(b.complete).toBe(ROUNDS * PER_ROUND);
        // A refused order writes nothing (docs/rules/sandbox.md: input errors are 400s).
        expect((await t.rows('sandbox_orders')).length).toBe(ROUNDS * PER_ROUND);
        expect(b.trades).toBe(ROUNDS * PER_ROUND);
        // The position book is the trade book netted.
        expect(Object.fromEntries(b.held)).toEqual(Object.fromEntries(b.netted));
        // The account's realised P&L is the trade book replayed (to the ten-thousandth of a rupee).
        expect(b.realised).toBe(b.replayedRealised);
        // Every fill booked its charges, and the account all of them (docs/rules/sandbox.md#charges-booked).
        expect(b.chargeless).toEqual([]);
        expect(b.accountCharges).toBe(b.charges);
        // Funds balance: nothing appears or vanishes but the charges.
        expect(b.available + b.usedMargin).toBe(START * MONEY + b.realised - b.charges);
        expect(b.usedMargin).toBe(b.positionMargin + b.blocked);
        // The ledger check the service ships agrees.
        expect(await t.s.services.sandbox.verify.account(t.userId)).toEqual([]);
      } finally {
        await other.close();
        await t.close();
      }
    });
  });
});
