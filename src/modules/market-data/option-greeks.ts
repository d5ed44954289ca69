/**
 * Option greeks as OpenAlgo answers them (docs/rules/market-data.md#option-greeks): IV and Greeks
 * of an option at its price, rounded as OpenAlgo rounds them, and one optiongreeks item from the
 * option's resolved contract and the batched quotes. The contracts are looked up in
 * option-contracts.ts; the broker is asked in options.service.ts.
 */
import type { MarketQuote } from '../brokers/quotes/quote-client.js';
import type { Instrument } from '../market/instrument.js';
import { black76Greeks, impliedVol, type Greeks, type OptionType } from './black76.js';

const DAY_MS = 86_400_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `v` rounded to `places` decimals. */
export const round = (v: number, places: number) => Number(v.toFixed(places));

/** `2025-11-25` → `25-Nov-2025` (OpenAlgo's optiongreeks `expiry_date`). */
function longExpiry(iso: string): string {
  const [y, m, d] = iso.split('-');
  return `${d}-${MONTHS[Number(m) - 1]}-${y}`;
}

/** An option's greeks as OpenAlgo rounds them; IV in percent. */
export interface GreeksAnswer {
  implied_volatility: number;
  greeks: Greeks;
}

/**
 * IV and Greeks of an option at `price` on the forward `forward`
 * (docs/rules/market-data.md#option-greeks). A price at or below intrinsic value (no time value)
 * has no implied volatility: IV 0 and the Greeks of expiry (delta ±1 in the money, else 0).
 */
export function optionGreeks(
  price: number,
  i: { forward: number; strike: number; years: number; rate: number; type: OptionType },
): GreeksAnswer {
  const iv = impliedVol(price, i);
  if (iv === undefined) {
    const itm = i.type === 'CE' ? i.forward > i.strike : i.forward < i.strike;
    const df = Math.exp(-i.rate * i.years);
    return {
      implied_volatility: 0,
      greeks: { delta: itm ? (i.type === 'CE' ? df : -df) : 0, gamma: 0, theta: 0, vega: 0, rho: 0 },
    };
  }
  const g = black76Greeks({ ...i, vol: iv });
  return {
    implied_volatility: round(iv * 100, 2),
    greeks: {
      delta: round(g.delta, 4),
      gamma: round(g.gamma, 6),
      theta: round(g.theta, 4),
      vega: round(g.vega, 4),
      rho: round(g.rho, 6),
    },
  };
}
export interface GreeksRequest {
  symbol: string;
  exchange: string;
  interest_rate?: number;
  underlying_symbol?: string;
  underlying_exchange?: string;
  forward_price?: number;
  expiry_time?: string;
}

/** One option's answer (OpenAlgo's optiongreeks fields less `status`). */
export interface GreeksItemAnswer extends GreeksAnswer {
  symbol: string;
  exchange: string;
  underlying: string;
  strike: number;
  option_type: OptionType;
  expiry_date: string;
  days_to_expiry: number;
  spot_price: number;
  option_price: number;
  interest_rate: number;
}

type ItemResult = { ok: true; answer: GreeksItemAnswer } | { ok: false; message: string; status: number };

/** A greeks request's contracts: the option, its underlying (none when a forward is given), the expiry. */
export interface ResolvedOption {
  option: Instrument;
  underlying: Instrument | undefined;
  /** The option's expiry, epoch ms. */
  expiryAt: number;
}

/** One optiongreeks item from the resolved request and the quotes, at `now` (epoch ms). */
export function greeksItem(
  req: GreeksRequest,
  r: ResolvedOption,
  quotes: ReadonlyMap<string, MarketQuote>,
  now: number,
): ItemResult {
  const { option, underlying, expiryAt } = r;
  const optionQuote = quotes.get(`${option.exchange}:${option.symbol}`);
  if (!optionQuote || optionQuote.ltp <= 0)
    return { ok: false, status: 404, message: `No price for ${option.symbol}` };
  const forward =
    req.forward_price ?? (underlying ? quotes.get(`${underlying.exchange}:${underlying.symbol}`)?.ltp : 0);
  if (!forward || forward <= 0)
    return { ok: false, status: 404, message: `No price for the underlying of ${option.symbol}` };
  const msLeft = expiryAt - now;
  if (msLeft <= 0) return { ok: false, status: 400, message: `${option.symbol} has expired` };
  const rate = req.interest_rate ?? 0;
  const type = option.instrumenttype as OptionType;
  const g = optionGreeks(optionQuote.ltp, {
    forward,
    strike: option.strike!,
    years: msLeft / DAY_MS / 365,
    rate: rate / 100,
    type,
  });
  return {
    ok: true,
    answer: {
      symbol: option.symbol,
      exchange: option.exchange,
      underlying: underlying?.symbol ?? option.underlying ?? option.name,
      strike: option.strike!,
      option_type: type,
      expiry_date: longExpiry(option.expiryDate!),
      days_to_expiry: round(msLeft / DAY_MS, 4),
      spot_price: forward,
      option_price: optionQuote.ltp,
      interest_rate: rate,
      ...g,
    },
  };
}
