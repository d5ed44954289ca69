import { describe, expect, it } from 'vitest';
import {
  expiryCode,
  expiryLabel,
  formatStrike,
  futureSymbol,
  indexSymbol,
  isoDateFromEpoch,
  optionSymbol,
  parseDecimal,
  parseExpiry,
  underlyingFromTradingSymbol,
} from './symbology.js';

describe('parseExpiry reads every date form the broker masters use', () => {
  it.each([
    ['2025-12-30', '2025-12-30'],
    ['2026-08-25 00:00:00', '2026-08-25'],
    ['2026-08-25T23:59:59+05:30', '2026-08-25'],
    ['30-DEC-2025', '2025-12-30'],
    ['30-Dec-25', '2025-12-30'],
    ['16/SEP/25', '2025-09-16'],
    ['9-JAN-2025', '2025-01-09'],
    ['30DEC25', '2025-12-30'],
    [' 2029-12-24 ', '2029-12-24'],
  ])('%s → %s', (text, iso) => {
    expect(parseExpiry(text)).toBe(iso);
  });

  it('reads epochs as IST calendar days, in seconds or milliseconds', () => {
    // Fyers MCX: 2025-09-05 23:30 IST is still the 5th although it is 18:00 UTC.
    expect(parseExpiry('1757095200')).toBe('2025-09-05');
    // Upstox JSON: 23:59:59 IST in milliseconds.
    expect(parseExpiry('1774636199000')).toBe('2026-03-27');
    expect(isoDateFromEpoch(1763028000)).toBe('2025-11-13');
  });

  it.each([
    '',
    '   ',
    '2026-13-01',
    '2026-02-29',
    '31-APR-26',
    '30-XYZ-25',
    '2026/01/05',
    'tomorrow',
    '12345',
  ])('refuses %j', (text) => {
    expect(parseExpiry(text)).toBeNull();
  });

  it('knows leap years', () => {
    expect(parseExpiry('2028-02-29')).toBe('2028-02-29');
    expect(parseExpiry('29-FEB-2100')).toBeNull();
    expect(parseExpiry('29-FEB-2000')).toBe('2000-02-29');
  });
});

describe('expiries are written DD-MMM-YY in the expiry column and DDMMMYY in symbols', () => {
  it('formats an ISO date both ways, upper-case', () => {
    expect(expiryLabel('2025-12-30')).toBe('30-DEC-25');
    expect(expiryCode('2025-12-30')).toBe('30DEC25');
    expect(expiryLabel('2031-06-04')).toBe('04-JUN-31');
  });

  it('refuses a string that is not an ISO date', () => {
    expect(() => expiryCode('2025-13-01')).toThrow(RangeError);
  });
});

describe('strikes drop a trailing .0 and keep real decimals', () => {
  it.each([
    [26000, '26000'],
    [24500.0, '24500'],
    [86.25, '86.25'],
    [103.5, '103.5'],
    [0.25 / 100, '0.0025'],
    [0.1 + 0.2, '0.3'],
  ])('%d → %s', (strike, text) => {
    expect(formatStrike(strike)).toBe(text);
  });
});

describe('canonical derivative symbols are base + DDMMMYY (+ strike + side | FUT)', () => {
  it('builds futures', () => {
    expect(futureSymbol('BANKNIFTY', '2025-12-30')).toBe('BANKNIFTY30DEC25FUT');
    expect(futureSymbol('726GS2033', '2024-04-25')).toBe('726GS203325APR24FUT');
  });

  it('builds options, decimals included', () => {
    expect(optionSymbol('NIFTY', '2025-12-30', 26000, 'CE')).toBe('NIFTY30DEC2526000CE');
    expect(optionSymbol('USDINR', '2026-02-26', 86.25, 'CE')).toBe('USDINR26FEB2686.25CE');
    expect(optionSymbol('VEDL', '2024-04-25', 292.5, 'PE')).toBe('VEDL25APR24292.5PE');
  });
});

