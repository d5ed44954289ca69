import { describe, expect, it } from 'vitest';
import { bookTime, istAxisLabels, istClock, istDay, istTime } from '../../web/src/ist-time.js';

describe('docs/rules/web.md#times-in-ist: books and charts write times as the rest of the console', () => {
  it('writes the IST hour and minute, and the IST day, whatever the process’s zone', () => {
    // 18:45 UTC is 00:15 IST the next day.
    const t = Date.parse('2026-11-28T18:45:00Z');
    expect(istClock(t)).toBe('00:15');
    expect(istDay(t)).toBe('29 Nov');
  });

  it('reads a book’s IST timestamp and writes it as the console writes times', () => {
    expect(bookTime('2026-08-17 10:00:05')).toBe('17 Aug, 10:00:05');
    expect(bookTime('2026-08-17 10:00:05')).toBe(istTime(Date.parse('2026-08-17T04:30:05Z')));
    // A broker's other writing is shown as it came, never as "Invalid Date".
    expect(bookTime('17-Aug-2026 10:00:05')).toBe('17-Aug-2026 10:00:05');
  });

  it('labels a time axis with IST clock times, the day under the first and under each new day', () => {
    const at = (iso: string) => Date.parse(iso) / 1000;
    const splits = [at('2026-11-28T17:30:00Z'), at('2026-11-28T18:00:00Z'), at('2026-11-28T18:30:00Z')];
    expect(istAxisLabels(splits, 1800)).toEqual(['23:00\n28 Nov', '23:30', '00:00\n29 Nov']);
  });

  it('labels an axis of days with the day alone', () => {
    const day = 86_400;
    const start = Date.parse('2026-11-27T18:30:00Z') / 1000; // 00:00 IST on 28 Nov
    expect(istAxisLabels([start, start + day], day)).toEqual(['28 Nov', '29 Nov']);
  });
});
