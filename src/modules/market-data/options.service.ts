/**
 * OpenAlgo's options data on `/api/v1`: optionchain, syntheticfuture, optiongreeks and
 * multioptiongreeks (docs/rules/market-data.md#option-chain, #option-greeks). Contracts come from
 * the master contract; prices from the user's broker session only (the sandbox has no chains).
 */
import type { Clock } from '../../platform/clock.js';
import { DERIVATIVE_EXCHANGES, UNDERLYING_EXCHANGES } from '../../domain/exchanges.js';
import { OPTION_TYPES } from '../../domain/instruments.js';
import { AppError, badRequest, notFound } from '../../platform/errors.js';
import type { MarketDataClient, MarketQuote } from '../brokers/quotes/quote-client.js';
import type { ContractsService } from '../market/contracts.service.js';
import type { Instrument } from '../market/instrument.js';
import { optionExchangeOf } from '../market/option-symbol.js';
import { expiryLabel, parseExpiry } from '../market/symbology.js';
import { black76Greeks, impliedVol, type Greeks, type OptionType } from './black76.js';
import { brokerFailure, type BrokerDataSource } from './broker-data-source.js';

export interface OptionsDeps {
  contracts: Pick<ContractsService, 'get' | 'searchFno'>;
  source: BrokerDataSource;
  clock: Clock;
}

/** Expiry time of an option (IST, `HH:MM`) by exchange: the close of its last session. */
const EXPIRY_TIME: Readonly<Record<string, string>> = {
  NFO: '15:30',
  BFO: '15:30',
  CDS: '12:30',
  BCD: '12:30',
  MCX: '23:30',
};
const IST_OFFSET_MS = 330 * 60_000;
const DAY_MS = 86_400_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const round = (v: number, places: number) => Number(v.toFixed(places));
const shown = (s: string) => JSON.stringify(s.length > 24 ? `${s.slice(0, 24)}…` : s);

/** `2025-11-25` → `25-Nov-2025` (OpenAlgo's optiongreeks `expiry_date`). */
function longExpiry(iso: string): string {
  const [y, m, d] = iso.split('-');
  return `${d}-${MONTHS[Number(m) - 1]}-${y}`;
}

