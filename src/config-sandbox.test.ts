import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { describePriceSource, effectivePriceSource, parseBrokeragePlan } from './config-sandbox.js';
import { DEFAULT_BROKERAGE_PLAN } from './domain/charges.js';

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
      'auto',
    ]);
  });

  it('SANDBOX_PRICE_SOURCE: auto, broker, simulated or scripted, any case', () => {
    for (const v of ['auto', 'broker', 'simulated', 'scripted'])
      expect(load({ SANDBOX_PRICE_SOURCE: v.toUpperCase() }).priceSource).toBe(v);
  });

  it('auto is the broker’s quotes when a broker is configured, else simulated; a named source is kept as named', () => {
    const effective = (env: Record<string, string>) =>
      effectivePriceSource(loadConfig(env, { envFile: false }));
    expect(effective({})).toBe('simulated');
    expect(effective({ BROKER_NAME: 'zerodha' })).toBe('broker');
    expect(effective({ BROKER_NAME: 'upstox', SANDBOX_PRICE_SOURCE: 'auto' })).toBe('broker');
    expect(effective({ BROKER_NAME: 'zerodha', SANDBOX_PRICE_SOURCE: 'simulated' })).toBe('simulated');
    expect(effective({ SANDBOX_PRICE_SOURCE: 'broker' })).toBe('broker');
    expect(effective({ BROKER_NAME: 'zerodha', SANDBOX_PRICE_SOURCE: 'scripted' })).toBe('scripted');
  });

  it('describePriceSource: one line for the start-up banner that says when prices are not market data', () => {
    const line = (env: Record<string, string>) => describePriceSource(loadConfig(env, { envFile: false }));
    expect(line({})).toBe(
      'sandbox prices: simulated (demo prices, not market data, auto: no broker configured)',
    );
    expect(line({ SANDBOX_PRICE_SOURCE: 'simulated' })).toBe(
      'sandbox prices: simulated (demo prices, not market data)',
    );
    expect(line({ BROKER_NAME: 'zerodha' })).toBe(
      "sandbox prices: broker (the zerodha broker's quotes, auto: broker configured)",
    );
    expect(line({ SANDBOX_PRICE_SOURCE: 'broker' })).toBe(
      "sandbox prices: broker (the connected broker's quotes)",
    );
    expect(line({ SANDBOX_PRICE_SOURCE: 'scripted' })).toBe(
      'sandbox prices: scripted (played from SANDBOX_SCRIPT_FILE, not market data)',
    );
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

  it('SANDBOX_BROKERAGE: default percent:0.03:20:delivery-free:options-flat, the discount-broker plan', () => {
    expect(load({}).brokerage).toEqual({
      kind: 'percent',
      percent: 0.03,
      cap: 20 * 10_000,
      deliveryFree: true,
      optionsFlat: true,
    });
    expect(parseBrokeragePlan('percent:0.03:20:delivery-free:options-flat')).toEqual(DEFAULT_BROKERAGE_PLAN);
  });

  it('SANDBOX_BROKERAGE: zero, flat per order, percent with a cap; options in any order, any case', () => {
    expect(load({ SANDBOX_BROKERAGE: 'zero' }).brokerage).toEqual({ kind: 'zero' });
    expect(load({ SANDBOX_BROKERAGE: 'flat:20' }).brokerage).toEqual({
      kind: 'flat',
      perOrder: 200_000,
      deliveryFree: false,
    });
    expect(parseBrokeragePlan('FLAT:15.5:Delivery-Free')).toEqual({
      kind: 'flat',
      perOrder: 155_000,
      deliveryFree: true,
    });
    expect(load({ SANDBOX_BROKERAGE: 'percent:0.03:20' }).brokerage).toEqual({
      kind: 'percent',
      percent: 0.03,
      cap: 200_000,
      deliveryFree: false,
      optionsFlat: false,
    });
    expect(parseBrokeragePlan('percent:0.0125:100000:options-flat:delivery-free')).toEqual({
      kind: 'percent',
      percent: 0.0125,
      cap: 1_000_000_000,
      deliveryFree: true,
      optionsFlat: true,
    });
    expect(parseBrokeragePlan('percent:5:0')).toMatchObject({ percent: 5, cap: 0 });
    expect(parseBrokeragePlan('flat:0')).toMatchObject({ perOrder: 0 });
  });

  it('SANDBOX_BROKERAGE: a value out of range or not a plan is an error naming the variable', () => {
    const bad: [string, RegExp][] = [
      ['free', /must be zero, flat:.* or percent:/],
      ['zero:20', /must be zero/],
      ['flat', /must be zero/],
      ['percent:0.03', /must be zero/],
      ['flat:-5', /flat fee per order "-5" must be rupees from 0 to 100000/],
      ['flat:abc', /flat fee per order "abc"/],
      ['flat:20.005', /at most 2 decimals/],
      ['flat:100000.01', /from 0 to 100000/],
      ['percent:5.5:20', /percent "5.5" must be a number from 0 to 5/],
      ['percent:-0.03:20', /percent "-0.03"/],
      ['percent:0.03:x', /cap per order "x"/],
      ['percent:0.00001:20', /at most 4 decimals/],
      ['percent:0.03:20:cheap', /unknown option "cheap"/],
      ['flat:20:options-flat', /unknown option "options-flat"/],
      ['percent:0.03:20:delivery-free:delivery-free', /given twice/],
    ];
    for (const [value, message] of bad) {
      let err: unknown;
      try {
        load({ SANDBOX_BROKERAGE: value });
      } catch (e) {
        err = e;
      }
      expect(err, value).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems;
      expect(problems, value).toHaveLength(1);
      expect(problems[0], value).toMatch(/^SANDBOX_BROKERAGE: /);
      expect(problems[0], value).toMatch(message);
    }
  });
});
