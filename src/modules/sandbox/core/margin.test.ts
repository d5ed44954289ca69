import { describe, expect, it } from 'vitest';
import { DEFAULT_LEVERAGE } from '../../../domain/sandbox.js';
import {
  applyFundsDelta,
  blockMargin,
  fillMarginDelta,
  leverageFor,
  marginFor,
  marginOnFill,
  placementMargin,
  reduciblePosition,
  releaseMargin,
} from './margin.js';
import { rupeesToMoney as r } from './money.js';
import { applyFill, emptyPosition } from './positions.js';
import type { Funds } from './types.js';

const funds = (available: string, used = '0', realised = '0'): Funds => ({
  available: r(available),
  usedMargin: r(used),
  realisedPnl: r(realised),
});

describe('leverage per product and instrument kind (defaults)', () => {
  it('equity MIS 5, CNC 1, NRML 1; futures 10; option buy 1, option sell 1', () => {
    expect(leverageFor('equity', 'MIS', 'BUY')).toBe(5);
    expect(leverageFor('equity', 'CNC', 'BUY')).toBe(1);
    expect(leverageFor('equity', 'NRML', 'SELL')).toBe(1);
    expect(leverageFor('future', 'NRML', 'BUY')).toBe(10);
    expect(leverageFor('future', 'MIS', 'SELL')).toBe(10);
    expect(leverageFor('option', 'NRML', 'BUY')).toBe(1);
    expect(leverageFor('option', 'MIS', 'SELL')).toBe(1);
  });
  it('a leverage table argument overrides the defaults', () => {
    const table = { ...DEFAULT_LEVERAGE, futures: 8, optionSell: 4 };
    expect(leverageFor('future', 'NRML', 'BUY', table)).toBe(8);
    expect(leverageFor('option', 'NRML', 'SELL', table)).toBe(4);
    expect(leverageFor('option', 'NRML', 'BUY', table)).toBe(1);
  });
  it('an index has no leverage: it is not tradable', () => {
    expect(() => leverageFor('index', 'MIS', 'BUY')).toThrow(RangeError);
  });
});

describe('margin = trade value ÷ leverage, rounded up', () => {
  it('100 SBIN MIS at 800.05 → 80,005.00 ÷ 5 = 16,001.00', () => {
    expect(marginFor(r('80005.00'), 5)).toBe(r('16001.00'));
  });
  it('rounds up to the money unit, never under-blocking', () => {
    expect(marginFor(1, 3)).toBe(1);
    expect(marginFor(10, 3)).toBe(4);
  });
  it('accepts a leverage with two decimals', () => {
    expect(marginFor(r('10000.00'), 2.5)).toBe(r('4000.00'));
  });
  it('refuses zero, negative or over-precise leverage', () => {
    expect(() => marginFor(100, 0)).toThrow(RangeError);
    expect(() => marginFor(100, -1)).toThrow(RangeError);
    expect(() => marginFor(100, 1.234)).toThrow(RangeError);
  });
});

