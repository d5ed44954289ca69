import { describe, expect, it } from 'vitest';
import { approximateMargin, DEFAULT_FNO_MARGIN, parseFnoMargin, underlyingClass } from './fno-margin.js';

const R = 10_000; // Money per rupee

describe('the SPAN + exposure approximation (docs/rules/sandbox.md#margins-like-a-broker)', () => {
  it('classes underlyings by exchange and name', () => {
    expect(underlyingClass('NFO', 'NIFTY')).toBe('index');
    expect(underlyingClass('BFO', 'sensex')).toBe('index');
    expect(underlyingClass('NFO', 'SBIN')).toBe('stock');
    expect(underlyingClass('CDS', 'USDINR')).toBe('currency');
    expect(underlyingClass('MCX', 'CRUDEOIL')).toBe('commodity');
    expect(underlyingClass('NSE', 'SBIN')).toBeUndefined();
  });

  it('blocks SPAN % + exposure % of the notional, each rounded up to the money unit', () => {
    // 65 × 25,900 = 16,83,500: 5.5 % = 92,592.50, 2 % = 33,670.
    expect(
      approximateMargin({ quantity: 65, underlyingPrice: 25_900 * R, rate: DEFAULT_FNO_MARGIN.index }),
    ).toEqual({
      span: 92_592.5 * R,
      exposure: 33_670 * R,
      total: 126_262.5 * R,
    });
    // 1 × ₹0.0001 at 5.5 %: rounds up, never to nothing.
    expect(
      approximateMargin({ quantity: 1, underlyingPrice: 1, rate: { span: 5.5, exposure: 0 } }).total,
    ).toBe(1);
  });

  it('covered units block their worst loss, never more than an uncovered unit', () => {
    const rate = DEFAULT_FNO_MARGIN.index;
    const m = approximateMargin({
      quantity: 100,
      underlyingPrice: 25_900 * R,
      rate,
      covers: [
        { quantity: 30, perUnit: 200 * R }, // a spread 200 wide
        { quantity: 10, perUnit: 5_000 * R }, // wider than the naked margin: capped at 1,942.50
      ],
    });
    // 30 × 200 + 10 × 1,942.50 + 60 uncovered × 1,942.50.
    expect(m.total).toBe((6_000 + 19_425 + 116_550) * R);
    expect(m.exposure).toBe(60 * 518 * R);
  });

  it('SANDBOX_FNO_MARGIN: any subset of <class>=<span>+<exposure>; bad input names the item', () => {
    expect(parseFnoMargin('index=10+3, stock=20+5')).toMatchObject({
      index: { span: 10, exposure: 3 },
      stock: { span: 20, exposure: 5 },
      currency: DEFAULT_FNO_MARGIN.currency,
    });
    expect(() => parseFnoMargin('index=10')).toThrow(/"index=10": write <class>=<span %>\+<exposure %>/);
    expect(() => parseFnoMargin('indices=10+2')).toThrow(/unknown class "indices"/);
    expect(() => parseFnoMargin('index=0+2')).toThrow(/SPAN must be above 0/);
    expect(() => parseFnoMargin('index=90+20')).toThrow(/at most 100 %/);
    expect(() => parseFnoMargin('index=5.555+2')).toThrow(/write/);
  });
});
