import { describe, expect, it } from 'vitest';
import type { Instrument } from '../market/instrument.js';
import {
  checkPrices,
  lotProblem,
  MAX_SPLIT_ORDERS,
  splitCount,
  splitSizes,
  type OrderInput,
} from './order-rules.js';

const order = (o: Partial<OrderInput> = {}): OrderInput => ({
  strategy: 's',
  symbol: 'NIFTY30DEC25FUT',
  exchange: 'NFO',
  action: 'BUY',
  quantity: 75,
  pricetype: 'MARKET',
  product: 'NRML',
  price: '0',
  trigger_price: '0',
  disclosed_quantity: '0',
  ...o,
});
const lot = (lotsize: number) => ({ lotsize }) as Instrument;

describe('prices by price type', () => {
  it('MARKET needs none; LIMIT a price; SL both; SL-M a trigger (each > 0)', () => {
    expect(checkPrices(order())).toBeUndefined();
    expect(checkPrices(order({ pricetype: 'LIMIT', price: '0' }))).toMatch(/^price must be greater than 0/);
    expect(checkPrices(order({ pricetype: 'LIMIT', price: 'abc' }))).toMatch(/^price must/);
    expect(checkPrices(order({ pricetype: 'LIMIT', price: '101.5' }))).toBeUndefined();
    expect(checkPrices(order({ pricetype: 'SL', price: '100', trigger_price: '0' }))).toMatch(
      /^trigger_price/,
    );
    expect(checkPrices(order({ pricetype: 'SL', price: '100', trigger_price: '99' }))).toBeUndefined();
    expect(checkPrices(order({ pricetype: 'SL-M', trigger_price: '-1' }))).toMatch(/^trigger_price/);
    expect(checkPrices(order({ pricetype: 'SL-M', trigger_price: '99' }))).toBeUndefined();
  });
});

describe('F&O quantities are whole lots; cash is not checked', () => {
  it('names the lot size when the quantity is not a multiple', () => {
    expect(lotProblem(order({ quantity: 75 }), lot(75))).toBeUndefined();
    expect(lotProblem(order({ quantity: 100 }), lot(75))).toBe(
      'quantity must be a multiple of the lot size 75',
    );
    expect(lotProblem(order({ exchange: 'NSE', quantity: 7 }), lot(75))).toBeUndefined();
  });
});

describe('a quantity splits into whole-lot children of at most the chunk', () => {
  it('rounds the chunk down to lots, a chunk under one lot becomes one lot, the last child takes the rest', () => {
    expect(splitSizes(1000, undefined, 75)).toEqual([1000]);
    expect(splitSizes(300, 500, 75)).toEqual([300]);
    expect(splitSizes(1050, 400, 75)).toEqual([375, 375, 300]);
    expect(splitSizes(150, 50, 75)).toEqual([75, 75]);
    expect(splitSizes(10, 3, 1)).toEqual([3, 3, 3, 1]);
  });

  it('splitCount is the number of children splitSizes makes, without building them', () => {
    for (const [q, chunk, lotsize] of [
      [1000, undefined, 75],
      [1050, 400, 75],
      [150, 50, 75],
      [10, 3, 1],
      [100_000, 1, 1],
      [1800, 1799, 0],
    ] as const)
      expect(splitCount(q, chunk, lotsize)).toBe(splitSizes(q, chunk, lotsize).length);
    // The cap is judged from the count: 101 children of one share is over it.
    expect(splitCount(MAX_SPLIT_ORDERS + 1, 1, 1)).toBeGreaterThan(MAX_SPLIT_ORDERS);
  });
});
