/**
 * docs/rules/sandbox.md#correct-exits, on both databases: `closeposition` with a `strategy` closes
 * only what that strategy's fills hold (OpenAlgo's closes every strategy's positions, its #1116);
 * without one it closes everything, as before.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { marketOpen } from '../helpers/sandbox-api-fixtures.js';
import { startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { describeEachDb } from '../helpers/test-app.js';

interface Position {
  symbol: string;
  product: string;
  quantity: number;
}

describeEachDb('closeposition by strategy', (dialect) => {
  let h: SandboxHarness;
  beforeEach(async () => {
    h = await startSandbox(dialect);
    await marketOpen(h);
  });
  afterEach(() => h?.close());

  const buy = (strategy: string, quantity: number, action = 'BUY') =>
    h.ok('placeorder', {
      strategy,
      symbol: 'SBIN',
      exchange: 'NSE',
      action,
      quantity,
      product: 'MIS',
      pricetype: 'MARKET',
    });
  const sbin = async () =>
    (await h.ok<{ data: Position[] }>('positionbook')).data.find(
      (p) => p.symbol === 'SBIN' && p.product === 'MIS',
    )?.quantity;

  it('closes only the strategy’s share of a position two strategies hold', async () => {
    await buy('alpha', 10);
    await buy('beta', 5);
    expect(await sbin()).toBe(15);

    const alpha = await h.ok<{ closed_positions: number; message: string }>('closeposition', {
      strategy: 'alpha',
    });
    expect(alpha).toMatchObject({ closed_positions: 1, message: 'Closing orders placed for 1 positions' });
    expect(await sbin()).toBe(5);
    // The closing order is alpha's: closing alpha again finds nothing.
    const book = await h.ok<{ data: { orders: { action: string; quantity: number; strategy: string }[] } }>(
      'orderbook',
    );
    expect(book.data.orders.filter((o) => o.action === 'SELL')).toMatchObject([
      { quantity: 10, strategy: 'alpha' },
    ]);
    expect(await h.ok('closeposition', { strategy: 'alpha' })).toMatchObject({
      message: 'No open positions to close',
    });

    // A strategy that never traded closes nothing; beta closes its 5.
    expect(await h.ok('closeposition', { strategy: 'gamma' })).toMatchObject({ closed_positions: 0 });
    expect(await sbin()).toBe(5);
    await h.ok('closeposition', { strategy: 'beta' });
    expect(await sbin()).toBe(0);
  });

  it('a strategy’s share is at most the position: a partly closed position closes what is left', async () => {
    await buy('alpha', 10);
    await buy('manual', 4, 'SELL'); // someone else sold 4 of it
    expect(await sbin()).toBe(6);
    await h.ok('closeposition', { strategy: 'alpha' });
    expect(await sbin()).toBe(0);
  });

  it('without a strategy every position closes, as before', async () => {
    await buy('alpha', 10);
    await buy('beta', 5);
    expect(await h.ok('closeposition', {})).toMatchObject({ closed_positions: 1 });
    expect(await sbin()).toBe(0);
  });
});
