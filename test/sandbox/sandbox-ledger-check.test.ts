/**
 * docs/rules/sandbox.md#ledger-check on the real app and database: every path that moves money
 * (fills, reversals, working orders, cancels, expiry, square-off, T+1 settlement, sales of held
 * shares, reset) leaves books the check finds in agreement; a drift written into the tables is
 * found and named, by the service's own pass (a `ledger_drift` critical log line that reaches the
 * error log, and the metrics), by the diagnostics probe and by `algodesk sandbox verify`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runCliHere } from '../helpers/cli-process.js';
import { adminPost, errorEntries } from '../helpers/observability.js';
import { MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { describeEachDb } from '../helpers/test-app.js';
import { databaseUrlOf } from '../helpers/test-database.js';

const MON = '2026-01-05';
const TUE = '2026-01-06';
const WED = '2026-01-07';
const k = (i: { exchange: string; symbol: string }) => `${i.exchange}:${i.symbol}`;

describeEachDb('the sandbox ledger check', (dialect) => {
  let h: SandboxHarness | undefined;
  afterEach(async () => {
    await h?.close(); // ends with the check too (helpers/ledger.ts)
    h = undefined;
  });
  const verify = () => h!.t.services.sandbox.verify.run();
  const prices = (s: SandboxHarness, sbin = 800, infy = 1_500) => ({
    [k(MINI.SBIN)]: s.quote(sbin),
    [k(MINI.INFY)]: s.quote(infy),
    [k(MINI.NIFTY_FUT)]: s.quote(26_000),
  });

  describe('books kept by the service always agree with their trade book', () => {
    it('through fills, a reversal, cancels, expiry, square-off, T+1 settlement, a sale of held shares and a reset', async () => {
      const s = (h = await startSandbox(dialect, {
        env: { METRICS_TOKEN: 'metrics-token-0123456789abcdef' },
      }));
      const clean = async () => expect((await verify()).differences).toEqual([]);
      await s.at(MON, '10:00');
      await s.tick(prices(s));
      await s.place({ ...MINI.INFY, side: 'BUY', quantity: 10, product: 'CNC' });
      await s.place({ ...MINI.INFY, side: 'BUY', quantity: 5, product: 'CNC' });
      await s.place({ ...MINI.SBIN, side: 'BUY', quantity: 40 });
      await s.place({ ...MINI.SBIN, side: 'SELL', quantity: 65 }); // reversal: short 25
      await s.place({ ...MINI.NIFTY_FUT, side: 'SELL', quantity: 65, product: 'NRML' });
      const limit = await s.place({ ...MINI.SBIN, side: 'BUY', quantity: 5, priceType: 'LIMIT', price: 700 });
      await s.place({
        ...MINI.INFY,
        side: 'BUY',
        quantity: 3,
        priceType: 'LIMIT',
        price: 1_400,
        product: 'CNC',
      });
      await clean();
      await s.t.services.sandbox.service.cancelOrder(1, Number(limit.order.orderId));
      await s.tick(prices(s, 790, 1_510));
      await clean();
      await s.at(MON, '15:15'); // MIS square-off at market
      await s.tick(prices(s, 795, 1_520));
      await s.t.services.sandbox.engine.tick();
      await clean();
      await s.at(TUE, '09:30'); // rollover: the CNC LIMIT expires, INFY settles into holdings
      await s.tick(prices(s, 800, 1_550));
      await s.t.services.sandbox.engine.tick();
      expect((await s.ok<{ data: { holdings: unknown[] } }>('holdings')).data.holdings).toHaveLength(1);
      await clean();
      await s.place({ ...MINI.INFY, side: 'SELL', quantity: 6, product: 'CNC' }); // from holdings
      await s.place({ ...MINI.INFY, side: 'BUY', quantity: 2, product: 'CNC' });
      await clean();
      await s.at(WED, '09:30'); // the sale settles against the holding's cost
      await s.tick(prices(s, 805, 1_540));
      await s.t.services.sandbox.engine.tick();
      await clean();
      const { accounts } = await verify();
      expect(accounts).toBe(1);
      await s.t.services.sandbox.service.reset(1, s.t.clock.now());
      await clean();
    });
  });

  describe('a drift is found, named and reported', () => {
    it('by the service’s own pass (critical log line, error log, metrics), the diagnostics probe and the command line', async () => {
      const s = (h = await startSandbox(dialect, {
        env: { METRICS_TOKEN: 'metrics-token-0123456789abcdef' },
      }));
      await s.at(MON, '10:00');
      await s.tick(prices(s));
      await s.place({ ...MINI.SBIN, side: 'BUY', quantity: 10 });
      await s.place({ ...MINI.SBIN, side: 'BUY', quantity: 4 });
      const db = s.t.db.database.db;
      // What a lost update leaves: the position as if the second order had met a flat one.
      await db.updateTable('sandbox_positions').set({ quantity: 4 }).where('symbol', '=', 'SBIN').execute();

      const pass = await s.t.services.sandbox.verify.scheduledPass();
      expect(pass).toMatchObject({ accounts: 1, drifted: 1 });
      expect(pass!.differences).toContainEqual(
        expect.objectContaining({
          user_id: 1,
          check: 'position',
          subject: 'NSE:SBIN:MIS',
          expected: 14,
          actual: 4,
        }),
      );
      const line = s.t.logs
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.event === 'ledger_drift');
      expect(line).toMatchObject({ level: 50, severity: 'critical', drifted: 1, accounts: 1 });
      await s.t.services.observability.errors.flush();
      const logged = await errorEntries(s.t, s.admin);
      expect(logged.some((e) => String(e.message).startsWith('ledger_drift: 1 of 1 sandbox accounts'))).toBe(
        true,
      );

      const scraped = await s.t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer metrics-token-0123456789abcdef' },
      });
      expect(scraped.body).toMatch(/^algodesk_sandbox_ledger_drift 1$/m);
      expect(scraped.body).toMatch(/^algodesk_sandbox_ledger_drift_total 1$/m);

      const diag = await adminPost(s.t, s.admin, '/admin/api/system/diagnostics');
      const probe = (diag.json().data.probes as { name: string; ok: boolean; detail: string }[]).find(
        (p) => p.name === 'sandbox_ledger',
      );
      expect(probe).toMatchObject({ ok: false });
      expect(probe!.detail).toMatch(
        /^1 of 1 sandbox account differ from their trade books: user 1 position NSE:SBIN:MIS/,
      );

      // The command line, on the server's own data (DATA_DIR, or DATABASE_URL on PostgreSQL).
      const env = {
        PATH: process.env.PATH ?? '',
        DATA_DIR: s.t.db.dataDir,
        DATABASE_URL: databaseUrlOf(s.t.db),
        LOG_LEVEL: 'warn',
      };
      const drifted = await runCliHere(['sandbox', 'verify'], { env });
      expect(drifted.code, drifted.err).toBe(1);
      expect(drifted.out).toContain(
        'user admin: position NSE:SBIN:MIS: the trades net to 14, the position holds 4',
      );
      expect(drifted.out).toMatch(/in 1 of 1 sandbox account$/m);

      // Repaired, everything agrees again.
      await db.updateTable('sandbox_positions').set({ quantity: 14 }).where('symbol', '=', 'SBIN').execute();
      const agreed = await runCliHere(['sandbox', 'verify', '--user', 'admin'], { env });
      expect(agreed.code, agreed.err).toBe(0);
      expect(agreed.out.trim()).toBe('checked 1 sandbox account: every one agrees with its trade book');
      expect(await s.t.services.sandbox.verify.scheduledPass()).toMatchObject({ drifted: 0 });
      const after = await s.t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer metrics-token-0123456789abcdef' },
      });
      expect(after.body).toMatch(/^algodesk_sandbox_ledger_drift 0$/m);
      expect(after.body).toMatch(/^algodesk_sandbox_ledger_checks_total 2$/m);
    });
  });
});
