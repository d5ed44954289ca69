/**
 * The charges of a fill as a contract note books them (docs/rules/sandbox.md#charges-rates), each
 * figure worked by hand in the comment above it. Rates are rupees per crore (₹1,00,00,000), so a
 * charge is turnover × rate ÷ 1,00,00,000; "× f" below is that factor, turnover ÷ 1 crore.
 */
import { describe, expect, it } from 'vitest';
import {
  chargeSegmentOf,
  chargesOf,
  sumCharges,
  transactionTaxRatesAt,
  STT_FROM_APR_2026,
  STT_FROM_OCT_2024,
} from './charges.js';
import { moneyToRupees, rupeesToMoney } from './money.js';
import { fill, ist, JAN_2026, MAY_2026, PERCENT_ONLY, plan, rupees } from '../../test/helpers/charges.js';

describe('the segment of a fill', () => {
  it('cash equity is intraday under MIS and delivery otherwise; derivatives by instrument type', () => {
    expect(chargeSegmentOf('NSE', 'MIS', 'EQ')).toBe('equity_intraday');
    expect(chargeSegmentOf('BSE', 'CNC', 'EQ')).toBe('equity_delivery');
    expect(chargeSegmentOf('NSE', 'NRML', 'EQ')).toBe('equity_delivery');
    expect(chargeSegmentOf('NFO', 'MIS', 'FUT')).toBe('equity_futures');
    expect(chargeSegmentOf('BFO', 'NRML', 'PE')).toBe('equity_options');
    expect(chargeSegmentOf('CDS', 'NRML', 'FUT')).toBe('currency_futures');
    expect(chargeSegmentOf('BCD', 'MIS', 'CE')).toBe('currency_options');
    expect(chargeSegmentOf('MCX', 'NRML', 'FUT')).toBe('commodity_futures');
    expect(chargeSegmentOf('MCX', 'NRML', 'CE')).toBe('commodity_options');
  });

  it('has none for a type the exchange does not trade, an index, or an exchange without rates', () => {
    expect(chargeSegmentOf('NSE', 'MIS', 'FUT')).toBeUndefined();
    expect(chargeSegmentOf('NFO', 'NRML', 'EQ')).toBeUndefined();
    expect(chargeSegmentOf('NSE_INDEX', 'MIS', 'INDEX')).toBeUndefined();
    expect(chargeSegmentOf('NCDEX', 'NRML', 'FUT')).toBeUndefined();
    expect(chargeSegmentOf('XYZ', 'MIS', 'EQ')).toBeUndefined();
    expect(() =>
      chargesOf(
        fill({
          exchange: 'NCDEX',
          product: 'NRML',
          instrumentType: 'FUT',
          side: 'BUY',
          quantity: 1,
          price: 1,
        }),
        plan,
      ),
    ).toThrow(/no charges are known for FUT NRML on NCDEX/);
  });
});

describe('STT periods', () => {
  it('futures 0.02 % and options 0.1 % until 31 Mar 2026, 0.05 % and 0.15 % from 1 Apr 2026 IST', () => {
    expect(transactionTaxRatesAt(Date.parse('2026-03-31T23:59:59+05:30'))).toBe(STT_FROM_OCT_2024);
    expect(transactionTaxRatesAt(Date.parse('2026-04-01T00:00:00+05:30'))).toBe(STT_FROM_APR_2026);
    expect(transactionTaxRatesAt(undefined)).toBe(STT_FROM_APR_2026);
    expect(transactionTaxRatesAt(ist('2023-01-01'))).toBe(STT_FROM_OCT_2024);
  });
});

