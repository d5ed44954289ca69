import { describe, expect, it } from 'vitest';
import { istDateTime, istStamp, istTime } from '../../web/src/ist-time.js';

describe('docs/rules/web.md#times-in-ist: the console shows every time in IST', () => {
  // 04:30 UTC is 10:00 IST; the test process's own zone does not matter.
  const at = Date.parse('2026-01-05T04:30:07Z');

  it('formats milliseconds and ISO strings alike, in IST', () => {
    expect(istTime(at)).toBe('5 Jan, 10:00:07');
    expect(istTime('2026-01-05T04:30:07.000Z')).toBe('5 Jan, 10:00:07');
    expect(istDateTime(at)).toBe('5 Jan 2026, 10:00:07');
  });

  it('names the zone where no heading does, and crosses midnight by IST, not UTC', () => {
    expect(istStamp(at)).toBe('5 Jan 2026, 10:00:07 IST');
    expect(istStamp(Date.parse('2026-01-05T19:00:00Z'))).toBe('6 Jan 2026, 00:30:00 IST');
  });
});