describe('margin at placement covers new exposure only', () => {
  const fut = { kind: 'future' as const, product: 'NRML' as const, price: r('56120.40') };
  it('BUY 30 BANKNIFTY FUT at 56,120.40 from flat → 1,683,612.00 ÷ 10 = 168,361.20', () => {
    expect(placementMargin({ ...fut, side: 'BUY', quantity: 30, positionQuantity: 0 })).toEqual({
      margin: r('168361.20'),
      openingQuantity: 30,
    });
  });
  it('adding to a position blocks for the whole order', () => {
    expect(placementMargin({ ...fut, side: 'BUY', quantity: 30, positionQuantity: 30 }).margin).toBe(
      r('168361.20'),
    );
  });
  it('a reducing order blocks nothing', () => {
    expect(placementMargin({ ...fut, side: 'SELL', quantity: 30, positionQuantity: 30 })).toEqual({
      margin: 0,
      openingQuantity: 0,
    });
    expect(placementMargin({ ...fut, side: 'BUY', quantity: 30, positionQuantity: -60 }).margin).toBe(0);
  });
  it('a reversal blocks only the excess: SELL 60 against long 30 blocks for 30', () => {
    expect(placementMargin({ ...fut, side: 'SELL', quantity: 60, positionQuantity: 30 })).toEqual({
      margin: r('168361.20'),
      openingQuantity: 30,
    });
  });
  it('option sell 65 NIFTY CE at 120.50 → 7,832.50 at leverage 1', () => {
    expect(
      placementMargin({
        kind: 'option',
        product: 'NRML',
        side: 'SELL',
        quantity: 65,
        price: r('120.50'),
        positionQuantity: 0,
      }).margin,
    ).toBe(r('7832.50'));
  });
  it('a custom leverage table applies', () => {
    expect(
      placementMargin({
        ...fut,
        side: 'BUY',
        quantity: 30,
        positionQuantity: 0,
        leverage: { ...DEFAULT_LEVERAGE, futures: 5 },
      }).margin,
    ).toBe(r('336722.40'));
  });
  it('a CNC SELL of held shares (holdings counted as long) blocks nothing', () => {
    expect(
      placementMargin({
        kind: 'equity',
        product: 'CNC',
        side: 'SELL',
        quantity: 10,
        price: r('800.00'),
        positionQuantity: 10,
      }).margin,
    ).toBe(0);
  });
});

describe('reducible position: other open orders already reducing it do not count twice', () => {
  it('a second SELL 65 against long 65 with a SELL 65 open opens new exposure', () => {
    expect(reduciblePosition(65, 'SELL', [{ side: 'SELL', quantity: 65 }])).toBe(0);
    expect(reduciblePosition(65, 'SELL', [{ side: 'SELL', quantity: 30 }])).toBe(35);
  });
  it('orders on the other side and positions on the same side are ignored', () => {
    expect(reduciblePosition(65, 'SELL', [{ side: 'BUY', quantity: 65 }])).toBe(65);
    expect(reduciblePosition(65, 'BUY', [{ side: 'BUY', quantity: 65 }])).toBe(65);
    expect(reduciblePosition(0, 'BUY', [])).toBe(0);
  });
  it('works for shorts', () => {
    expect(reduciblePosition(-30, 'BUY', [{ side: 'BUY', quantity: 10 }])).toBe(-20);
    expect(reduciblePosition(-30, 'BUY', [{ side: 'BUY', quantity: 40 }])).toBe(0);
  });
});

describe('blocking and releasing funds', () => {
  it('blocks from available into used margin', () => {
    const b = blockMargin(funds('10000.00'), r('7832.50'));
    expect(b).toEqual({ ok: true, funds: funds('2167.50', '7832.50') });
  });
  it('insufficient funds → rejected with a reason naming both amounts', () => {
    expect(blockMargin(funds('100000.00'), r('168361.20'))).toEqual({
      ok: false,
      reason: 'Insufficient funds: required margin ₹168361.20, available ₹100000.00',
    });
  });
  it('exactly the available amount can be blocked; 0 always can', () => {
    expect(blockMargin(funds('7832.50'), r('7832.50')).ok).toBe(true);
    expect(blockMargin(funds('0'), 0).ok).toBe(true);
  });
  it('release returns the margin and credits realised P&L', () => {
    expect(releaseMargin(funds('2167.50', '7832.50'), r('7832.50'), r('698.75'))).toEqual(
      funds('10698.75', '0', '698.75'),
    );
    expect(releaseMargin(funds('2167.50', '7832.50'), r('7832.50'), r('-162.50'))).toEqual(
      funds('9837.50', '0', '-162.50'),
    );
  });
  it('deltas add field by field', () => {
    expect(applyFundsDelta(funds('1.00', '2.00', '3.00'), funds('0.50', '-1.00', '0.25'))).toEqual(
      funds('1.50', '1.00', '3.25'),
    );
  });
});

