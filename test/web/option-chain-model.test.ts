/**
 * The option chain page's arithmetic (web/src/features/market/option-chain-model.ts): where an
 * underlying and its options trade, the expiry picker's order, a side of a strike as the feed
 * moves it (a figure nobody reported is a dash, never 0), the greeks' batches and answers, and the
 * straddle/strangle builder's legs, orders and premium.
 */
import { describe, expect, it } from 'vitest';
import {
  basketOrders,
  batches,
  builderLegs,
  changeOf,
  combinedPremium,
  expiryCode,
  greeksBySymbol,
  oiChangeOf,
  optionExchange,
  sameSide,
  sideView,
  sortExpiries,
  underlyingExchange,
  type Chain,
  type ChainOption,
  type GreeksAnswer,
} from '../../web/src/features/market/option-chain-model.js';

const option = (symbol: string, o: Partial<ChainOption> = {}): ChainOption => ({
  symbol,
  label: 'ATM',
  ltp: 120,
  bid: 119.9,
  ask: 120.1,
  open: 110,
  high: 130,
  low: 100,
  prev_close: 100,
  volume: 5000,
  oi: 75_000,
  lotsize: 65,
  tick_size: 0.05,
  ...o,
});

const sym = (strike: number, t: 'CE' | 'PE') => `NIFTY18AUG26${strike}${t}`;
const chainOf = (strikes: number[], atm: number): Pick<Chain, 'atm_strike' | 'chain'> => ({
  atm_strike: atm,
  chain: strikes.map((strike) => ({
    strike,
    ce: option(sym(strike, 'CE')),
    pe: option(sym(strike, 'PE')),
  })),
});

describe('where an underlying is quoted and where its options trade', () => {
  it('an NSE index on NSE_INDEX (NFO), SENSEX and BANKEX on BSE_INDEX (BFO)', () => {
    expect(underlyingExchange('NIFTY')).toBe('NSE_INDEX');
    expect(underlyingExchange('banknifty')).toBe('NSE_INDEX');
    expect(underlyingExchange('MIDCPNIFTY', 'BSE')).toBe('NSE_INDEX');
    expect(underlyingExchange('SENSEX')).toBe('BSE_INDEX');
    expect(underlyingExchange('BANKEX')).toBe('BSE_INDEX');
    expect(optionExchange('NSE_INDEX')).toBe('NFO');
    expect(optionExchange('BSE_INDEX')).toBe('BFO');
  });

  it('a stock on NSE unless ?exchange= says BSE', () => {
    expect(underlyingExchange('RELIANCE')).toBe('NSE');
    expect(underlyingExchange('RELIANCE', 'bse')).toBe('BSE');
    expect(underlyingExchange('RELIANCE', 'MCX')).toBe('NSE');
    expect(optionExchange('NSE')).toBe('NFO');
    expect(optionExchange('BSE')).toBe('BFO');
  });
});

describe('the expiry picker', () => {
  it('lists the nearest expiry first, across months and years', () => {
    expect(sortExpiries(['29-SEP-26', '18-AUG-26', '05-JAN-27', '25-AUG-26'])).toEqual([
      '18-AUG-26',
      '25-AUG-26',
      '29-SEP-26',
      '05-JAN-27',
    ]);
  });

  it('asks optionchain for the expiry as DDMMMYY', () => {
    expect(expiryCode('18-AUG-26')).toBe('18AUG26');
  });
});

describe('a side of a strike', () => {
  it('shows the chain’s answer until the feed ticks; change is LTP − previous close', () => {
    const v = sideView(option(sym(26_000, 'CE')), 'CE', 26_000, undefined, undefined, 26_010);
    expect(v).toMatchObject({
      ltp: 120,
      change: 20,
      oi: 75_000,
      volume: 5000,
      iv: null,
      delta: null,
      itm: true,
    });
  });

  it('follows the feed’s LTP, previous close, OI and volume, keeping the chain’s where the tick has none', () => {
    const v = sideView(
      option(sym(26_000, 'PE')),
      'PE',
      26_000,
      { ltp: 131.5, close: 101, oi: null, volume: 6200 },
      { iv: 13.2, delta: -0.48 },
      26_010,
    );
    expect(v).toMatchObject({ ltp: 131.5, change: 30.5, oi: 75_000, volume: 6200, iv: 13.2, delta: -0.48 });
    expect(v.itm).toBe(false);
  });

  it('an option nobody quoted (0 in the answer) has no price and no change; OI change needs a previous OI', () => {
    const v = sideView(
      option(sym(27_000, 'CE'), { ltp: 0, prev_close: 0 }),
      'CE',
      27_000,
      undefined,
      undefined,
      null,
    );
    expect(v.ltp).toBeNull();
    expect(v.change).toBeNull();
    expect(v.oiChange).toBeNull();
    expect(v.itm).toBe(false);
    expect(changeOf(10, null)).toBeNull();
    expect(oiChangeOf(75_000, undefined)).toBeNull();
    expect(oiChangeOf(75_000, 70_000)).toBe(5000);
  });

  it('two views of the same figures are the same row (not drawn again); a moved LTP is not', () => {
    const a = sideView(option(sym(26_000, 'CE')), 'CE', 26_000, { ltp: 121 }, undefined, 26_010);
    const b = sideView(option(sym(26_000, 'CE')), 'CE', 26_000, { ltp: 121 }, undefined, 26_010);
    const c = sideView(option(sym(26_000, 'CE')), 'CE', 26_000, { ltp: 121.05 }, undefined, 26_010);
    expect(sameSide(a, b)).toBe(true);
    expect(sameSide(a, c)).toBe(false);
    expect(sameSide(null, null)).toBe(true);
    expect(sameSide(a, null)).toBe(false);
  });
});

