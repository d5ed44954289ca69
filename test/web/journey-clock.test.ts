import { describe, expect, it } from 'vitest';
import { journeyStart } from '../helpers/journey-clock.js';

// 2026-11-30 in IST (UTC+05:30): 18:29 UTC is 23:59 IST, the journeys' square-off minute.
const utc = (h: number, m: number) => Date.UTC(2026, 10, 30, h, m, 0);

describe('the browser journeys’ clock', () => {
  it('starts on the wall clock during the IST day', () => {
    expect(journeyStart(utc(4, 0))).toBe(utc(4, 0));
    expect(journeyStart(utc(17, 59))).toBe(utc(17, 59));
  });

  it('starts half an hour earlier in the IST day’s last half hour, clear of the 23:59 square-off', () => {
    expect(journeyStart(utc(18, 0))).toBe(utc(17, 30));
    expect(journeyStart(utc(18, 29))).toBe(utc(17, 59));
  });

  it('starts on the wall clock again once the IST day has turned', () => {
    expect(journeyStart(utc(18, 30))).toBe(utc(18, 30));
  });
});
