/**
 * Black-76: prices, Greeks and implied volatility of European options on a forward (the future,
 * or the spot carried forward), as OpenAlgo's optiongreeks documents them
 * (docs/rules/market-data.md#option-greeks). Pure functions, no I/O.
 *
 * Units of the Greeks, as OpenAlgo answers them: delta and gamma per rupee of the forward, theta
 * per calendar day (365 a year), vega per volatility point (1 %), rho per rate point (1 %), taken
 * as `K·T·e^(-rT)·N(d2)` (`-K·T·e^(-rT)·N(-d2)` for a put), OpenAlgo's figure.
 */
import type { OptionType } from '../../domain/instruments.js';

export type { OptionType };

export interface Black76Input {
  /** Forward (future) price. */
  forward: number;
  strike: number;
  /** Time to expiry in years (> 0). */
  years: number;
  /** Continuously compounded rate as a decimal (0.07 for 7 %). */
  rate: number;
  /** Volatility as a decimal (0.156 for 15.6 %). */
  vol: number;
  type: OptionType;
}

export interface Greeks {
  delta: number;
  gamma: number;
  theta: number;
  vega: number;
  rho: number;
}

/**
 * The standard normal distribution function to double precision (Hart's algorithm as given by
 * West, "Better approximations to cumulative normal functions", 2005).
 */
export function normCdf(x: number): number {
  const z = Math.abs(x);
  let c: number;
  if (z > 37) c = 0;
  else {
    const e = Math.exp((-z * z) / 2);
    if (z < 7.07106781186547) {
      let n = 3.52624965998911e-2 * z + 0.700383064443688;
      n = n * z + 6.37396220353165;
      n = n * z + 33.912866078383;
      n = n * z + 112.079291497871;
      n = n * z + 221.213596169931;
      n = n * z + 220.206867912376;
      let d = 8.83883476483184e-2 * z + 1.75566716318264;
      d = d * z + 16.064177579207;
      d = d * z + 86.7807322029461;
      d = d * z + 296.564248779674;
      d = d * z + 637.333633378831;
      d = d * z + 793.826512519948;
      d = d * z + 440.413735824752;
      c = (e * n) / d;
    } else {
      let d = z + 0.65;
      d = z + 4 / d;
      d = z + 3 / d;
      d = z + 2 / d;
      d = z + 1 / d;
      c = e / d / 2.506628274631;
    }
  }
  return x > 0 ? 1 - c : c;
}

/** The standard normal density. */
export function normPdf(x: number): number {
  return Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI);
}

function d1d2(i: Black76Input): { d1: number; d2: number; sd: number } {
  const sd = i.vol * Math.sqrt(i.years);
  const d1 = (Math.log(i.forward / i.strike) + (i.vol * i.vol * i.years) / 2) / sd;
  return { d1, d2: d1 - sd, sd };
}

/** The option's discounted value under Black-76. */
export function black76Price(i: Black76Input): number {
  const df = Math.exp(-i.rate * i.years);
  const { d1, d2 } = d1d2(i);
  return i.type === 'CE'
    ? df * (i.forward * normCdf(d1) - i.strike * normCdf(d2))
    : df * (i.strike * normCdf(-d2) - i.forward * normCdf(-d1));
}

/** Delta, gamma, theta (per day), vega and rho (per 1 %) under Black-76; see the file comment. */
export function black76Greeks(i: Black76Input): Greeks {
  const { forward: F, strike: K, years: T, rate: r, vol } = i;
  const df = Math.exp(-r * T);
  const { d1, d2, sd } = d1d2(i);
  const pdf = normPdf(d1);
  const call = i.type === 'CE';
  const decay = (-df * F * pdf * vol) / (2 * Math.sqrt(T));
  const theta = call
    ? decay - r * K * df * normCdf(d2) + r * F * df * normCdf(d1)
    : decay + r * K * df * normCdf(-d2) - r * F * df * normCdf(-d1);
  return {
    delta: call ? df * normCdf(d1) : -df * normCdf(-d1),
    gamma: (df * pdf) / (F * sd),
    theta: theta / 365,
    vega: (df * F * pdf * Math.sqrt(T)) / 100,
    rho: ((call ? 1 : -1) * K * T * df * normCdf(call ? d2 : -d2)) / 100,
  };
}

/** Bounds of the implied-volatility search (0.01 % to 500 %). */
export const MIN_VOL = 1e-4;
export const MAX_VOL = 5;

/**
 * The volatility at which Black-76 gives `price`: Newton steps kept inside a bracket that
 * bisection narrows whenever a step would leave it (or vega vanishes), to 1e-10 in volatility.
 * Undefined when no volatility in [{@link MIN_VOL}, {@link MAX_VOL}] gives the price: a price
 * at or below the discounted intrinsic value, or above what 500 % would give.
 */
export function impliedVol(price: number, i: Omit<Black76Input, 'vol'>): number | undefined {
  const at = (vol: number) => black76Price({ ...i, vol }) - price;
  let lo = MIN_VOL;
  let hi = MAX_VOL;
  const fLo = at(lo);
  const fHi = at(hi);
  if (!(fLo < 0 && fHi > 0)) return fLo === 0 ? lo : fHi === 0 ? hi : undefined;
  let vol = 0.2;
  for (let n = 0; n < 100; n++) {
    const f = at(vol);
    if (Math.abs(f) < 1e-9) return vol;
    if (f < 0) lo = vol;
    else hi = vol;
    const vega = black76Greeks({ ...i, vol }).vega * 100;
    let next = vega > 1e-12 ? vol - f / vega : NaN;
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    if (Math.abs(next - vol) < 1e-10) return next;
    vol = next;
  }
  return vol;
}
