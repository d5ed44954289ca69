/**
 * kill -9, for real: the server runs as a child process on a real database (helpers/kill-server.ts)
 * and is killed with SIGKILL — at each seam between a strategy order's writes, and at a random
 * moment in a burst of orders and webhook deliveries — then started again on the same data. After
 * the restart nothing is doubled, nothing is stuck and nothing answered is forgotten:
 * - the run's exposure equals the account's position, with the event that says what happened;
 * - the first delivery after the restart is handled at once (the dead life's lease is released);
 * - every answered order is in the book once, with its order-log row;
 * - the account's books agree with its trade book (`algodesk sandbox verify`).
 */
import { afterEach, expect, it } from 'vitest';
import type { StrategySeam } from '../../src/modules/strategies/strategy-runner.types.js';
import { seededRandom } from '../../src/platform/seeded-random.js';
import { cncSignal, killWorld, type KillWorld, type ServerProcess } from '../helpers/kill-server.js';
import { describeEachDb } from '../helpers/test-app.js';

/**
 * Each test starts two or three real server processes: a few seconds on a quiet machine, many
 * more on a loaded shared one, so the bound is generous (it is a hang detector, not a timing).
 */
const KILL_TEST_MS = 90_000;

let world: KillWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const kinds = async (w: KillWorld) =>
  (
    await w.db.database.db.selectFrom('strategy_events').select(['kind', 'severity']).orderBy('id').execute()
  ).map((e) => `${e.kind}:${e.severity}`);

const signal = (server: ServerProcess, token: string, action: string) =>
  server.post(`/strategy/webhook/${token}`, { action });

/** What each seam's kill leaves, and the event a restart writes about it. */
const SEAMS: { seam: StrategySeam; held: number; state: string; event: string }[] = [
  // The intent was written, the order never sent: nothing is held; the intent is marked failed.
  { seam: 'order.recorded', held: 0, state: 'flat', event: 'order_not_placed:critical' },
  // The sandbox took the order, the run never heard: found by its reference and recorded.
  { seam: 'order.sent', held: 1, state: 'long 1', event: 'order_recovered:warn' },
  // The answer was recorded (with its event); the process died before answering.
  { seam: 'order.settled', held: 1, state: 'long 1', event: 'entry_placed:info' },
  // At the exit's decision, the fill of the entry (which had rested) was recorded, then the
  // process died.
  { seam: 'order.resolved', held: 1, state: 'long 1', event: 'entry_placed:info' },
];

describeEachDb('a kill -9 between a strategy order’s writes is reconciled on restart', (dialect) => {
  it.each(SEAMS)(
    'killed at $seam: exposure equals the account ($state), $event, and the next signals trade once',
    async ({ seam, held, event }) => {
      world = await killWorld(dialect, [cncSignal('infy', 'INFY')]);
      const w = world;
      const token = w.tokens.infy!;
      let first: ServerProcess;
      // Killed before the answer, except at `order.resolved`: it is reached by the exit's decision
      // once the entry's fate must be asked. An entry the sandbox filled as it placed it is
      // recorded filled from its answer, so this one rests: placed in a life whose quotes are a
      // day old, filled by the next life's fresh ones, where the exit's decision records it.
      if (seam === 'order.resolved') {
        const resting = await w.start({ SANDBOX_SCRIPT_FILE: w.staleScript });
        expect(await signal(resting, token, 'long_entry')).toMatchObject({
          status: 200,
          body: { result: 'ok' },
        });
        expect(await w.accountPosition('INFY')).toBe(0);
        await resting.kill();
        first = await w.start({ KILL_AT_SEAM: seam });
        await w.holds('INFY', 1);
        expect(await signal(first, token, 'long_exit')).toBeInstanceOf(Error);
      } else {
        first = await w.start({ KILL_AT_SEAM: seam });
        expect(await signal(first, token, 'long_entry')).toBeInstanceOf(Error);
      }
      expect(await first.exited).toBeNull(); // killed by the signal

      const second = await w.start();
      await w.reconciled();
      expect(await w.accountPosition('INFY')).toBe(held);
      expect(await w.exposure('infy')).toBe(held);
      expect(await kinds(w)).toContain(event);

      // The dead life's lease was released at start-up: handled now, not after it lapses.
      const exit = await signal(second, token, 'long_exit');
      expect(exit).toMatchObject({ status: 200, body: { result: 'ok' } });
      expect(await w.accountPosition('INFY')).toBe(0);
      expect(await w.exposure('infy')).toBe(0);
      // And once more: nothing left to sell, nothing sold twice.
      expect(await signal(second, token, 'long_exit')).toMatchObject({
        status: 200,
        body: { result: 'ok', message: expect.stringMatching(/already flat/) },
      });
      const exits = await w.db.database.db
        .selectFrom('strategy_orders')
        .select('status')
        .where('purpose', '=', 'exit')
        .execute();
      expect(exits).toHaveLength(held);
      expect(await w.accountPosition('INFY')).toBe(0);
      // The account's books agree with its trade book (the operator's check after a crash).
      await w.verifyBooks();
    },
    KILL_TEST_MS,
  );
});

