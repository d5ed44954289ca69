import { describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatCount,
  formatDecimal,
  formatMillis,
  formatMoney,
  formatPercent,
  formatPrice,
  formatPriceOrDash,
  formatRupees,
  formatSignedMoney,
  formatSignedPercent,
  formatSignedRupees,
  NO_NUMBER,
} from '../../web/src/format-number.js';

describe('docs/rules/web.md#number-formats: one writing of numbers, in Indian grouping', () => {
  it('groups counts in thousands, then lakhs and crores, as whole numbers', () => {
    expect(formatCount(204182)).toBe('2,04,182');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(12_34_56_789)).toBe('12,34,56,789');
    expect(formatCount(-70)).toBe('-70');
    expect(formatCount(2.6)).toBe('3');
    expect(formatCount('130')).toBe('130');
  });

  it('writes money with exactly two decimals, with or without the rupee sign', () => {
    expect(formatMoney(204182)).toBe('2,04,182.00');
    expect(formatMoney(98311.8)).toBe('98,311.80');
    expect(formatMoney(0.005)).toBe('0.01');
    expect(formatRupees(9901688.2)).toBe('₹99,01,688.20');
    expect(formatRupees(-6.5)).toBe('-₹6.50');
    expect(formatRupees('1555')).toBe('₹1,555.00');
  });

  it('signs a gain or a loss, and never a zero', () => {
    expect(formatSignedMoney(830)).toBe('+830.00');
    expect(formatSignedMoney(-6.5)).toBe('-6.50');
    expect(formatSignedMoney(0)).toBe('0.00');
    expect(formatSignedRupees(1555)).toBe('+₹1,555.00');
    expect(formatSignedRupees(-204182)).toBe('-₹2,04,182.00');
    expect(formatSignedRupees(0)).toBe('₹0.00');
    expect(formatSignedPercent(1.25)).toBe('+1.25 %');
  });

  it('reads a negative zero, and an amount that rounds to zero, as zero', () => {
    expect(formatMoney(-0)).toBe('0.00');
    expect(formatMoney(-0.001)).toBe('0.00');
    expect(formatCount(-0)).toBe('0');
    expect(formatSignedMoney(-0.001)).toBe('0.00');
    expect(formatRupees(-0.001)).toBe('₹0.00');
  });

  it('keeps a price’s third and fourth decimal (a tick of 0.0025), two otherwise', () => {
    expect(formatPrice(820.1)).toBe('820.10');
    expect(formatPrice(83.1225)).toBe('83.1225');
    expect(formatPrice(2890.45)).toBe('2,890.45');
    expect(formatPriceOrDash(0)).toBe('–');
    expect(formatPriceOrDash(710.5)).toBe('710.50');
  });

  it('writes measures with at most two decimals, and sizes in binary units', () => {
    expect(formatDecimal(12.5)).toBe('12.5');
    expect(formatDecimal(1200)).toBe('1,200');
    expect(formatMillis(0.456)).toBe('0.46 ms');
    expect(formatPercent(95.238)).toBe('95.24 %');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MB');
  });

  it('shows a dash for a value that is not a number', () => {
    for (const v of [undefined, null, '', 'abc', Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(formatCount(v)).toBe(NO_NUMBER);
      expect(formatMoney(v)).toBe(NO_NUMBER);
      expect(formatRupees(v)).toBe(NO_NUMBER);
    }
  });
});