/** Epoch ms of `HH:MM` IST on the ISO date. */
function istInstant(iso: string, hhmm: string): number {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  const [h, mi] = hhmm.split(':').map(Number) as [number, number];
  return Date.UTC(y, m - 1, d, h, mi) - IST_OFFSET_MS;
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

/** One option's chain entry (OpenAlgo's optionchain fields). */
export interface ChainOption {
  symbol: string;
  label: string;
  ltp: number;
  bid: number;
  ask: number;
  open: number;
  high: number;
  low: number;
  prev_close: number;
  volume: number;
  oi: number;
  lotsize: number;
  tick_size: number;
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

export class OptionsService {
  constructor(private readonly deps: OptionsDeps) {}

  private async client(userId: number, what: string): Promise<MarketDataClient> {
    const src = await this.deps.source.forUser(userId, what, false);
    if (src.kind !== 'broker') throw new Error('unreachable: options data never answers from the sandbox');
    return src.client;
  }

  private async quotes(
    client: MarketDataClient,
    list: readonly Instrument[],
  ): Promise<Map<string, MarketQuote>> {
    return client.marketQuotes(list).catch((err: unknown) => {
      throw brokerFailure(err);
    });
  }

  /** The underlying's instrument: the asked exchange first, then where the option exchange's underlyings are. */
  private async underlyingOf(underlying: string, exchange: string): Promise<Instrument> {
    const optionExchange = optionExchangeOf(exchange);
    const places = [exchange, ...(optionExchange ? (UNDERLYING_EXCHANGES[optionExchange] ?? []) : [])];
    for (const ex of places) {
      const inst = await this.deps.contracts.get(underlying, ex);
      if (inst) return inst;
    }
    throw badRequest(`Underlying ${shown(underlying)} not found on ${exchange} in the master contract`);
  }

  /** Options of one underlying and expiry, by strike (ascending). */
  private async chainOf(underlying: string, exchange: string, expiry: string) {
    const optionExchange = optionExchangeOf(exchange);
    if (!optionExchange) throw badRequest(`exchange ${exchange} has no options`);
    const iso = parseExpiry(expiry);
    if (iso === null) throw badRequest(`expiry_date ${shown(expiry)} is not a date such as 30DEC25`);
    const base = underlying.trim().toUpperCase();
    const found = await this.deps.contracts.searchFno(
      [],
      {
        exchanges: [optionExchange],
        instrumentTypes: [...OPTION_TYPES],
        expiryDate: iso,
        underlying: base,
        strikeMin: null,
        strikeMax: null,
      },
      10_000,
    );
    const byStrike = new Map<number, { ce?: Instrument; pe?: Instrument }>();
    for (const row of found.rows) {
      if (row.strike === null) continue;
      const entry = byStrike.get(row.strike) ?? {};
      if (row.instrumenttype === 'CE') entry.ce = row;
      else if (row.instrumenttype === 'PE') entry.pe = row;
      byStrike.set(row.strike, entry);
    }
    if (byStrike.size === 0)
      throw notFound(`No ${base} options expiring ${expiryLabel(iso)} on ${optionExchange}`);
    const strikes = [...byStrike.keys()].sort((a, b) => a - b);
    return { base, iso, strikes, byStrike };
  }

  /** The strike nearest `ltp` (the lower one on a tie). */
  private static atm(strikes: readonly number[], ltp: number): number {
    let best = strikes[0]!;
    for (const s of strikes) if (Math.abs(s - ltp) < Math.abs(best - ltp)) best = s;
    return best;
  }

  private async underlyingLtp(client: MarketDataClient, inst: Instrument): Promise<number> {
    const q = (await this.quotes(client, [inst])).get(`${inst.exchange}:${inst.symbol}`);
    if (!q || q.ltp <= 0)
      throw notFound(`No price for ${inst.symbol} on ${inst.exchange}: the ATM strike is unknown`);
    return q.ltp;
  }

  /**
   * `optionchain`: the ATM strike from the underlying's quote, `strike_count` strikes either side
   * (all without it), each strike's CE and PE quoted in one batched call.
   */
  async optionChain(
    userId: number,
    req: { underlying: string; exchange: string; expiry_date: string; strike_count?: number },
  ) {
    const chain = await this.chainOf(req.underlying, req.exchange, req.expiry_date);
    const underlying = await this.underlyingOf(chain.base, req.exchange);
    const client = await this.client(userId, 'The option chain');
    const ltp = await this.underlyingLtp(client, underlying);
    const atm = OptionsService.atm(chain.strikes, ltp);
    const at = chain.strikes.indexOf(atm);
    const n = req.strike_count ?? chain.strikes.length;
    const strikes = chain.strikes.slice(Math.max(0, at - n), at + n + 1);
    const wanted = strikes.flatMap((s) => {
      const e = chain.byStrike.get(s)!;
      return [e.ce, e.pe].filter((i): i is Instrument => i !== undefined);
    });
    const quotes = await this.quotes(client, wanted);
    const entry = (inst: Instrument | undefined, steps: number): ChainOption | null => {
      if (!inst) return null;
      const q = quotes.get(`${inst.exchange}:${inst.symbol}`);
      const below = inst.instrumenttype === 'CE' ? steps < 0 : steps > 0;
      const label = steps === 0 ? 'ATM' : `${below ? 'ITM' : 'OTM'}${Math.abs(steps)}`;
      return {
        symbol: inst.symbol,
        label,
        ltp: q?.ltp ?? 0,
        bid: q?.bids[0]?.price ?? 0,
        ask: q?.asks[0]?.price ?? 0,
        open: q?.open ?? 0,
        high: q?.high ?? 0,
        low: q?.low ?? 0,
        prev_close: q?.prevClose ?? 0,
        volume: q?.volume ?? 0,
        oi: q?.oi ?? 0,
        lotsize: inst.lotsize,
        tick_size: inst.tickSize,
      };
    };
    return {
      status: 'success' as const,
      underlying: chain.base,
      underlying_ltp: ltp,
      expiry_date: req.expiry_date.toUpperCase(),
      atm_strike: atm,
      chain: strikes.map((s) => {
        const e = chain.byStrike.get(s)!;
        const steps = chain.strikes.indexOf(s) - at;
        return { strike: s, ce: entry(e.ce, steps), pe: entry(e.pe, steps) };
      }),
    };
  }

  /** `syntheticfuture`: ATM strike + ATM call − ATM put (put-call parity). */
  async syntheticFuture(userId: number, req: { underlying: string; exchange: string; expiry_date: string }) {
    const chain = await this.chainOf(req.underlying, req.exchange, req.expiry_date);
    const underlying = await this.underlyingOf(chain.base, req.exchange);
    const client = await this.client(userId, 'The synthetic future');
    const ltp = await this.underlyingLtp(client, underlying);
    // The ATM strike that has both a call and a put.
    const both = chain.strikes.filter((s) => chain.byStrike.get(s)!.ce && chain.byStrike.get(s)!.pe);
    if (both.length === 0) throw notFound(`No strike of ${chain.base} has both a call and a put`);
    const atm = OptionsService.atm(both, ltp);
    const { ce, pe } = chain.byStrike.get(atm)! as { ce: Instrument; pe: Instrument };
    const quotes = await this.quotes(client, [ce, pe]);
    const c = quotes.get(`${ce.exchange}:${ce.symbol}`);
    const p = quotes.get(`${pe.exchange}:${pe.symbol}`);
    if (!c || !p) throw notFound(`The broker returned no quote for ${!c ? ce.symbol : pe.symbol}`);
    return {
      status: 'success' as const,
      underlying: chain.base,
      underlying_ltp: ltp,
      expiry: req.expiry_date.toUpperCase(),
      atm_strike: atm,
      synthetic_future_price: round(atm + c.ltp - p.ltp, 2),
    };
  }

  /** Resolves one greeks request: the option, its underlying (unless a forward is given), the expiry. */
  private async resolve(req: GreeksRequest) {
    if (!DERIVATIVE_EXCHANGES.has(req.exchange)) throw badRequest(`exchange ${req.exchange} has no options`);
    const option = await this.deps.contracts.get(req.symbol, req.exchange);
    if (!option)
      throw badRequest(`Symbol ${req.symbol} not found on exchange ${req.exchange} in the master contract`);
    if (option.instrumenttype !== 'CE' && option.instrumenttype !== 'PE')
      throw badRequest(`${req.symbol} is not an option (CE or PE)`);
    if (option.strike === null || option.expiryDate === null)
      throw badRequest(`${req.symbol} has no strike or expiry in the master contract`);
    let underlying: Instrument | undefined;
    if (req.forward_price === undefined) {
      const base = req.underlying_symbol?.toUpperCase() ?? option.underlying ?? option.name;
      const places = req.underlying_exchange
        ? [req.underlying_exchange]
        : [...(UNDERLYING_EXCHANGES[option.exchange] ?? [])];
      for (const ex of places) {
        underlying = await this.deps.contracts.get(base, ex);
        if (underlying) break;
      }
      if (!underlying)
        throw badRequest(
          `Underlying ${shown(base)} not found on ${places.join(' or ')}; give underlying_symbol and underlying_exchange, or forward_price`,
        );
    }
    const expiryAt = istInstant(
      option.expiryDate,
      req.expiry_time ?? EXPIRY_TIME[option.exchange] ?? '15:30',
    );
    return { option, underlying, expiryAt };
  }

  private compute(
    req: GreeksRequest,
    r: Awaited<ReturnType<OptionsService['resolve']>>,
    quotes: ReadonlyMap<string, MarketQuote>,
  ): ItemResult {
    const { option, underlying, expiryAt } = r;
    const optionQuote = quotes.get(`${option.exchange}:${option.symbol}`);
    if (!optionQuote || optionQuote.ltp <= 0)
      return { ok: false, status: 404, message: `No price for ${option.symbol}` };
    const forward =
      req.forward_price ?? (underlying ? quotes.get(`${underlying.exchange}:${underlying.symbol}`)?.ltp : 0);
    if (!forward || forward <= 0)
      return { ok: false, status: 404, message: `No price for the underlying of ${option.symbol}` };
    const msLeft = expiryAt - this.deps.clock.now();
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

  /** `optiongreeks`: IV and Greeks of one option from one batched quote of it and its underlying. */
  async optionGreeks(userId: number, req: GreeksRequest) {
    const r = await this.resolve(req);
    const client = await this.client(userId, 'Option greeks');
    const quotes = await this.quotes(client, r.underlying ? [r.option, r.underlying] : [r.option]);
    const out = this.compute(req, r, quotes);
    if (!out.ok)
      throw new AppError(out.status, out.status === 404 ? 'not_found' : 'bad_request', out.message);
    return { status: 'success' as const, ...out.answer };
  }

  /**
   * `multioptiongreeks`: 1–50 options, every option and underlying quoted in one batched call;
   * an item that fails is an error item, never a failure of the whole call.
   */
  async multiOptionGreeks(
    userId: number,
    req: { symbols: GreeksRequest[]; interest_rate?: number; expiry_time?: string },
  ) {
    const items = req.symbols.map((s) => ({
      ...s,
      ...(req.interest_rate !== undefined ? { interest_rate: req.interest_rate } : {}),
      ...(req.expiry_time !== undefined ? { expiry_time: req.expiry_time } : {}),
    }));
    const resolved = await Promise.all(
      items.map((i) =>
        this.resolve(i).then(
          (r) => ({ ok: true as const, r }),
          (err: unknown) => {
            if (err instanceof AppError)
              return { ok: false as const, status: err.statusCode, message: err.message };
            throw err;
          },
        ),
      ),
    );
    const client = await this.client(userId, 'Option greeks');
    const list = new Map<string, Instrument>();
    for (const x of resolved)
      if (x.ok) for (const i of [x.r.option, x.r.underlying]) if (i) list.set(`${i.exchange}:${i.symbol}`, i);
    const quotes = await this.quotes(client, [...list.values()]);
    const data = items.map((item, n) => {
      const x = resolved[n]!;
      const out = x.ok ? this.compute(item, x.r, quotes) : x;
      return out.ok
        ? { status: 'success' as const, ...out.answer }
        : { status: 'error' as const, symbol: item.symbol, exchange: item.exchange, message: out.message };
    });
    const success = data.filter((d) => d.status === 'success').length;
    return {
      status: 'success' as const,
      data,
      summary: { total: data.length, success, failed: data.length - success },
    };
  }
}
