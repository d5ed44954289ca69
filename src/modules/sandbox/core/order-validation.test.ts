import { describe, expect, it } from 'vitest';
import {
  BANKNIFTY_FUT,
  NIFTY_CE,
  NIFTY_INDEX,
  SBIN,
  USDINR_FUT,
} from '../../../../test/helpers/sandbox-instruments.js';
import { rupeesToMoney as r } from './money.js';
import { validateOrder, type OrderRequest, type PlacementContext } from './rules.js';
import type { SandboxInstrument } from './types.js';

const ctx = (instrument: SandboxInstrument, over: Partial<PlacementContext> = {}): PlacementContext => ({
  instrument,
  positionQuantity: 0,
  session: 'regular',
  ...over,
});
const req = (over: Partial<OrderRequest> = {}): OrderRequest => ({
  side: 'BUY',
  priceType: 'MARKET',
  product: 'MIS',
  quantity: 65,
  ...over,
});
const rejected = (v: ReturnType<typeof validateOrder>) => (v.ok ? undefined : v.code);

describe('validation: tradable instrument and product', () => {
  it('an index cannot be traded', () => {
    const v = validateOrder(req({ quantity: 1 }), ctx(NIFTY_INDEX));
    expect(v).toEqual({ ok: false, code: 'instrument', reason: 'NIFTY is an index and cannot be traded' });
  });
  it('CNC is for cash equity only', () => {
    expect(rejected(validateOrder(req({ product: 'CNC' }), ctx(NIFTY_CE)))).toBe('product');
    expect(rejected(validateOrder(req({ product: 'NRML' }), ctx(NIFTY_CE)))).toBeUndefined();
    expect(rejected(validateOrder(req({ product: 'CNC', quantity: 1 }), ctx(SBIN)))).toBeUndefined();
  });
});

describe('validation: quantity a positive integer, F&O in whole lots', () => {
  it.each([0, -65, 1.5, Number.NaN, Infinity])('quantity %s is rejected', (quantity) => {
    expect(rejected(validateOrder(req({ quantity }), ctx(SBIN)))).toBe('quantity');
  });
  it('NIFTY option: 64 is not a multiple of the lot 65, 130 is', () => {
    expect(validateOrder(req({ quantity: 64 }), ctx(NIFTY_CE))).toEqual({
      ok: false,
      code: 'lot',
      reason: 'quantity must be a multiple of the lot size 65',
    });
    expect(validateOrder(req({ quantity: 130 }), ctx(NIFTY_CE)).ok).toBe(true);
  });
  it('BANKNIFTY future: 45 rejected, 60 accepted (lot 30)', () => {
    expect(rejected(validateOrder(req({ quantity: 45 }), ctx(BANKNIFTY_FUT)))).toBe('lot');
    expect(validateOrder(req({ quantity: 60 }), ctx(BANKNIFTY_FUT)).ok).toBe(true);
  });
  it('equity takes any whole number of shares', () => {
    expect(validateOrder(req({ quantity: 7 }), ctx(SBIN)).ok).toBe(true);
  });
});

describe('validation: prices on the tick grid', () => {
  const limit = (price: number | string, instrument = SBIN, quantity = 1) =>
    validateOrder(req({ priceType: 'LIMIT', price, quantity }), ctx(instrument));
  it('SBIN (tick 0.05): 800.05 accepted as exact units, 800.03 rejected', () => {
    expect(limit('800.05')).toMatchObject({
      ok: true,
      order: { price: r('800.05'), triggerPrice: 0, status: 'open' },
    });
    expect(limit(800.03)).toEqual({
      ok: false,
      code: 'price',
      reason: 'price must be a multiple of the tick size 0.05',
    });
  });
  it('BANKNIFTY FUT (tick 0.20): 56,120.40 accepted, 56,120.50 rejected', () => {
    expect(limit('56120.40', BANKNIFTY_FUT, 30).ok).toBe(true);
    expect(rejected(limit('56120.50', BANKNIFTY_FUT, 30))).toBe('price');
  });
  it('USDINR (tick 0.0025): 88.3775 accepted, 88.378 rejected', () => {
    expect(limit(88.3775, USDINR_FUT).ok).toBe(true);
    expect(rejected(limit('88.378', USDINR_FUT))).toBe('price');
  });
  it('a LIMIT needs a positive price in rupees', () => {
    expect(rejected(validateOrder(req({ priceType: 'LIMIT', quantity: 1 }), ctx(SBIN)))).toBe('price');
    expect(rejected(limit('0'))).toBe('price');
    expect(rejected(limit('-800.05'))).toBe('price');
    expect(limit('12.3.4')).toEqual({
      ok: false,
      code: 'price',
      reason: 'price must be an amount in rupees',
    });
  });
  it('a MARKET order ignores price and trigger (OpenAlgo sends "0")', () => {
    const v = validateOrder(req({ price: 'junk', triggerPrice: '5' }), ctx(NIFTY_CE));
    expect(v).toMatchObject({ ok: true, order: { price: 0, triggerPrice: 0, status: 'open' } });
  });
});