describe('an equity intraday round trip: BUY 100 SBIN @ 800, SELL 100 @ 810, MIS, NSE', () => {
  const base = {
    exchange: 'NSE',
    product: 'MIS',
    instrumentType: 'EQ',
    quantity: 100,
    at: MAY_2026,
  } as const;

  it('the buy', () => {
    // turnover 100 × 800 = 80,000 → f = 0.008
    // brokerage  min(0.03 % × 80,000 = 24.00, 20)            = 20.00
    // STT        intraday: sell side only                     =  0
    // exchange   (297 NSE + 10 IPFT) × 0.008 = 2.456          =  2.46
    // SEBI       10 × 0.008 = 0.08                            =  0.08
    // stamp      300 × 0.008 = 2.40 (buyer)                   =  2.40
    // GST        18 % × (20.00 + 2.46 + 0.08 = 22.54) = 4.0572 =  4.06
    // total      20 + 0 + 2.46 + 0.08 + 2.40 + 4.06           = 29.00
    const c = chargesOf(fill({ ...base, side: 'BUY', price: 800 }), plan);
    expect(rupees(c)).toEqual({
      brokerage: 20,
      stt: 0,
      exchange: 2.46,
      sebi: 0.08,
      stamp: 2.4,
      gst: 4.06,
      total: 29,
    });
  });

  it('the sell', () => {
    // turnover 100 × 810 = 81,000 → f = 0.0081
    // brokerage  min(0.03 % × 81,000 = 24.30, 20)            = 20.00
    // STT        2,500 × 0.0081 = 20.25 → nearest rupee     = 20
    // exchange   307 × 0.0081 = 2.4867                        =  2.49
    // SEBI       10 × 0.0081 = 0.081                          =  0.08
    // stamp      seller pays none                             =  0
    // GST        18 % × (20.00 + 2.49 + 0.08 = 22.57) = 4.0626 =  4.06
    // total      20 + 20 + 2.49 + 0.08 + 0 + 4.06             = 46.63
    const c = chargesOf(fill({ ...base, side: 'SELL', price: 810 }), plan);
    expect(rupees(c)).toEqual({
      brokerage: 20,
      stt: 20,
      exchange: 2.49,
      sebi: 0.08,
      stamp: 0,
      gst: 4.06,
      total: 46.63,
    });
  });

  it('the round trip: ₹75.63 of charges on ₹1,000 gross, ₹924.37 net', () => {
    // 29.00 + 46.63 = 75.63; gross (810 − 800) × 100 = 1,000; net 1,000 − 75.63 = 924.37
    const both = sumCharges([
      chargesOf(fill({ ...base, side: 'BUY', price: 800 }), plan),
      chargesOf(fill({ ...base, side: 'SELL', price: 810 }), plan),
    ]);
    expect(both.total).toBe(rupeesToMoney('75.63'));
    expect(moneyToRupees(rupeesToMoney(1000) - both.total)).toBe(924.37);
  });

  it('on BSE the cash transaction charge is 0.00375 % and there is no IPFT', () => {
    // buy: exchange 375 × 0.008 = 3.00; GST 18 % × (20 + 3.00 + 0.08 = 23.08) = 4.1544 → 4.15
    const c = chargesOf(fill({ ...base, exchange: 'BSE', side: 'BUY', price: 800 }), plan);
    expect([c.exchange, c.gst]).toEqual([rupeesToMoney(3), rupeesToMoney('4.15')]);
  });
});

