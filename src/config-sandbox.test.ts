import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const load = (env: Record<string, string>) => loadConfig(env, { envFile: false }).sandbox;

describe('sandbox configuration (SANDBOX_*)', () => {
  it('defaults: ₹1,00,00,000, leverage 5/1/1/10/1/1, square-off 15:15/16:45/23:30, reset Sunday 00:00', () => {
    const c = load({});
    expect(c.startingFunds).toBe(10_000_000 * 10_000);
    expect(c.leverage).toEqual({
      equityMis: 5,
      equityCnc: 1,
      equityNrml: 1,
      futures: 10,
      optionBuy: 1,
      optionSell: 1,
    });
    expect(c.squareOff).toMatchObject({
      NSE: '15:15',
      BSE: '15:15',
      CDS: '16:45',
      BCD: '16:45',
      MCX: '23:30',
    });
    expect([c.resetDay, c.resetTime, c.maxQuoteAgeMs, c.priceSource]).toEqual([
      'sunday',
      '00:00',
      60_000,
      'broker',
    ]);
  });

  it('overrides are partial and parsed exactly', () => {
    const c = load({
      SANDBOX_STARTING_FUNDS: '2500000.50',
      SANDBOX_LEVERAGE: 'equity_mis=4, futures=12.5',
      SANDBOX_SQUARE_OFF: 'mcx=23:00',
      SANDBOX_RESET_DAY: 'Daily',
      SANDBOX_RESET_TIME: '08:30',
    });
    expect(c.startingFunds).toBe(25_000_005_000);
    expect(c.leverage).toMatchObject({ equityMis: 4, futures: 12.5, equityCnc: 1 });
    expect(c.squareOff).toMatchObject({ MCX: '23:00', NSE: '15:15' });
    expect([c.resetDay, c.resetTime]).toEqual(['daily', '08:30']);
  });

  it('every bad value is named in one error', () => {
    let err: unknown;
    try {
      load({
        SANDBOX_STARTING_FUNDS: '12.34567',
        SANDBOX_LEVERAGE: 'options=3',
        SANDBOX_SQUARE_OFF: 'NSE=3pm',
        SANDBOX_RESET_DAY: 'someday',
        SANDBOX_PRICE_SOURCE: 'random',
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const names = (err as ConfigError).problems.map((p) => p.split(':')[0]);
    expect(names).toEqual([
      'SANDBOX_STARTING_FUNDS',
      'SANDBOX_LEVERAGE',
      'SANDBOX_SQUARE_OFF',
      'SANDBOX_RESET_DAY',
      'SANDBOX_PRICE_SOURCE',
    ]);
  });
});
