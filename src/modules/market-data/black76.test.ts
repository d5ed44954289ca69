import { describe, expect, it } from 'vitest';
import { black76Greeks, black76Price, impliedVol, normCdf, type Black76Input } from './black76.js';

/**
 * Reference values computed here independently of black76.ts: N(x) by Simpson's rule on the
 * density, prices from those, and Greeks as finite differences of the price.
 */
function refCdf(x: number): number {
  const n = 20_000;
  const a = Math.min(x, 0);
  const lo = -12;
  const h = (a - lo) / n;
  let s = 0;
  for (let k = 0; k <= n; k++) {
    const t = lo + k * h;
    const w = k === 0 || k === n ? 1 : k % 2 ? 4 : 2;
    s += w * Math.exp((-t * t) / 2);
  }
  const left = (s * h) / 3 / Math.sqrt(2 * Math.PI);
  return x <= 0 ? left : 1 - refCdf(-x);
}

function refPrice(i: Black76Input): number {
  const sd = i.vol * Math.sqrt(i.years);
  const d1 = (Math.log(i.forward / i.strike) + (sd * sd) / 2) / sd;
  const d2 = d1 - sd;
  const df = Math.exp(-i.rate * i.years);
  return i.type === 'CE'
    ? df * (i.forward * refCdf(d1) - i.strike * refCdf(d2))
    : df * (i.strike * refCdf(-d2) - i.forward * refCdf(-d1));
}

describe('normCdf', () => {
  it.each([-6, -3, -1.96, -0.5, 0, 0.3, 1, 1.6449, 2.5, 5])('N(%d) matches numeric integration', (x) => {
    expect(normCdf(x)).toBeCloseTo(refCdf(x), 10);
  });

  it('textbook table values', () => {
    expect(normCdf(0)).toBe(0.5);
    expect(normCdf(1.96)).toBeCloseTo(0.975002, 6);
    expect(normCdf(-1.6449)).toBeCloseTo(0.05, 4);
  });
});

describe('Black-76 prices', () => {
  it('Hull: put on a futures price of 20, strike 20, r 9 %, 4 months, vol 25 % is 1.12', () => {
    const put = black76Price({ forward: 20, strike: 20, years: 4 / 12, rate: 0.09, vol: 0.25, type: 'PE' });
    expect(put).toBeCloseTo(1.1166, 4);
    expect(put.toFixed(2)).toBe('1.12');
  });

  it('Hull: S 42, K 40, r 10 %, vol 20 %, 6 months — on the forward S·e^(rT), call 4.76 and put 0.81', () => {
    const base = { forward: 42 * Math.exp(0.05), strike: 40, years: 0.5, rate: 0.1, vol: 0.2 };
    expect(black76Price({ ...base, type: 'CE' }).toFixed(2)).toBe('4.76');
    expect(black76Price({ ...base, type: 'PE' }).toFixed(2)).toBe('0.81');
  });

  it.each([
    [25_966.05, 26_000, 28.5 / 365, 0, 0.156, 'CE'],
    [25_966.05, 25_000, 10 / 365, 0.07, 0.3, 'PE'],
    [100, 140, 1, 0.05, 0.6, 'CE'],
    [100, 60, 2, 0.05, 0.45, 'PE'],
  ] as const)(
    'F %d K %d: matches the independent formula; put-call parity holds',
    (F, K, T, r, vol, type) => {
      const i = { forward: F, strike: K, years: T, rate: r, vol, type };
      expect(black76Price(i)).toBeCloseTo(refPrice(i), 6);
      const call = black76Price({ ...i, type: 'CE' });
      const put = black76Price({ ...i, type: 'PE' });
      expect(call - put).toBeCloseTo(Math.exp(-r * T) * (F - K), 8);
    },
  );
});

describe('Black-76 Greeks', () => {
  it.each([
    [25_966.05, 26_000, 28.5 / 365, 0, 0.156, 'CE'],
    [25_966.05, 25_000, 10 / 365, 0.07, 0.3, 'PE'],
    [120, 100, 0.75, 0.05, 0.35, 'CE'],
  ] as const)(
    'F %d K %d %s: delta, gamma, vega and theta are the price’s finite differences',
    (F, K, T, r, vol, type) => {
      const i: Black76Input = { forward: F, strike: K, years: T, rate: r, vol, type };
      const g = black76Greeks(i);
      const p = (d: Partial<Black76Input>) => refPrice({ ...i, ...d });
      const h = F * 1e-4;
      expect(g.delta).toBeCloseTo((p({ forward: F + h }) - p({ forward: F - h })) / (2 * h), 5);
      expect(g.gamma).toBeCloseTo((p({ forward: F + h }) - 2 * p({}) + p({ forward: F - h })) / (h * h), 5);
      expect(g.vega).toBeCloseTo((p({ vol: vol + 1e-4 }) - p({ vol: vol - 1e-4 })) / 2e-4 / 100, 4);
      const day = 1 / 365;
      expect(g.theta).toBeCloseTo(((p({ years: T - day / 100 }) - p({ years: T + day / 100 })) / 2) * 100, 2);
    },
  );

  it('OpenAlgo’s documented optiongreeks example: NIFTY 26000 CE at 435 with the forward 25966.05, 28.5071 days, r 0', () => {
    const base = { forward: 25_966.05, strike: 26_000, years: 28.5071 / 365, rate: 0, type: 'CE' as const };
    const iv = impliedVol(435, base)!;
    expect(Number((iv * 100).toFixed(2))).toBeCloseTo(15.6, 1);
    const g = black76Greeks({ ...base, vol: iv });
    expect(g.delta).toBeCloseTo(0.4967, 3);
    expect(g.gamma).toBeCloseTo(0.000352, 6);
    expect(g.theta).toBeCloseTo(-7.919, 1);
    expect(g.vega).toBeCloseTo(28.9489, 1);
    expect(g.rho).toBeCloseTo(9.733994, 1);
  });
});

describe('implied volatility', () => {
  it.each([0.05, 0.156, 0.4, 1.2, 3])('recovers the volatility %d that priced the option', (vol) => {
    for (const type of ['CE', 'PE'] as const) {
      const i = { forward: 22_000, strike: 22_500, years: 20 / 365, rate: 0.065, type };
      const price = black76Price({ ...i, vol });
      expect(impliedVol(price, i)).toBeCloseTo(vol, 7);
    }
  });

  it('no volatility gives a price at or below intrinsic value, or above the upper bound', () => {
    const i = { forward: 110, strike: 100, years: 0.1, rate: 0, type: 'CE' as const };
    expect(impliedVol(9.99, i)).toBeUndefined();
    expect(impliedVol(110, i)).toBeUndefined();
  });
});