describe('an options round trip: BUY 75 NIFTY CE @ 120, SELL 75 @ 150, NRML, NFO', () => {
  const base = { exchange: 'NFO', product: 'NRML', instrumentType: 'CE', quantity: 75 } as const;

  it('the buy', () => {
    // premium turnover 75 × 120 = 9,000 → f = 0.0009
    // brokerage  options-flat: the cap                        = 20.00
    // STT        seller only                                  =  0
    // exchange   (3,503 + 50 IPFT) × 0.0009 = 3.1977          =  3.20
    // SEBI       10 × 0.0009 = 0.009                          =  0.01
    // stamp      300 × 0.0009 = 0.27                          =  0.27
    // GST        18 % × (20 + 3.20 + 0.01 = 23.21) = 4.1778    =  4.18
    // total      20 + 0 + 3.20 + 0.01 + 0.27 + 4.18           = 27.66
    const c = chargesOf(fill({ ...base, side: 'BUY', price: 120, at: MAY_2026 }), plan);
    expect(rupees(c)).toEqual({
      brokerage: 20,
      stt: 0,
      exchange: 3.2,
      sebi: 0.01,
      stamp: 0.27,
      gst: 4.18,
      total: 27.66,
    });
  });

  it('the sell, from 1 Apr 2026 (STT 0.15 % of premium)', () => {
    // premium turnover 75 × 150 = 11,250 → f = 0.001125
    // brokerage  options-flat                                 = 20.00
    // STT        15,000 × 0.001125 = 16.875 → nearest rupee   = 17
    // exchange   3,553 × 0.001125 = 3.997125                  =  4.00
    // SEBI       10 × 0.001125 = 0.01125                      =  0.01
    // stamp      seller pays none                             =  0
    // GST        18 % × (20 + 4.00 + 0.01 = 24.01) = 4.3218    =  4.32
    // total      20 + 17 + 4.00 + 0.01 + 0 + 4.32             = 45.33
    const c = chargesOf(fill({ ...base, side: 'SELL', price: 150, at: MAY_2026 }), plan);
    expect(rupees(c)).toEqual({
      brokerage: 20,
      stt: 17,
      exchange: 4,
      sebi: 0.01,
      stamp: 0,
      gst: 4.32,
      total: 45.33,
    });
  });

  it('the sell, before 1 Apr 2026 (STT 0.1 % of premium)', () => {
    // STT 10,000 × 0.001125 = 11.25 → 11; the rest as above: total 20 + 11 + 4.00 + 0.01 + 4.32 = 39.33
    const c = chargesOf(fill({ ...base, side: 'SELL', price: 150, at: JAN_2026 }), plan);
    expect([moneyToRupees(c.stt), moneyToRupees(c.total)]).toEqual([11, 39.33]);
  });

  it('the round trip: ₹72.99 of charges on ₹2,250 gross', () => {
    // 27.66 + 45.33 = 72.99; gross (150 − 120) × 75 = 2,250
    const both = sumCharges([
      chargesOf(fill({ ...base, side: 'BUY', price: 120, at: MAY_2026 }), plan),
      chargesOf(fill({ ...base, side: 'SELL', price: 150, at: MAY_2026 }), plan),
    ]);
    expect(moneyToRupees(both.total)).toBe(72.99);
  });

  it('without options-flat the percent applies to the premium, rounded half up to the paisa', () => {
    // buy:  0.03 % × 9,000 = 2.70; GST 18 % × (2.70 + 3.20 + 0.01 = 5.91) = 1.0638 → 1.06
    // sell: 0.03 % × 11,250 = 3.375 → 3.38 (half up); GST 18 % × (3.38 + 4.00 + 0.01 = 7.39) = 1.3302 → 1.33
    const p = PERCENT_ONLY;
    const buy = chargesOf(fill({ ...base, side: 'BUY', price: 120, at: MAY_2026 }), p);
    const sell = chargesOf(fill({ ...base, side: 'SELL', price: 150, at: MAY_2026 }), p);
    expect([buy.brokerage, buy.gst].map(moneyToRupees)).toEqual([2.7, 1.06]);
    expect([sell.brokerage, sell.gst].map(moneyToRupees)).toEqual([3.38, 1.33]);
  });
});

describe('a delivery buy and sell: 10 RELIANCE, CNC, NSE', () => {
  const base = { exchange: 'NSE', product: 'CNC', instrumentType: 'EQ', quantity: 10, at: MAY_2026 } as const;

  it('the buy @ 1,400', () => {
    // turnover 14,000 → f = 0.0014
    // brokerage  delivery-free                                =  0
    // STT        10,000 × 0.0014 = 14.00 (both sides)        = 14
    // exchange   307 × 0.0014 = 0.4298                        =  0.43
    // SEBI       10 × 0.0014 = 0.014                          =  0.01
    // stamp      1,500 × 0.0014 = 2.10                        =  2.10
    // GST        18 % × (0 + 0.43 + 0.01 = 0.44) = 0.0792      =  0.08
    // total      0 + 14 + 0.43 + 0.01 + 2.10 + 0.08           = 16.62
    const c = chargesOf(fill({ ...base, side: 'BUY', price: 1400 }), plan);
    expect(rupees(c)).toEqual({
      brokerage: 0,
      stt: 14,
      exchange: 0.43,
      sebi: 0.01,
      stamp: 2.1,
      gst: 0.08,
      total: 16.62,
    });
  });

  it('the sell @ 1,450', () => {
    // turnover 14,500 → f = 0.00145
    // brokerage  delivery-free                                =  0
    // STT        10,000 × 0.00145 = 14.50 → half up          = 15
    // exchange   307 × 0.00145 = 0.44515                      =  0.45
    // SEBI       10 × 0.00145 = 0.0145                        =  0.01
    // stamp      seller pays none                             =  0
    // GST        18 % × (0.45 + 0.01 = 0.46) = 0.0828          =  0.08
    // total      15 + 0.45 + 0.01 + 0.08                      = 15.54
    const c = chargesOf(fill({ ...base, side: 'SELL', price: 1450 }), plan);
    expect(rupees(c)).toEqual({
      brokerage: 0,
      stt: 15,
      exchange: 0.45,
      sebi: 0.01,
      stamp: 0,
      gst: 0.08,
      total: 15.54,
    });
  });

  it('a plan without delivery-free charges delivery its percent', () => {
    // 0.03 % × 14,000 = 4.20; GST 18 % × (4.20 + 0.43 + 0.01 = 4.64) = 0.8352 → 0.84
    const c = chargesOf(fill({ ...base, side: 'BUY', price: 1400 }), PERCENT_ONLY);
    expect([c.brokerage, c.gst].map(moneyToRupees)).toEqual([4.2, 0.84]);
  });
});

