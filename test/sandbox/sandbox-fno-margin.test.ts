/**
 * docs/rules/sandbox.md#margins-like-a-broker, on both databases, without a broker session (the
 * Kite calculator's case is in test/orders/orders-margin.test.ts): futures and short options
 * block the SPAN + exposure approximation on the underlying's notional (5.5 % + 2 % for an index
 * by default), a short option covered by a long of the same underlying, expiry and type blocks the
 * spread's worst loss, a bought option its premium; the method and figures are named in a
 * rejection and in the `margin` answer. Every figure is worked by hand.
 */
import { afterEach, expect, it } from 'vitest';
import { importContract } from '../helpers/contracts.js';
import { MINI, miniKiteContract, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { k } from '../helpers/sandbox-api-fixtures.js';
import { describeEachDb } from '../helpers/test-app.js';

type Row = Record<string, unknown>;
const CE_26000 = { exchange: 'NFO', symbol: 'NIFTY18AUG2626000CE' };
const CE_26200 = { exchange: 'NFO', symbol: 'NIFTY18AUG2626200CE' };
const NIFTY = { exchange: 'NSE_INDEX', symbol: 'NIFTY' };

describeEachDb('sandbox F&O margins', (dialect) => {
  let h: SandboxHarness;
  afterEach(() => h?.close());

  async function open(env: Record<string, string> = {}) {
    h = await startSandbox(dialect, { env });
    await importContract(h.t, 'zerodha', miniKiteContract(['NIFTY2681826200CE']));
    await h.at('2026-08-10', '10:00');
    await h.tick({
      [k(NIFTY)]: h.quote(25_900),
      [k(CE_26000)]: h.quote(60),
      [k(CE_26200)]: h.quote(20),
      [k(MINI.NIFTY_FUT)]: h.quote(25_950),
    });
  }
  const used = async () => (await h.ok<{ data: Row }>('funds')).data.utiliseddebits;
  const sell = (c: { exchange: string; symbol: string }, extra: Row = {}) =>
    h.place({ ...c, side: 'SELL', quantity: 65, product: 'NRML', ...extra });
  const buy = (c: { exchange: string; symbol: string }, extra: Row = {}) =>
    h.place({ ...c, side: 'BUY', quantity: 65, product: 'NRML', ...extra });

  it('a short NIFTY option blocks 7.5 % of the underlying’s notional; a bought one its premium', async () => {
    await open();
    const r = await sell(CE_26000);
    expect(r.ok).toBe(true);
    // 65 × NIFTY 25,900 = 16,83,500: SPAN 5.5 % = 92,592.50 + exposure 2 % = 33,670.
    expect(await used()).toBe(126_262.5);
    await buy(CE_26200); // premium 65 × 20.05 = 1,303.25
    expect(await used()).toBe(126_262.5 + 1_303.25);
  });

  it('a future blocks SPAN + exposure on the underlying’s notional, whichever side', async () => {
    await open();
    await h.place({ ...MINI.NIFTY_FUT, side: 'BUY', quantity: 65, product: 'NRML' });
    expect(await used()).toBe(126_262.5);
  });

  it('a short call covered by a long call further out of the money blocks the strikes’ distance', async () => {
    await open();
    await buy(CE_26200); // 1,303.25 of premium
    await sell(CE_26000);
    // 65 units covered: worst loss 200 per unit = 13,000 (instead of 1,26,262.50).
    expect(await used()).toBe(1_303.25 + 13_000);
  });

  it('the margin calculator margins a basket as one: the hedge, its method, and the figure before it', async () => {
    await open();
    const res = await h.api('margin', {
      positions: [
        { ...CE_26200, action: 'BUY', quantity: '65', product: 'NRML', pricetype: 'LIMIT', price: '20' },
        { ...CE_26000, action: 'SELL', quantity: '65', product: 'NRML', pricetype: 'LIMIT', price: '60' },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    const data = (res.json() as { data: Row }).data;
    expect(data).toMatchObject({
      total_margin_required: 1_300 + 13_000,
      span_margin: 13_000,
      exposure_margin: 0,
      initial_total_margin: 1_300 + 126_262.5,
    });
    expect(data.method).toBe(
      'Position 1: trade value ÷ leverage; Position 2: SPAN + exposure approximation: 5.5 % + 2 % of ' +
        "the index underlying's notional (NIFTY ₹25,900 × 65), up to 65 units hedged by long options",
    );
    // Nothing was placed.
    expect((await h.ok<{ data: { orders: unknown[] } }>('orderbook')).data.orders).toEqual([]);
  });

  it('too little money: the rejection names the method and its figures', async () => {
    await open({ SANDBOX_STARTING_FUNDS: '100000' });
    const r = await sell(CE_26000);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.message).toBe(
        'Insufficient funds: required margin ₹126262.50 (SPAN + exposure approximation: 5.5 % + 2 % of ' +
          "the index underlying's notional (NIFTY ₹25,900 × 65)), available ₹100000.00",
      );
    expect(await used()).toBe(0);
  });

  it('SANDBOX_FNO_MARGIN sets the rates: index=10+3 blocks 13 %', async () => {
    await open({ SANDBOX_FNO_MARGIN: 'index=10+3' });
    await sell(CE_26000);
    // 16,83,500 × 10 % = 1,68,350 + 3 % = 50,505.
    expect(await used()).toBe(218_855);
  });
});