describe('the underlying comes from the exchange trading symbol', () => {
  it.each([
    ['NIFTY2681824350CE', 'CE', 24350, 'NIFTY'],
    ['NIFTY26AUGFUT', 'FUT', undefined, 'NIFTY'],
    ['SENSEX2631985500PE', 'PE', 85500, 'SENSEX'],
    ['GOLDM26FEB154400PE', 'PE', 154400, 'GOLDM'],
    ['USDINR26FEB86.25CE', 'CE', 86.25, 'USDINR'],
    ['USDINR26220FUT', 'FUT', undefined, 'USDINR'],
    ['679GS203426JUN103.5PE', 'PE', 103.5, '679GS2034'],
    ['SENSEX5026MARFUT', 'FUT', undefined, 'SENSEX50'],
    ['M&M26FEB3500CE', 'CE', 3500, 'M&M'],
    ['BAJAJ-AUTO26FEB9000PE', 'PE', 9000, 'BAJAJ-AUTO'],
    ['NIFTY26O1325000CE', 'CE', 25000, 'NIFTY'],
  ] as const)('%s → %s', (ts, type, strike, base) => {
    expect(underlyingFromTradingSymbol(ts, type, strike)).toBe(base);
  });

  it.each([
    ['NIFTY2681824350CE', 'CE', 24300],
    ['NIFTY2681824350CE', 'PE', 24350],
    ['NIFTY26AUG', 'FUT', undefined],
    ['26AUGFUT', 'FUT', undefined],
    ['NIFTYXXAUG24350CE', 'CE', 24350],
    ['NIFTY2681824350CE', 'CE', undefined],
  ] as const)('returns null for %s as %s %s', (ts, type, strike) => {
    expect(underlyingFromTradingSymbol(ts, type, strike)).toBeNull();
  });
});

describe('index names map to OpenAlgo index symbols', () => {
  it.each([
    ['NIFTY 50', 'NIFTY'],
    ['NIFTY BANK', 'BANKNIFTY'],
    ['NIFTY FIN SERVICE', 'FINNIFTY'],
    ['NIFTY NEXT 50', 'NIFTYNXT50'],
    ['NIFTY MID SELECT', 'MIDCPNIFTY'],
    ['INDIA VIX', 'INDIAVIX'],
    ['HANGSENG BEES-NAV', 'HANGSENGBEESNAV'],
    ['NIFTY GS 11 15YR', 'NIFTYGS1115YR'],
    ['Nifty Pvt Bank', 'NIFTYPVTBANK'],
    ['NIFTY', 'NIFTY'],
    ['BANKNIFTY', 'BANKNIFTY'],
  ])('NSE_INDEX %s → %s', (name, symbol) => {
    expect(indexSymbol(name, 'NSE_INDEX')).toBe(symbol);
  });

  it.each([
    ['SENSEX', 'SENSEX'],
    ['SNSX50', 'SENSEX50'],
    ['SENSEX50', 'SENSEX50'],
    ['BANKEX', 'BANKEX'],
    ['AUTO', 'BSEAUTO'],
    ['BSE IT', 'BSEINFORMATIONTECHNOLOGY'],
    ['OILGAS', 'BSEOIL&GAS'],
    ['FOCIT', 'FOCIT'],
    ['INDDEF', 'INDDEF'],
  ])('BSE_INDEX %s → %s', (name, symbol) => {
    expect(indexSymbol(name, 'BSE_INDEX')).toBe(symbol);
  });

  it('applies BSE aliases only on BSE_INDEX (an NSE index named AUTO stays AUTO)', () => {
    expect(indexSymbol('AUTO', 'NSE_INDEX')).toBe('AUTO');
  });
});

describe('parseDecimal is strict about what a number is', () => {
  it.each([
    ['65', 65],
    ['65.0', 65],
    [' 0.05 ', 0.05],
    ['1e-05', 0.00001],
    ['-0.01', -0.01],
    ['.5', 0.5],
  ])('%j → %d', (text, n) => {
    expect(parseDecimal(text)).toBe(n);
  });

  it.each(['', ' ', '0x10', 'abc', '1,000', 'NaN', 'Infinity', '1.2.3'])('%j → null', (text) => {
    expect(parseDecimal(text)).toBeNull();
  });
});