describe('a futures round trip: 75 NIFTY FUT, BUY @ 25,000, SELL @ 25,100, NRML, NFO', () => {
  const base = { exchange: 'NFO', product: 'NRML', instrumentType: 'FUT', quantity: 75 } as const;

  it('the buy', () => {
    // turnover 75 × 25,000 = 18,75,000 → f = 0.1875
    // brokerage  min(0.03 % × 18,75,000 = 562.50, 20)        =  20.00
    // STT        seller only                                  =   0
    // exchange   (173 + 10 IPFT) × 0.1875 = 34.3125           =  34.31
    // SEBI       10 × 0.1875 = 1.875                          =   1.88
    // stamp      200 × 0.1875 = 37.50                         =  37.50
    // GST        18 % × (20 + 34.31 + 1.88 = 56.19) = 10.1142  =  10.11
    // total      20 + 0 + 34.31 + 1.88 + 37.50 + 10.11        = 103.80
    const c = chargesOf(fill({ ...base, side: 'BUY', price: 25_000, at: MAY_2026 }), plan);
    expect(rupees(c)).toEqual({
      brokerage: 20,
      stt: 0,
      exchange: 34.31,
      sebi: 1.88,
      stamp: 37.5,
      gst: 10.11,
      total: 103.8,
    });
  });

  it('the sell, from 1 Apr 2026 (STT 0.05 %)', () => {
    // turnover 75 × 25,100 = 18,82,500 → f = 0.18825
    // brokerage  min(564.75, 20)                              =  20.00
    // STT        5,000 × 0.18825 = 941.25 → nearest rupee     = 941
    // exchange   183 × 0.18825 = 34.44975                     =  34.45
    // SEBI       10 × 0.18825 = 1.8825                        =   1.88
    // stamp      seller pays none                             =   0
    // GST        18 % × (20 + 34.45 + 1.88 = 56.33) = 10.1394  =  10.14
    // total      20 + 941 + 34.45 + 1.88 + 0 + 10.14          = 1,007.47
    const c = chargesOf(fill({ ...base, side: 'SELL', price: 25_100, at: MAY_2026 }), plan);
    expect(rupees(c)).toEqual({
      brokerage: 20,
      stt: 941,
      exchange: 34.45,
      sebi: 1.88,
      stamp: 0,
      gst: 10.14,
      total: 1007.47,
    });
  });

  it('the sell, before 1 Apr 2026 (STT 0.02 %)', () => {
    // STT 2,000 × 0.18825 = 376.50 → half up 377; total 20 + 377 + 34.45 + 1.88 + 10.14 = 443.47
    const c = chargesOf(fill({ ...base, side: 'SELL', price: 25_100, at: JAN_2026 }), plan);
    expect([moneyToRupees(c.stt), moneyToRupees(c.total)]).toEqual([377, 443.47]);
  });

  it('on BFO futures pay no exchange transaction charge', () => {
    // exchange 0; GST 18 % × (20 + 1.88) = 3.9384 → 3.94
    const c = chargesOf(fill({ ...base, exchange: 'BFO', side: 'BUY', price: 25_000, at: MAY_2026 }), plan);
    expect([c.exchange, c.gst].map(moneyToRupees)).toEqual([0, 3.94]);
  });
});