describe('validation: stop orders', () => {
  it('SL needs a trigger and a price', () => {
    expect(rejected(validateOrder(req({ priceType: 'SL', price: '120.50' }), ctx(NIFTY_CE)))).toBe('trigger');
    expect(rejected(validateOrder(req({ priceType: 'SL', triggerPrice: '120.00' }), ctx(NIFTY_CE)))).toBe(
      'price',
    );
  });
  it('SL BUY: limit at or above the trigger; SL SELL: at or below', () => {
    const sl = (side: 'BUY' | 'SELL', price: string, triggerPrice: string) =>
      validateOrder(req({ side, priceType: 'SL', price, triggerPrice }), ctx(NIFTY_CE));
    expect(sl('BUY', '132.50', '132.00')).toMatchObject({
      ok: true,
      order: { price: r('132.50'), triggerPrice: r('132.00'), status: 'trigger pending' },
    });
    expect(rejected(sl('BUY', '131.50', '132.00'))).toBe('price');
    expect(sl('SELL', '117.50', '118.00').ok).toBe(true);
    expect(rejected(sl('SELL', '118.50', '118.00'))).toBe('price');
    expect(sl('SELL', '118.00', '118.00').ok).toBe(true);
  });
  it('SL-M needs only a trigger on the grid and ignores price', () => {
    expect(
      validateOrder(req({ priceType: 'SL-M', triggerPrice: '118.00', price: '1' }), ctx(NIFTY_CE)),
    ).toMatchObject({
      ok: true,
      order: { price: 0, triggerPrice: r('118.00'), status: 'trigger pending' },
    });
    expect(rejected(validateOrder(req({ priceType: 'SL-M' }), ctx(NIFTY_CE)))).toBe('trigger');
    expect(rejected(validateOrder(req({ priceType: 'SL-M', triggerPrice: '118.01' }), ctx(NIFTY_CE)))).toBe(
      'trigger',
    );
  });
});

describe('validation: a CNC SELL needs shares to sell', () => {
  const sell = (quantity: number, sellableQuantity?: number) =>
    validateOrder(req({ side: 'SELL', product: 'CNC', quantity }), ctx(SBIN, { sellableQuantity }));
  it('selling 10 with 5 sellable is rejected with the numbers', () => {
    expect(sell(10, 5)).toEqual({
      ok: false,
      code: 'holdings',
      reason: 'CNC SELL of 10 exceeds the 5 shares held',
    });
  });
  it('selling up to the sellable quantity is accepted; none known means none held', () => {
    expect(sell(5, 5).ok).toBe(true);
    expect(rejected(sell(1))).toBe('holdings');
  });
  it('a CNC BUY and an MIS SELL (short) need no holdings', () => {
    expect(validateOrder(req({ product: 'CNC', quantity: 10 }), ctx(SBIN)).ok).toBe(true);
    expect(validateOrder(req({ side: 'SELL', quantity: 10 }), ctx(SBIN)).ok).toBe(true);
  });
});

describe('validation: after the MIS square-off time only reducing MIS orders', () => {
  const late = (
    side: 'BUY' | 'SELL',
    quantity: number,
    positionQuantity: number,
    product: OrderRequest['product'] = 'MIS',
  ) =>
    validateOrder(
      req({ side, quantity, product }),
      ctx(NIFTY_CE, { positionQuantity, session: 'after-square-off' }),
    );
  it('reducing or closing a long or short is accepted', () => {
    expect(late('SELL', 65, 130).ok).toBe(true);
    expect(late('SELL', 130, 130).ok).toBe(true);
    expect(late('BUY', 65, -65).ok).toBe(true);
  });
  it('opening, adding and reversing are rejected', () => {
    expect(late('BUY', 65, 0)).toEqual({
      ok: false,
      code: 'square-off',
      reason: 'after the MIS square-off time only orders reducing a position are accepted',
    });
    expect(rejected(late('BUY', 65, 65))).toBe('square-off');
    expect(rejected(late('SELL', 130, 65))).toBe('square-off');
  });
  it('NRML is not affected; before square-off MIS may open', () => {
    expect(late('BUY', 65, 0, 'NRML').ok).toBe(true);
    expect(validateOrder(req(), ctx(NIFTY_CE)).ok).toBe(true);
  });
});

// ---- quotes ----
