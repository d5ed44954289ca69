/**
 * Resolves a leg — an instrument, or a derivative of an underlying by expiry rank and strike
 * offset — to a concrete contract: a fact of the market's contracts, used by a strategy's batch
 * start (docs/rules/strategies.md#batch-leg-resolution) and by the option-symbol lookup
 * (option-symbol.ts):
 * - an instrument leg is itself (a quantity in lots is multiplied by the lot size);
 * - a derivative leg takes the expiry of its rank among the underlying's future expiries (a
 *   nearer one, with a `leg_expiry_fallback` warning, when the rank is unavailable), then the
 *   future, or the option whose strike is `strike_offset` strikes from the one nearest the
 *   underlying's last price (ATM).
 */

/** What a leg says of its contract (a strategy leg's columns, as stored). */
export interface LegSpec {
  leg_type: string;
  symbol: string | null;
  exchange: string;
  quantity: number;
  quantity_unit: string;
  underlying: string | null;
  option_type: string | null;
  expiry_rank: number | null;
  strike_offset: number | null;
}

export interface ContractRow {
  symbol: string;
  exchange: string;
  lotsize: number;
  strike: number | null;
  expiryDate: string | null;
}

export interface DerivativeContract {
  get(symbol: string, exchange: string): Promise<ContractRow | undefined>;
  /** Future expiries (ISO, ascending) of the underlying's contracts of these types. */
  expiries(f: {
    exchanges: string[];
    underlying: string | null;
    instrumentTypes: string[];
  }): Promise<string[]>;
  /** Every contract of the underlying, type and expiry (an option chain side), any order. */
  chain(f: {
    exchange: string;
    underlying: string;
    instrumentType: string;
    expiryDate: string;
  }): Promise<ContractRow[]>;
  /**
   * The underlying's last price, undefined when no quote is available. For a live run (`live`)
   * only a market price: never the sandbox's simulated demo prices.
   */
  underlyingLtp(underlying: string, exchange: string, live?: boolean): Promise<number | undefined>;
}

export type Resolved =
  | { ok: true; symbol: string; exchange: string; quantity: number; fallback?: string }
  | { ok: false; message: string };

export async function resolveDerivativeLeg(
  leg: LegSpec,
  c: DerivativeContract,
  live = false,
): Promise<Resolved> {
  if (leg.leg_type !== 'derivative') {
    const symbol = leg.symbol!;
    if (leg.quantity_unit !== 'lots')
      return { ok: true, symbol, exchange: leg.exchange, quantity: leg.quantity };
    const inst = await c.get(symbol, leg.exchange);
    if (!inst) return { ok: false, message: `${symbol} is not in the master contract on ${leg.exchange}` };
    return { ok: true, symbol, exchange: leg.exchange, quantity: leg.quantity * inst.lotsize };
  }
  const underlying = leg.underlying!;
  const type = leg.option_type!;
  const expiries = await c.expiries({ exchanges: [leg.exchange], underlying, instrumentTypes: [type] });
  if (expiries.length === 0)
    return { ok: false, message: `No ${underlying} ${type} contract on ${leg.exchange}` };
  const rank = leg.expiry_rank ?? 0;
  const used = Math.min(rank, expiries.length - 1);
  const expiryDate = expiries[used]!;
  const fallback =
    used < rank
      ? `Expiry rank ${rank} of ${underlying} ${type} is unavailable (${expiries.length} listed); used ${expiryDate} (rank ${used})`
      : undefined;
  const chain = await c.chain({ exchange: leg.exchange, underlying, instrumentType: type, expiryDate });
  let pick: ContractRow | undefined;
  if (type === 'FUT') {
    pick = chain[0];
  } else {
    const strikes = chain.filter((r) => r.strike !== null).sort((a, b) => a.strike! - b.strike!);
    if (strikes.length === 0)
      return { ok: false, message: `No ${underlying} ${type} strikes for ${expiryDate}` };
    const ltp = await c.underlyingLtp(underlying, leg.exchange, live);
    if (ltp === undefined) return { ok: false, message: `No price for ${underlying}: ATM strike unknown` };
    let atm = 0;
    for (let i = 1; i < strikes.length; i++) {
      if (Math.abs(strikes[i]!.strike! - ltp) < Math.abs(strikes[atm]!.strike! - ltp)) atm = i;
    }
    const at = atm + (leg.strike_offset ?? 0);
    if (at < 0 || at >= strikes.length) {
      return {
        ok: false,
        message: `Strike offset ${leg.strike_offset} from ATM ${strikes[atm]!.strike} is outside the chain`,
      };
    }
    pick = strikes[at];
  }
  if (!pick) return { ok: false, message: `No ${underlying} ${type} contract for ${expiryDate}` };
  return {
    ok: true,
    symbol: pick.symbol,
    exchange: pick.exchange,
    quantity: leg.quantity * pick.lotsize,
    ...(fallback ? { fallback } : {}),
  };
}
