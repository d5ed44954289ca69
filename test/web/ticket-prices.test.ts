/**
 * docs/rules/web.md#order-ticket: the LIMIT prefill on the tick grid, the far-limit warning and
 * the freeze-quantity split, as the ticket says them before sending.
 */
import { describe, expect, it } from 'vitest';
import {
  circuitWarning,
  FAR_LIMIT_PERCENT,
  farLimitWarning,
  freezeLine,
  freezeSplit,
  roundToTick,
} from '../../web/src/components/ticket/ticket-prices.js';

describe('the ticket’s prices and size', () => {
  it('rounds the LTP to the contract’s tick, in paise, without drift', () => {
    expect(roundToTick(812.37, 0.05)).toBe(812.35);
    expect(roundToTick(812.38, 0.05)).toBe(812.4);
    expect(roundToTick(1658.1234, 0.1)).toBe(1658.1);
    expect(roundToTick(0.07, 0.05)).toBe(0.05);
    expect(roundToTick(24_567.3, 1)).toBe(24_567);
    expect(roundToTick(101.234, undefined)).toBe(101.23);
    expect(roundToTick(101.235, 0)).toBe(101.24);
  });

  it('warns on the issue’s BUY LIMIT at 1000 with the LTP at 1658: it waits', () => {
    const w = farLimitWarning('BUY', 1000, 1658);
    expect(w).toBe(
      'The limit 1,000.00 is 39.7 % below the LTP 1,658.00: the order waits until the price gets there.',
    );
  });

  it('warns that a far BUY above (or SELL below) the LTP fills at once', () => {
    expect(farLimitWarning('BUY', 1800, 1658)).toMatch(
      /8\.6 % above the LTP 1,658\.00: the BUY is marketable/,
    );
    expect(farLimitWarning('SELL', 1500, 1658)).toMatch(/9\.5 % below .* the SELL is marketable/);
    expect(farLimitWarning('SELL', 1800, 1658)).toMatch(/above .* waits until the price gets there/);
  });

  it(`says nothing within ${FAR_LIMIT_PERCENT} % or without an LTP or a price`, () => {
    expect(farLimitWarning('BUY', 1658 * 1.05, 1658)).toBeUndefined();
    expect(farLimitWarning('BUY', 1658 * 0.951, 1658)).toBeUndefined();
    expect(farLimitWarning('BUY', 1000, undefined)).toBeUndefined();
    expect(farLimitWarning('BUY', 0, 1658)).toBeUndefined();
  });

  it('splits at the freeze quantity as the pipeline does', () => {
    expect(freezeSplit(1800, 1800)).toBeUndefined();
    expect(freezeSplit(2000, 1800)).toEqual([1800, 200]);
    expect(freezeSplit(3600, 1800)).toEqual([1800, 1800]);
    expect(freezeSplit(500, null)).toBeUndefined();
    expect(freezeLine(975, 1800)).toBe('Freeze quantity 1,800');
    expect(freezeLine(2000, 1800)).toBe('Freeze quantity 1,800: goes as 2 orders (1 × 1,800 + 200)');
    expect(freezeLine(5400, 1800)).toBe('Freeze quantity 1,800: goes as 3 orders (3 × 1,800)');
    expect(freezeLine(100, null)).toBeUndefined();
  });
});

describe('the circuit band', () => {
  it('warns on a limit outside the day’s band, and says nothing inside it or without one', () => {
    const band = { upper: 1528.6, lower: 1250.7 };
    expect(circuitWarning(1600, band)).toBe(
      "The limit 1,600.00 is above today's upper circuit 1,528.60: the exchange refuses it.",
    );
    expect(circuitWarning(1200, band)).toBe(
      "The limit 1,200.00 is below today's lower circuit 1,250.70: the exchange refuses it.",
    );
    expect(circuitWarning(1528.6, band)).toBeUndefined();
    expect(circuitWarning(1300, band)).toBeUndefined();
    expect(circuitWarning(1600, { upper: null, lower: null })).toBeUndefined();
    expect(circuitWarning(1600, undefined)).toBeUndefined();
  });
});