/**
 * The burst's seeds: one in `npm test` (a lone clone still proves a kill in a burst), all three in
 * `.ci/run` (`KILL_TEST_SEEDS=11,23,37`), which runs the longer tiers.
 */
const SEEDS = (process.env.KILL_TEST_SEEDS ?? '11')
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n));

describeEachDb('SIGKILL in the middle of a burst of orders and webhooks', (dialect) => {
  it.each(SEEDS)(
    'seed %i: no answered order loses its log row, no order is doubled',
    async (seed) => {
      const rand = seededRandom(seed);
      world = await killWorld(dialect, [cncSignal('infy', 'INFY'), cncSignal('reliance', 'RELIANCE')]);
      const w = world;
      const server = await w.start();
      const answered: string[] = [];
      const accepted: { token: string }[] = [];
      let running = true;
      // 16 clients placing orders back to back, 4 sending signals to the two strategies.
      const orders = Array.from({ length: 16 }, async () => {
        while (running) {
          const r = await server.post('/api/v1/placeorder', {
            apikey: w.apikey,
            strategy: 'burst',
            symbol: 'SBIN',
            exchange: 'NSE',
            action: 'BUY',
            quantity: 1,
            pricetype: 'MARKET',
            product: 'CNC',
          });
          if (r instanceof Error) return;
          if (r.status === 200) answered.push(String(r.body.orderid));
        }
      });
      const signals = Array.from({ length: 4 }, async (_, i) => {
        const token = i % 2 ? w.tokens.infy! : w.tokens.reliance!;
        while (running) {
          const r = await signal(server, token, rand() < 0.5 ? 'long_entry' : 'long_exit');
          if (r instanceof Error) return;
          if (r.status === 200 && r.body.result === 'ok') accepted.push({ token });
        }
      });
      // Killed at a moment of the seed's choosing once both kinds of traffic are flowing.
      const flowing = Date.now() + 20_000;
      while ((answered.length < 20 || accepted.length < 4) && Date.now() < flowing)
        await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, Math.floor(rand() * 800)));
      await server.kill();
      running = false;
      await Promise.all([...orders, ...signals]);
      expect(answered.length).toBeGreaterThan(0);
      expect(accepted.length).toBeGreaterThan(0);

      const restarted = await w.start();
      await w.reconciled();
      const db = w.db.database.db;
      // Every answered order is in the book once, with its analyzer-log row.
      const book = await db.selectFrom('sandbox_orders').select(['id', 'tag']).execute();
      const ids = new Set(book.map((o) => String(o.id)));
      expect(answered.filter((id) => !ids.has(id))).toEqual([]);
      const logged = await db
        .selectFrom('analyzer_logs')
        .select('order_id')
        .where('event', '=', 'order.placed')
        .execute();
      const counts = new Map<string, number>();
      for (const r of logged) counts.set(String(r.order_id), (counts.get(String(r.order_id)) ?? 0) + 1);
      expect(answered.filter((id) => counts.get(id) !== 1)).toEqual([]);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      // Every accepted delivery kept its audit row.
      const audited = await db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('result', '=', 'ok')
        .execute();
      expect(audited.length).toBeGreaterThanOrEqual(accepted.length);
      // No strategy order doubled: one sandbox order per reference, owned by one settled intent.
      const tagged = book.filter((o) => o.tag !== null);
      expect(new Set(tagged.map((o) => o.tag)).size).toBe(tagged.length);
      const intents = await db.selectFrom('strategy_orders').select(['tag', 'status']).execute();
      const settled = new Set(intents.filter((o) => o.status !== 'failed').map((o) => o.tag));
      expect(tagged.filter((o) => !settled.has(o.tag))).toEqual([]);
      // Each run holds what the account holds.
      for (const [name, symbol] of [
        ['infy', 'INFY'],
        ['reliance', 'RELIANCE'],
      ] as const) {
        expect(await w.exposure(name)).toBe(await w.accountPosition(symbol));
        const exit = await signal(restarted, w.tokens[name]!, 'long_exit');
        expect(exit).toMatchObject({ status: 200, body: { result: 'ok' } });
        expect(await w.accountPosition(symbol)).toBe(0);
        expect(await w.exposure(name)).toBe(0);
      }
      await w.verifyBooks();
    },
    KILL_TEST_MS,
  );
});
