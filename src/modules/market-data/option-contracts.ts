/**
 * Options and underlyings from the master contract for the options routes
 * (docs/rules/market-data.md#option-chain, #option-greeks): the chain of one underlying and
 * expiry by strike, the underlying's instrument, and a greeks request's option, underlying and
 * expiry instant.
 */
import { DERIVATIVE_EXCHANGES, UNDERLYING_EXCHANGES } from '../../domain/exchanges.js';
import { OPTION_TYPES } from '../../domain/instruments.js';
import { badRequest, notFound } from '../../platform/errors.js';
import type { ContractsService } from '../market/contracts.service.js';
import type { Instrument } from '../market/instrument.js';
import { optionExchangeOf } from '../market/option-symbol.js';
import { expiryLabel, parseExpiry } from '../market/symbology.js';
import type { GreeksRequest, ResolvedOption } from './option-greeks.js';

/** The master contract lookups the options routes use. */
export type OptionContracts = Pick<ContractsService, 'get' | 'searchFno'>;

/** Expiry time of an option (IST, `HH:MM`) by exchange: the close of its last session. */
const EXPIRY_TIME: Readonly<Record<string, string>> = {
  NFO: '15:30',
  BFO: '15:30',
  CDS: '12:30',
  BCD: '12:30',
  MCX: '23:30',
};
const IST_OFFSET_MS = 330 * 60_000;

const shown = (s: string) => JSON.stringify(s.length > 24 ? `${s.slice(0, 24)}…` : s);

/** Epoch ms of `HH:MM` IST on the ISO date. */
function istInstant(iso: string, hhmm: string): number {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  const [h, mi] = hhmm.split(':').map(Number) as [number, number];
  return Date.UTC(y, m - 1, d, h, mi) - IST_OFFSET_MS;
}

/** The underlying's instrument: the asked exchange first, then where the option exchange's underlyings are. */
export async function underlyingOf(
  contracts: OptionContracts,
  underlying: string,
  exchange: string,
): Promise<Instrument> {
  const optionExchange = optionExchangeOf(exchange);
  const places = [exchange, ...(optionExchange ? (UNDERLYING_EXCHANGES[optionExchange] ?? []) : [])];
  for (const ex of places) {
    const inst = await contracts.get(underlying, ex);
    if (inst) return inst;
  }
  throw badRequest(`Underlying ${shown(underlying)} not found on ${exchange} in the master contract`);
}

/** Options of one underlying and expiry, by strike (ascending). */
export async function chainOf(
  contracts: OptionContracts,
  underlying: string,
  exchange: string,
  expiry: string,
) {
  const optionExchange = optionExchangeOf(exchange);
  if (!optionExchange) throw badRequest(`exchange ${exchange} has no options`);
  const iso = parseExpiry(expiry);
  if (iso === null) throw badRequest(`expiry_date ${shown(expiry)} is not a date such as 30DEC25`);
  const base = underlying.trim().toUpperCase();
  const found = await contracts.searchFno(
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

/** Resolves one greeks request: the option, its underlying (unless a forward is given), the expiry. */
export async function resolveOption(contracts: OptionContracts, req: GreeksRequest): Promise<ResolvedOption> {
  if (!DERIVATIVE_EXCHANGES.has(req.exchange)) throw badRequest(`exchange ${req.exchange} has no options`);
  const option = await contracts.get(req.symbol, req.exchange);
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
      underlying = await contracts.get(base, ex);
      if (underlying) break;
    }
    if (!underlying)
      throw badRequest(
        `Underlying ${shown(base)} not found on ${places.join(' or ')}; give underlying_symbol and underlying_exchange, or forward_price`,
      );
  }
  const expiryAt = istInstant(option.expiryDate, req.expiry_time ?? EXPIRY_TIME[option.exchange] ?? '15:30');
  return { option, underlying, expiryAt };
}
