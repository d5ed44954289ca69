/**
 * docs/rules/sandbox.md#ledger-check: each identity of the check on hand-made books (₹ in Money:
 * ×10,000). The books below are one account after BUY 10 SBIN MIS @ 800 and SELL 4 @ 810 (realised
 * 4 × 10 = ₹40, margin 10 × 800 ÷ 5 = ₹1,600 of which 6/10 stay), plus 5 INFY settled into holdings
 * at ₹1,500 and a working LIMIT blocking ₹100.
 */
import { describe, expect, it } from 'vitest';
import { checkLedger, inr } from './ledger-check.js';
import type { LedgerSnapshot } from '../store/ledger-check.repository.js';

const R = 10_000;
const START = 1_000_000 * R;

function books(): LedgerSnapshot {
  const holdingCost = 5 * 1_500 * R;
  const realised = 40 * R;
  const positionMargin = 960 * R;
  const blocked = 100 * R;
  const used = positionMargin + blocked;
  const charges = 12 * R; // ₹9 on the INFY buy, ₹3 on the SBIN trades
  return {
    account: {
      user_id: 7,
      starting_funds: START,
      available: START + realised - charges - holdingCost - used,
      used_margin: used,
      realised_pnl: realised,
      charges,
      reset_at: 0,
      updated_at: 0,
    },
    trades: [
      // INFY: bought 5 @ 1,500 (CNC, now held).
      {
        symbol: 'INFY',
        exchange: 'NSE',
        product: 'CNC',
        net: 5,
        cash: -5 * 1_500 * R,
        charges: 9 * R,
        trades: 1,
      },
      // SBIN: −10 × 800 + 4 × 810.
      {
        symbol: 'SBIN',
        exchange: 'NSE',
        product: 'MIS',
        net: 6,
        cash: (-8_000 + 3_240) * R,
        charges: 3 * R,
        trades: 2,
      },
    ],
    positions: [
      {
        id: 1,
        user_id: 7,
        symbol: 'SBIN',
        exchange: 'NSE',
        product: 'MIS',
        quantity: 6,
        cost: 4_800 * R,
        margin: positionMargin,
        realised_pnl: realised,
        charges: 3 * R,
        day: '2026-01-06',
        updated_at: 0,
      },
    ],
    holdings: [
      { id: 1, user_id: 7, symbol: 'INFY', exchange: 'NSE', quantity: 5, cost: holdingCost, updated_at: 0 },
    ],
    blocked,
    filledWithoutTrade: { count: 0, ids: [] },
    tradeWithoutFill: { count: 0, ids: [] },
  };
}

describe('the ledger check recomputes the books from the trade book', () => {
  it('books that agree have no difference', () => {
    expect(checkLedger(books())).toEqual([]);
  });

  it('a position that is not the trades netted is named, with both quantities', () => {
    const b = books();
    b.positions[0]!.quantity = 16; // a lost update: an order netted against a stale position
    expect(checkLedger(b)).toContainEqual(
      expect.objectContaining({
        user_id: 7,
        check: 'position',
        subject: 'NSE:SBIN:MIS',
        expected: 6,
        actual: 16,
      }),
    );
  });

  it('a CNC position counts with its holding; a holding the trades never bought is a difference', () => {
    const b = books();
    b.holdings[0]!.quantity = 3;
    b.positions.push({
      ...b.positions[0]!,
      id: 2,
      symbol: 'INFY',
      product: 'CNC',
      quantity: 2,
      cost: 0,
      margin: 0,
    });
    b.holdings[0]!.cost = 3 * 1_500 * R;
    b.positions[1]!.cost = 2 * 1_500 * R;
    b.positions[1]!.margin = 0;
    expect(checkLedger(b).filter((d) => d.check === 'position')).toEqual([]);
    b.holdings.push({
      id: 2,
      user_id: 7,
      symbol: 'TCS',
      exchange: 'NSE',
      quantity: 1,
      cost: 0,
      updated_at: 0,
    });
    expect(checkLedger(b)).toContainEqual(
      expect.objectContaining({ check: 'position', subject: 'NSE:TCS:CNC', expected: 0, actual: 1 }),
    );
  });

  it('a realised P&L the trades do not explain is named in rupees', () => {
    const b = books();
    b.account.realised_pnl += 5 * R;
    b.account.available += 5 * R; // the funds still balance: only the P&L is wrong
    const found = checkLedger(b);
    expect(found.map((d) => d.check)).toEqual(['realised_pnl']);
    expect(found[0]).toMatchObject({ expected: 40, actual: 45 });
  });

  it('funds that do not balance are named (money appeared or vanished)', () => {
    const b = books();
    b.account.available -= R; // ₹1 gone: 10,00,000 + 40 − 12 charges − 7,500 held = ₹9,92,528 expected
    expect(checkLedger(b)).toEqual([
      expect.objectContaining({
        check: 'funds',
        expected: 992_528,
        actual: 992_527,
      }),
    ]);
  });

  it('charges the account books that its trades did not pay are named (docs/rules/sandbox.md#charges-booked)', () => {
    const b = books();
    b.account.charges += 2 * R;
    b.account.available -= 2 * R; // the funds balance: the charge itself has no trade
    expect(checkLedger(b)).toEqual([
      expect.objectContaining({
        check: 'charges',
        expected: 12,
        actual: 14,
        detail: 'the trades booked ₹12 of charges, the account records ₹14',
      }),
    ]);
  });

  it('used margin that is not the positions’ margin plus the working orders’ blocks is named', () => {
    const b = books();
    b.account.used_margin += 50 * R;
    b.account.available -= 50 * R; // balanced, but blocked for nothing
    expect(checkLedger(b)).toEqual([
      expect.objectContaining({ check: 'used_margin', expected: 1_060, actual: 1_110 }),
    ]);
  });

  it('complete orders without a trade, and trades without their fill, are named by order id', () => {
    const b = books();
    b.filledWithoutTrade = { count: 7, ids: [1, 2, 3, 4, 5] };
    b.tradeWithoutFill = { count: 1, ids: [9] };
    const fills = checkLedger(b).filter((d) => d.check === 'fills');
    expect(fills.map((d) => [d.actual, d.detail])).toEqual([
      [7, 'orders 1, 2, 3, 4, 5, …'],
      [1, expect.stringContaining('orders 9 ')],
    ]);
  });
});

describe('amounts in a report are exact rupees', () => {
  it('writes the sign before the symbol, Indian grouping, and only the decimals there are', () => {
    expect(inr(-493_459_409)).toBe('-₹49,345.9409');
    expect(inr(125_000)).toBe('₹12.5');
    expect(inr(1_000_000 * R)).toBe('₹10,00,000');
    expect(inr(0)).toBe('₹0');
  });
});
