/**
 * The charges of currency and commodity fills, and the brokerage plans
 * (docs/rules/sandbox.md#charges-rates), each figure worked by hand in the comment above it; the
 * cash and F&O round trips are charges.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { chargesOf } from './charges.js';
import { moneyToRupees, rupeesToMoney } from './money.js';
import { fill, flat, plan, rupees } from '../../test/helpers/charges.js';

describe('currency and commodity', () => {
  it('a USDINR future buy on CDS: no STT, currency stamp duty, a ₹0.0025 tick kept exact', () => {
    // turnover 1,000 × 83.2525 = 83,252.50 → f = 0.00832525
    // brokerage  min(0.03 % × 83,252.50 = 24.98, 20)         = 20.00
    // exchange   35 × 0.00832525 = 0.29138                    =  0.29
    // SEBI       10 × 0.00832525 = 0.0833                     =  0.08
    // stamp      10 × 0.00832525 = 0.0833                     =  0.08
    // GST        18 % × (20 + 0.29 + 0.08 = 20.37) = 3.6666    =  3.67
    // total      20 + 0 + 0.29 + 0.08 + 0.08 + 3.67           = 24.12
    const c = chargesOf(
      fill({
        exchange: 'CDS',
        product: 'NRML',
        instrumentType: 'FUT',
        side: 'BUY',
        quantity: 1000,
        price: '83.2525',
      }),
      plan,
    );
    expect(rupees(c)).toEqual({
      brokerage: 20,
      stt: 0,
      exchange: 0.29,
      sebi: 0.08,
      stamp: 0.08,
      gst: 3.67,
      total: 24.12,
    });
  });

  it('a crude oil future sell on MCX pays CTT 0.01 %', () => {
    // turnover 100 × 6,000 = 6,00,000 → f = 0.06
    // brokerage  min(180, 20) = 20; CTT 1,000 × 0.06 = 60; exchange 210 × 0.06 = 12.60; SEBI 0.60
    // GST 18 % × (20 + 12.60 + 0.60 = 33.20) = 5.976 → 5.98; total 20 + 60 + 12.60 + 0.60 + 5.98 = 99.18
    const c = chargesOf(
      fill({
        exchange: 'MCX',
        product: 'NRML',
        instrumentType: 'FUT',
        side: 'SELL',
        quantity: 100,
        price: 6000,
      }),
      plan,
    );
    expect(rupees(c)).toEqual({
      brokerage: 20,
      stt: 60,
      exchange: 12.6,
      sebi: 0.6,
      stamp: 0,
      gst: 5.98,
      total: 99.18,
    });
  });
});

describe('brokerage plans', () => {
  const buy = fill({
    exchange: 'NSE',
    product: 'MIS',
    instrumentType: 'EQ',
    side: 'BUY',
    quantity: 100,
    price: 800,
  });

  it('zero: no brokerage, GST only on exchange charges and the SEBI fee', () => {
    // GST 18 % × (2.46 + 0.08 = 2.54) = 0.4572 → 0.46
    const c = chargesOf(buy, { kind: 'zero' });
    expect([c.brokerage, c.gst].map(moneyToRupees)).toEqual([0, 0.46]);
  });

  it('flat: the fee per order whatever the turnover; delivery-free spares CNC only', () => {
    expect(chargesOf(buy, flat('15.50', false)).brokerage).toBe(rupeesToMoney('15.5'));
    const cnc = { ...buy, product: 'CNC' };
    expect(chargesOf(cnc, flat('15.50', false)).brokerage).toBe(rupeesToMoney('15.5'));
    expect(chargesOf(cnc, flat('15.50', true)).brokerage).toBe(0);
    expect(chargesOf(buy, flat('15.50', true)).brokerage).toBe(rupeesToMoney('15.5'));
  });

  it('percent: under the cap the percent, rounded to the paisa', () => {
    // 0.03 % × (10 × 123.45 = 1,234.50) = 0.37035 → 0.37
    const small = fill({
      exchange: 'NSE',
      product: 'MIS',
      instrumentType: 'EQ',
      side: 'BUY',
      quantity: 10,
      price: '123.45',
    });
    expect(moneyToRupees(chargesOf(small, plan).brokerage)).toBe(0.37);
  });

  it('refuses a fill it cannot charge', () => {
    expect(() => chargesOf({ ...buy, quantity: 0 }, plan)).toThrow(RangeError);
    expect(() => chargesOf({ ...buy, quantity: 1.5 }, plan)).toThrow(RangeError);
    expect(() => chargesOf({ ...buy, price: -1 }, plan)).toThrow(RangeError);
  });
});
