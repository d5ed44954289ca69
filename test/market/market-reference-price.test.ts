/**
 * The instrument file's price (`instruments.reference_price`, rupees) through a real import on
 * each database: written by the bulk insert of either dialect, read back for the live contract by
 * `contracts.referencePrice`, left out of the rows lookups return, and replaced with the contract
 * (a file that states no prices leaves none behind).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { importContract } from '../helpers/contracts.js';
import { upstoxContract } from '../helpers/orders-app.js';
import { miniKiteContract } from '../helpers/sandbox.js';
import { createTestApp, describeEachDb, type TestApp } from '../helpers/test-app.js';

/** Real rows of the Upstox fixture: their `last_price` and `tick_size` as the file states them. */
const ROWS = {
  /** SBIN, 1064.2 at a ₹0.10 tick. */
  sbin: 'NSE_EQ|INE062A01020',
  /** NIFTY 50, 25727.55 (an index: no tick). */
  nifty: 'NSE_INDEX|Nifty 50',
  /** USDINR Feb-2026 future, 90.345 in rupees though its tick is stated in paise. */
  usdinr: 'NCD_FO|1065',
  /** BANKNIFTY Mar-2026 future, 60538.8. */
  banknifty: 'NSE_FO|51701',
  /** An IRFC bond on BSE stating 0: no price. */
  bond: 'BSE_EQ|INE053F08270',
};

describeEachDb('the instrument file’s reference price', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(dialect);
  });
  afterAll(async () => {
    await t?.close();
  });

  const stored = async () =>
    (
      await t.db.database.db
        .selectFrom('instruments')
        .select(['symbol', 'exchange', 'reference_price'])
        .orderBy('symbol')
        .orderBy('exchange')
        .execute()
    ).map((r) => [r.exchange, r.symbol, r.reference_price === null ? null : Number(r.reference_price)]);

  it('is stored exactly as the file states it, null where it states none, and read for the live contract', async () => {
    const summary = await importContract(t, 'upstox', upstoxContract(Object.values(ROWS)));
    expect([summary.rows, summary.skipped]).toEqual([5, 0]);
    expect(await stored()).toEqual([
      ['BSE', '775IRFC33', null],
      ['NFO', 'BANKNIFTY30MAR26FUT', 60538.8],
      ['NSE_INDEX', 'NIFTY', 25727.55],
      ['NSE', 'SBIN', 1064.2],
      ['CDS', 'USDINR25FEB26FUT', 90.345],
    ]);
    const price = (symbol: string, exchange: string) =>
      t.services.market.contracts.referencePrice(symbol, exchange);
    expect(await price('SBIN', 'NSE')).toBe(1064.2);
    expect(await price('USDINR25FEB26FUT', 'CDS')).toBe(90.345);
    expect(await price('BANKNIFTY30MAR26FUT', 'NFO')).toBe(60538.8);
    expect(await price('775IRFC33', 'BSE')).toBeUndefined();
    expect(await price('SBIN', 'BSE')).toBeUndefined(); // not in this contract
    // Lookups and search results keep their shape: the index holds no price.
    expect(t.services.market.contracts.indexReady).toBe(true);
    expect(await t.services.market.contracts.get('SBIN', 'NSE')).not.toHaveProperty('referencePrice');
  });

  it('follows the live contract: a file stating no prices (Kite’s 0.0) leaves none', async () => {
    await importContract(t, 'zerodha', miniKiteContract());
    expect(await t.services.market.contracts.get('SBIN', 'NSE')).toMatchObject({ token: '779521' });
    expect(await t.services.market.contracts.referencePrice('SBIN', 'NSE')).toBeUndefined();
    const db = t.db.database.db;
    const live = await db
      .selectFrom('contract_imports')
      .select((eb) => eb.fn.max('id').as('id'))
      .where('status', '=', 'success')
      .executeTakeFirstOrThrow();
    const priced = await db
      .selectFrom('instruments')
      .select((eb) => eb.fn.count('reference_price').as('n'))
      .where('generation', '=', Number(live.id))
      .executeTakeFirstOrThrow();
    expect(Number(priced.n)).toBe(0);
  });
});