describe('the greeks', () => {
  it('are asked for in batches of at most 50 options', () => {
    const list = Array.from({ length: 82 }, (_, i) => i);
    expect(batches(list).map((b) => b.length)).toEqual([50, 32]);
    expect(batches([])).toEqual([]);
  });

  it('are read by symbol; an error item leaves its option without greeks', () => {
    const answer = {
      status: 'success',
      data: [
        {
          status: 'success',
          symbol: sym(26_000, 'CE'),
          exchange: 'NFO',
          underlying: 'NIFTY',
          strike: 26_000,
          option_type: 'CE',
          expiry_date: '18-Aug-2026',
          days_to_expiry: 8.2,
          spot_price: 26_010,
          option_price: 160,
          interest_rate: 0,
          implied_volatility: 13.1,
          greeks: { delta: 0.52, gamma: 0.0005, theta: -9, vega: 12, rho: 3 },
        },
        { status: 'error', symbol: sym(26_000, 'PE'), exchange: 'NFO', message: 'No price' },
      ],
      summary: { total: 2, success: 1, failed: 1 },
    } satisfies GreeksAnswer;
    const map = greeksBySymbol([answer]);
    expect(map.get(sym(26_000, 'CE'))).toEqual({ iv: 13.1, delta: 0.52 });
    expect(map.has(sym(26_000, 'PE'))).toBe(false);
  });
});

describe('the straddle/strangle builder', () => {
  const chain = chainOf([25_900, 25_950, 26_000, 26_050, 26_100], 26_000);

  it('a straddle is the ATM call and the ATM put', () => {
    const built = builderLegs(chain, 'straddle', 3);
    expect(built).toEqual({
      legs: [
        { type: 'CE', strike: 26_000, symbol: sym(26_000, 'CE'), lotsize: 65 },
        { type: 'PE', strike: 26_000, symbol: sym(26_000, 'PE'), lotsize: 65 },
      ],
    });
  });

  it('a strangle is the call N strikes above ATM and the put N below, both out of the money', () => {
    const built = builderLegs(chain, 'strangle', 2);
    expect('legs' in built && built.legs.map((l) => l.symbol)).toEqual([
      sym(26_100, 'CE'),
      sym(25_900, 'PE'),
    ]);
    expect(builderLegs(chain, 'strangle', 3)).toEqual({
      missing: 'No call 3 strikes above ATM in the chain shown.',
    });
  });

  it('sends one MARKET order per leg of the lots asked, and sums the premium', () => {
    const built = builderLegs(chain, 'straddle', 1);
    if (!('legs' in built)) throw new Error('no legs');
    expect(basketOrders(built.legs, { action: 'SELL', lots: 2, product: 'MIS', exchange: 'NFO' })).toEqual([
      {
        symbol: sym(26_000, 'CE'),
        exchange: 'NFO',
        action: 'SELL',
        quantity: 130,
        pricetype: 'MARKET',
        product: 'MIS',
      },
      {
        symbol: sym(26_000, 'PE'),
        exchange: 'NFO',
        action: 'SELL',
        quantity: 130,
        pricetype: 'MARKET',
        product: 'MIS',
      },
    ]);
    const ltp = new Map([
      [sym(26_000, 'CE'), 160.05],
      [sym(26_000, 'PE'), 150.1],
    ]);
    expect(combinedPremium(built.legs, (s) => ltp.get(s) ?? null, 2)).toEqual({
      perUnit: 310.15,
      total: 40_319.5,
    });
    expect(combinedPremium(built.legs, () => null, 1)).toBeNull();
  });
});
