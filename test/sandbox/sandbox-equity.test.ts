/**
 * docs/rules/sandbox.md#daily-equity, on both databases: the day jobs record every account's day
 * (funds, realised and unrealised P&L, charges, holdings' value, equity) per IST day; the
 * `/analyzer` page reads the days, today's as it is now; a reset starts the history again.
 */
import { afterEach, expect, it } from 'vitest';
import { MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { k } from '../helpers/sandbox-api-fixtures.js';
import { asBrowser, describeEachDb, login } from '../helpers/test-app.js';

interface Day {
  day: string;
  available: number;
  used_margin: number;
  realised_pnl: number;
  charges: number;
  unrealised_pnl: number;
  holdings_value: number;
  equity: number;
}
const START = 10_000_000;

describeEachDb('sandbox daily equity', (dialect) => {
  let h: SandboxHarness;
  afterEach(() => h?.close());

  const history = async () => {
    h.admin = await login(h.t); // the fake clock jumps past the session's idle timeout
    const res = await h.t.app.inject({
      method: 'GET',
      url: '/sandbox/api/equity',
      headers: { cookie: h.admin.cookie },
    });
    expect(res.statusCode).toBe(200);
    return (res.json() as { data: Day[] }).data;
  };

  it('keeps each IST day as its last pass saw it, and today as it is now', async () => {
    h = await startSandbox(dialect, { env: { SANDBOX_CHARGES: 'book' } });
    await h.at('2026-06-01', '10:00');
    await h.tick({ [k(MINI.SBIN)]: h.quote(800) });
    const buy = await h.place({ ...MINI.SBIN, side: 'BUY', quantity: 10, product: 'CNC' });
    expect(buy.ok).toBe(true);
    await h.tick({ [k(MINI.SBIN)]: h.quote(810) });
    await h.at('2026-06-01', '15:30'); // the day's last pass: LTP 810
    // Bought 10 @ 800.05 (₹9.51 of delivery charges), marked at 810: +₹99.50.
    const monday = {
      day: '2026-06-01',
      available: START - 8_000.5 - 9.51,
      used_margin: 8_000.5,
      realised_pnl: 0,
      charges: 9.51,
      unrealised_pnl: 99.5,
      holdings_value: 0,
      equity: START - 9.51 + 99.5,
    };
    expect(await history()).toEqual([monday]);

    // Tuesday: the shares settled into holdings; the last pass of Monday stays Monday's row.
    await h.at('2026-06-02', '10:00');
    await h.tick({ [k(MINI.SBIN)]: h.quote(820) });
    const days = await history();
    expect(days).toHaveLength(2);
    expect(days[0]).toEqual(monday);
    expect(days[1]).toEqual({
      day: '2026-06-02',
      available: START - 8_000.5 - 9.51,
      used_margin: 0,
      realised_pnl: 0,
      charges: 9.51,
      unrealised_pnl: 0,
      holdings_value: 8_200,
      equity: START - 9.51 + 199.5,
    });
    // Every day adds up.
    for (const d of days)
      expect(d.equity).toBeCloseTo(d.available + d.used_margin + d.holdings_value + d.unrealised_pnl, 4);

    // A reset starts the account, and its history, again.
    const reset = await h.t.app.inject({
      method: 'POST',
      url: '/sandbox/reset',
      headers: asBrowser(h.admin),
    });
    expect(reset.statusCode).toBe(200);
    expect(await history()).toEqual([
      expect.objectContaining({ day: '2026-06-02', available: START, charges: 0, equity: START }),
    ]);
  });
});