describe('margin moves from the order to the position on fill', () => {
  it('a fill opening what was blocked moves it all', () => {
    const m = marginOnFill({
      blocked: r('7832.50'),
      blockedQuantity: 65,
      openedQuantity: 65,
      fillPrice: r('120.00'),
      leverage: 1,
    });
    expect(m).toEqual({ toPosition: r('7832.50'), release: 0, extra: 0 });
    expect(fillMarginDelta(m)).toEqual({ available: 0, usedMargin: 0, realisedPnl: 0 });
  });
  it('a fill opening less (the position grew meanwhile) releases the rest', () => {
    const m = marginOnFill({
      blocked: r('168361.20'),
      blockedQuantity: 30,
      openedQuantity: 0,
      fillPrice: r('56120.40'),
      leverage: 10,
    });
    expect(m).toEqual({ toPosition: 0, release: r('168361.20'), extra: 0 });
    expect(fillMarginDelta(m)).toEqual({
      available: r('168361.20'),
      usedMargin: r('-168361.20'),
      realisedPnl: 0,
    });
  });
  it('a fill opening more (the position shrank meanwhile) charges the extra at the fill price', () => {
    const m = marginOnFill({
      blocked: 0,
      blockedQuantity: 0,
      openedQuantity: 65,
      fillPrice: r('118.00'),
      leverage: 1,
    });
    expect(m).toEqual({ toPosition: r('7670.00'), release: 0, extra: r('7670.00') });
    expect(fillMarginDelta(m)).toEqual({
      available: r('-7670.00'),
      usedMargin: r('7670.00'),
      realisedPnl: 0,
    });
  });
});

describe('a whole round trip leaves funds + realised P&L', () => {
  it('buy 65 NIFTY CE at 120.50, sell 65 at 131.25: ₹1,00,000.00 → ₹1,00,698.75, nothing used', () => {
    let f = funds('100000.00');
    let pos = emptyPosition('NIFTY18AUG2626000CE', 'NFO', 'NRML');
    const buy = placementMargin({
      kind: 'option',
      product: 'NRML',
      side: 'BUY',
      quantity: 65,
      price: r('120.50'),
      positionQuantity: pos.quantity,
    });
    const blocked = blockMargin(f, buy.margin);
    if (!blocked.ok) throw new Error(blocked.reason);
    f = blocked.funds;
    const mf = marginOnFill({
      blocked: buy.margin,
      blockedQuantity: buy.openingQuantity,
      openedQuantity: 65,
      fillPrice: r('120.50'),
      leverage: 1,
    });
    f = applyFundsDelta(f, fillMarginDelta(mf));
    pos = applyFill(pos, { side: 'BUY', quantity: 65, price: r('120.50') }, mf.toPosition).position;
    expect(f).toEqual(funds('92167.50', '7832.50'));

    const sell = placementMargin({
      kind: 'option',
      product: 'NRML',
      side: 'SELL',
      quantity: 65,
      price: r('131.25'),
      positionQuantity: pos.quantity,
    });
    expect(sell.margin).toBe(0);
    const out = applyFill(pos, { side: 'SELL', quantity: 65, price: r('131.25') });
    f = releaseMargin(f, out.releasedMargin, out.realised);
    expect(f).toEqual(funds('100698.75', '0', '698.75'));
  });
});

describe('margin of values past 2^53 ten-thousandths (exact through BigInt)', () => {
  it('value × 100 beyond the safe range still divides exactly and rounds up', () => {
    const value = 9_000_000_000_000_001; // ≈ ₹900 billion, odd
    expect(Number.isSafeInteger(value * 100)).toBe(false);
    // (value × 100) ÷ 300 = value ÷ 3 = 3,000,000,000,000,000.33… → rounded up.
    expect(marginFor(value - (value % 3) + 1, 3)).toBe((value - (value % 3)) / 3 + 1);
  });
});
