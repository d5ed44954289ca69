import { describe, expect, it } from 'vitest';
import { DEFAULT_SQUARE_OFF } from '../../../config-sandbox.js';
import { SESSION_END_MARGIN_MS } from '../../../domain/sandbox.js';
import { squareOffAt } from './square-off.js';

const at = (iso: string) => Date.parse(iso);

describe('MIS square-off time per exchange (NSE/BSE 15:15, CDS/BCD 16:45, MCX 23:30 IST)', () => {
  it.each([
    ['NSE', '2026-01-05T15:15:00+05:30'],
    ['BSE', '2026-01-05T15:15:00+05:30'],
    ['NFO', '2026-01-05T15:15:00+05:30'],
    ['BFO', '2026-01-05T15:15:00+05:30'],
    ['CDS', '2026-01-05T16:45:00+05:30'],
    ['BCD', '2026-01-05T16:45:00+05:30'],
    ['MCX', '2026-01-05T23:30:00+05:30'],
  ])('%s squares off at its default time', (exchange, iso) => {
    expect(squareOffAt(DEFAULT_SQUARE_OFF, exchange, '2026-01-05')).toBe(at(iso));
  });

  it('an exchange without a square-off time never squares off', () => {
    expect(squareOffAt(DEFAULT_SQUARE_OFF, 'NCDEX', '2026-01-05')).toBeUndefined();
  });

  it('a configured time inside the session is kept', () => {
    const session = { start_ms: at('2026-01-05T09:15:00+05:30'), end_ms: at('2026-01-05T15:30:00+05:30') };
    expect(squareOffAt({ NSE: '15:20' }, 'NSE', '2026-01-05', session)).toBe(at('2026-01-05T15:20:00+05:30'));
  });

  it('a special session that does not contain the time squares off 15 minutes before it ends', () => {
    // Muhurat trading: an evening session 18:00-19:15 IST.
    const session = { start_ms: at('2026-11-08T18:00:00+05:30'), end_ms: at('2026-11-08T19:15:00+05:30') };
    expect(squareOffAt(DEFAULT_SQUARE_OFF, 'NSE', '2026-11-08', session)).toBe(
      at('2026-11-08T19:15:00+05:30') - SESSION_END_MARGIN_MS,
    );
  });
});
