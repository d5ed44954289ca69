/**
 * `POST /api/v1/optionsymbol`: the option `offset` strikes from the at-the-money one of an
 * underlying's chain, for one expiry. The ATM strike and the offset walk are the strategies'
 * batch-leg resolution (docs/rules/strategies.md#batch-leg-resolution), reused as it is: this
 * file only turns OpenAlgo's request into a derivative leg of rank 0 on the asked expiry.
 */
import type { Selectable } from 'kysely';
import type { StrategyLegsTable } from '../../db/schema-trading.js';
import { DERIVATIVE_EXCHANGES, UNDERLYING_EXCHANGES } from '../../domain/exchanges.js';
import type { OptionType } from '../../domain/instruments.js';
import { badRequest, notFound } from '../../platform/errors.js';
import { resolveDerivativeLeg, type ContractRow } from './derivative-leg.js';
import type { ContractsService } from './contracts.service.js';
import type { InstrumentEntry } from './instrument-index.js';
import { expiryLabel, parseExpiry } from './symbology.js';

export interface OptionSymbolRequest {
  underlying: string;
  exchange: string;
  expiry_date: string;
  offset: string;
  option_type: OptionType;
}

export interface OptionSymbolAnswer {
  status: 'success';
  symbol: string;
  exchange: string;
  lotsize: number;
  tick_size: number;
  freeze_qty: number | null;
  underlying_ltp: number;
}

export interface OptionSymbolDeps {
  contracts: Pick<ContractsService, 'get' | 'expiries' | 'searchFno'>;
  freezeQty(exchange: string, underlying: string): number | null;
  /** The last price of an instrument, undefined when none is known. */
  ltp(instrument: InstrumentEntry): Promise<number | undefined>;
}

/** A quoted, bounded echo of client input for a message. */
const shown = (s: string) => JSON.stringify(s.length > 24 ? `${s.slice(0, 24)}…` : s);

/** The derivative exchange whose options an underlying quoted on `exchange` has (NSE_INDEX → NFO). */
export function optionExchangeOf(exchange: string): string | undefined {
  if (DERIVATIVE_EXCHANGES.has(exchange)) return exchange;
  return Object.keys(UNDERLYING_EXCHANGES).find(
    (d) => d !== exchange && UNDERLYING_EXCHANGES[d]!.includes(exchange),
  );
}

/**
 * OpenAlgo's offset as a strike offset from ATM in ascending strike order: a call's ITM strikes
 * are below the price, a put's above; OTM the other way.
 */
export function strikeOffset(offset: string, type: OptionType): number {
  const o = offset.toUpperCase();
  if (o === 'ATM') return 0;
  const n = Number(o.slice(3));
  const below = o.startsWith('ITM') === (type === 'CE');
  return below ? -n : n;
}

export async function resolveOptionSymbol(
  req: OptionSymbolRequest,
  deps: OptionSymbolDeps,
): Promise<OptionSymbolAnswer> {
  const optionExchange = optionExchangeOf(req.exchange);
  if (!optionExchange)
    throw badRequest(
      `exchange ${req.exchange} has no options; use NSE_INDEX, NSE, BSE_INDEX, BSE or an F&O exchange`,
    );
  const expiryIso = parseExpiry(req.expiry_date);
  if (expiryIso === null)
    throw badRequest(`expiry_date ${shown(req.expiry_date)} is not a date such as 25AUG26`);
  const asked = req.underlying.trim().toUpperCase();
  // The price: a future named as the underlying (NIFTY25AUG26FUT on NFO), else the underlying
  // where it is quoted (the asked exchange first, then where the exchange's underlyings are).
  const priced = await deps.contracts.get(asked, req.exchange);
  const base = priced?.underlying ?? asked;
  const places = [req.exchange, ...(UNDERLYING_EXCHANGES[optionExchange] ?? [])];
  let ltp: number | undefined;
  for (const ex of priced ? [req.exchange] : places) {
    const inst = priced ?? (await deps.contracts.get(base, ex));
    if (!inst) continue;
    const p = await deps.ltp(inst);
    if (p !== undefined && p > 0) {
      ltp = p;
      break;
    }
  }
  const expiries = await deps.contracts.expiries({
    exchanges: [optionExchange],
    underlying: base,
    instrumentTypes: [req.option_type],
  });
  if (!expiries.includes(expiryIso))
    throw notFound(
      `No ${base} ${req.option_type} options expiring ${expiryLabel(expiryIso)} on ${optionExchange}` +
        (expiries.length ? ` (next: ${expiries.slice(0, 3).map(expiryLabel).join(', ')})` : ''),
    );
  if (ltp === undefined) throw notFound(`No price for ${base} on ${req.exchange}: the ATM strike is unknown`);
  const leg: Selectable<StrategyLegsTable> = {
    id: 0,
    strategy_id: 0,
    position: 0,
    leg_type: 'derivative',
    symbol: null,
    exchange: optionExchange,
    underlying: base,
    expiry_rank: 0,
    option_type: req.option_type,
    strike_offset: strikeOffset(req.offset, req.option_type),
    quantity: 1,
    quantity_unit: 'lots',
    side: null,
  };
  const found = new Map<string, InstrumentEntry>();
  const known = ltp;
  const resolved = await resolveDerivativeLeg(leg, {
    get: (symbol, exchange) => deps.contracts.get(symbol, exchange),
    // Rank 0 of this list is the asked expiry.
    expiries: async () => [expiryIso],
    async chain(f): Promise<ContractRow[]> {
      const r = await deps.contracts.searchFno(
        [],
        {
          exchanges: [f.exchange],
          instrumentTypes: [f.instrumentType],
          expiryDate: f.expiryDate,
          underlying: f.underlying,
          strikeMin: null,
          strikeMax: null,
        },
        5_000,
      );
      for (const row of r.rows) found.set(row.symbol, row);
      return r.rows;
    },
    underlyingLtp: async () => known,
  });
  if (!resolved.ok) throw badRequest(resolved.message);
  const inst = found.get(resolved.symbol) ?? (await deps.contracts.get(resolved.symbol, resolved.exchange));
  if (!inst) throw notFound(`${resolved.symbol} is not in the master contract on ${resolved.exchange}`);
  return {
    status: 'success',
    symbol: inst.symbol,
    exchange: inst.exchange,
    lotsize: inst.lotsize,
    tick_size: inst.tickSize,
    freeze_qty: deps.freezeQty(inst.exchange, base),
    underlying_ltp: ltp,
  };
}
