/**
 * OpenAlgo's options data on `/api/v1`: optionchain, syntheticfuture, optiongreeks and
 * multioptiongreeks (docs/rules/market-data.md#option-chain, #option-greeks). Contracts come from
 * the master contract; prices from the user's broker session only (the sandbox has no chains).
 */
import type { Clock } from '../../platform/clock.js';
import { AppError, badRequest, notFound } from '../../platform/errors.js';
import type { MarketDataClient, MarketQuote } from '../brokers/quotes/quote-client.js';
import type { Instrument } from '../market/instrument.js';
import { brokerFailure, type BrokerDataSource } from './broker-data-source.js';
import { chainOf, resolveOption, underlyingOf, type OptionContracts } from './option-contracts.js';
import { greeksItem, round, type GreeksRequest } from './option-greeks.js';

export {
  optionGreeks,
  type GreeksAnswer,
  type GreeksItemAnswer,
  type GreeksRequest,
} from './option-greeks.js';

export interface OptionsDeps {
  contracts: OptionContracts;
  source: BrokerDataSource;
  clock: Clock;
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
    const chain = await chainOf(this.deps.contracts, req.underlying, req.exchange, req.expiry_date);
    const underlying = await underlyingOf(this.deps.contracts, chain.base, req.exchange);
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
    const chain = await chainOf(this.deps.contracts, req.underlying, req.exchange, req.expiry_date);
    const underlying = await underlyingOf(this.deps.contracts, chain.base, req.exchange);
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

  /** `optiongreeks`: IV and Greeks of one option from one batched quote of it and its underlying. */
  async optionGreeks(userId: number, req: GreeksRequest) {
    const r = await resolveOption(this.deps.contracts, req);
    const client = await this.client(userId, 'Option greeks');
    const quotes = await this.quotes(client, r.underlying ? [r.option, r.underlying] : [r.option]);
    const out = greeksItem(req, r, quotes, this.deps.clock.now());
    if (!out.ok) throw (out.status === 404 ? notFound : badRequest)(out.message);
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
        resolveOption(this.deps.contracts, i).then(
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
      const out = x.ok ? greeksItem(item, x.r, quotes, this.deps.clock.now()) : x;
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
