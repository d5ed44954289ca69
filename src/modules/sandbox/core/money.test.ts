import { describe, expect, it } from 'vitest';
import {
  divCeil,
  divRound,
  isOnTick,
  moneyToRupees,
  proRata,
  rupeesToMoney,
  tradeValue,
  tryRupeesToMoney,
} from './money.js';

describe('rupees ↔ money units (ten-thousandths of a rupee)', () => {
  it('reads decimal strings digit by digit', () => {
    expect(rupeesToMoney('120.50')).toBe(1_205_000);
    expect(rupeesToMoney('0.0025')).toBe(25);
    expect(rupeesToMoney('56120.4')).toBe(561_204_000);
    expect(rupeesToMoney('-3.5')).toBe(-35_000);
    expect(rupeesToMoney('0')).toBe(0);
    expect(rupeesToMoney('7.100000')).toBe(71_000);
  });

  it('reads numbers that are the nearest double to a 4-decimal amount', () => {
    expect(rupeesToMoney(120.5)).toBe(1_205_000);
    expect(rupeesToMoney(88.3775)).toBe(883_775);
    expect(rupeesToMoney(0.1 + 0.2)).toBe(3_000);
    expect(rupeesToMoney(1e8)).toBe(1_000_000_000_000);
  });

  it('refuses a fifth decimal, non-numbers and unsafe magnitudes', () => {
    expect(tryRupeesToMoney('1.00005')).toBeUndefined();
    expect(tryRupeesToMoney(1.23456)).toBeUndefined();
    expect(tryRupeesToMoney('12.3.4')).toBeUndefined();
    expect(tryRupeesToMoney('1e3')).toBeUndefined();
    expect(tryRupeesToMoney('')).toBeUndefined();
    expect(tryRupeesToMoney(Number.NaN)).toBeUndefined();
    expect(tryRupeesToMoney(Infinity)).toBeUndefined();
    expect(tryRupeesToMoney(1e13)).toBeUndefined();
    expect(() => rupeesToMoney('1.00005')).toThrow(RangeError);
  });

  it('turns units back into rupee numbers', () => {
    expect(moneyToRupees(6_987_500)).toBe(698.75);
    expect(moneyToRupees(25)).toBe(0.0025);
    expect(moneyToRupees(-1_625_000)).toBe(-162.5);
    expect(Object.is(moneyToRupees(-0), 0)).toBe(true);
  });
});

describe('trade value is exact and range-checked', () => {
  it('65 × ₹120.50 = ₹7,832.50', () => {
    expect(tradeValue(1_205_000, 65)).toBe(78_325_000);
  });
  it('throws past 2^53 instead of losing precision', () => {
    expect(() => tradeValue(2 ** 52, 4)).toThrow(RangeError);
  });
});

describe('integer division helpers', () => {
  it('divRound rounds half away from zero', () => {
    expect(divRound(7, 2)).toBe(4);
    expect(divRound(-7, 2)).toBe(-4);
    expect(divRound(5, 3)).toBe(2);
    expect(divRound(4, 3)).toBe(1);
    expect(divRound(-4, 3)).toBe(-1);
    expect(divRound(0, 3)).toBe(0);
  });
  it('divCeil rounds up, exactly even near 2^53', () => {
    expect(divCeil(7, 2)).toBe(4);
    expect(divCeil(6, 2)).toBe(3);
    expect(divCeil(0, 5)).toBe(0);
    expect(divCeil(2 ** 53 - 1, 3)).toBe(3_002_399_751_580_331);
    expect(divCeil(2 ** 53 - 2, 3)).toBe(3_002_399_751_580_330);
  });
  it('refuse non-integers and non-positive divisors', () => {
    expect(() => divRound(1.5, 2)).toThrow(RangeError);
    expect(() => divRound(1, 0)).toThrow(RangeError);
    expect(() => divCeil(-1, 2)).toThrow(RangeError);
  });
});

describe('proRata: shares of an amount that add up exactly', () => {
  it('rounds each share half away from zero', () => {
    expect(proRata(1000, 1, 3)).toBe(333);
    expect(proRata(1000, 2, 3)).toBe(667);
    expect(proRata(1001, 1, 2)).toBe(501);
    expect(proRata(-1001, 1, 2)).toBe(-501);
  });
  it('the whole is the exact total and nothing is 0', () => {
    expect(proRata(1001, 2, 2)).toBe(1001);
    expect(proRata(1001, 0, 2)).toBe(0);
  });
});

describe('tick grid', () => {
  it('SBIN tick ₹0.05: 800.05 on the grid, 800.03 off it', () => {
    expect(isOnTick(8_000_500, 500)).toBe(true);
    expect(isOnTick(8_000_300, 500)).toBe(false);
  });
  it('USDINR tick ₹0.0025: 88.3775 on the grid, 88.3780 off it', () => {
    expect(isOnTick(883_775, 25)).toBe(true);
    expect(isOnTick(883_780, 25)).toBe(false);
  });
  it('a zero tick (index) is no grid', () => {
    expect(isOnTick(100, 0)).toBe(false);
  });
});
