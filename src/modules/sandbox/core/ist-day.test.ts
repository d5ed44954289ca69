import { describe, expect, it } from 'vitest';
import { istDateOf, istInstant } from '../../market/timings.service.js';
import { istDay } from './ist-day.js';

describe('istDay is istDateOf with the last day remembered', () => {
  it('agrees with istDateOf around IST midnight, forwards and backwards in time', () => {
    const midnight = istInstant('2026-03-31', '00:00');
    const instants = [-1, 0, 1, 86_399_999, 86_400_000, -86_400_001, 5, -1, 0, 3 * 86_400_000 + 7];
    for (const d of instants) expect(istDay(midnight + d)).toBe(istDateOf(midnight + d));
  });

  it('agrees with istDateOf over a spread of instants', () => {
    for (let t = Date.UTC(2025, 11, 30); t < Date.UTC(2026, 0, 3); t += 37 * 60_000 + 13)
      expect(istDay(t)).toBe(istDateOf(t));
  });
});
