import { describe, expect, it } from 'vitest';
import { parseRateRules } from './rate-rule.js';

describe('rate strings use "N per unit", several joined with ";"', () => {
  it('parses the documented forms', () => {
    expect(parseRateRules('10 per second')).toEqual([{ limit: 10, windowMs: 1000, text: '10 per second' }]);
    expect(parseRateRules('5 per minute;25 per hour').map((r) => [r.limit, r.windowMs])).toEqual([
      [5, 60_000],
      [25, 3_600_000],
    ]);
    expect(parseRateRules('10/second')[0]!.windowMs).toBe(1000);
    expect(parseRateRules('100 per 5 minutes')[0]!.windowMs).toBe(300_000);
    expect(parseRateRules(' 2 PER DAY ; ')[0]).toMatchObject({ limit: 2, windowMs: 86_400_000 });
  });
  it('refuses anything else with the reason', () => {
    expect(() => parseRateRules('')).toThrow(/at least one/);
    expect(() => parseRateRules('ten per second')).toThrow(/not of the form/);
    expect(() => parseRateRules('10 per fortnight')).toThrow(/not of the form/);
    expect(() => parseRateRules('0 per second')).toThrow(/at least 1/);
    expect(() => parseRateRules('5 per minute;x')).toThrow(/"x"/);
  });
});
