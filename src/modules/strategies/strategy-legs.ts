/**
 * Strategy legs as the management routes accept them, checked and turned into rows.
 *
 * - A signal leg names an instrument (`symbol` + `exchange`) and a quantity in units or lots.
 * - A batch leg is either the same plus a `side`, or a derivative leg described by `underlying`,
 *   `exchange`, `expiry_rank` (0 = current, 1 = next, …; or the words), `option_type`
 *   (`CE`/`PE`/`FUT`), `strike_offset` (ATM ± strikes, options only), `quantity` in lots and
 *   `side`, resolved to a contract at run start.
 * An instrument leg is checked against the master contract when the contract holds rows for its
 * exchange (the test of docs/rules/strategies.md#signal-contract-at-signal-time, applied at
 * configuration time as well as at signal time).
 */
import type { DerivativeType } from '../../domain/instruments.js';
import { badRequest } from '../../platform/errors.js';
import type { NewLeg } from './strategies.repository.js';
import type { StrategyKind } from './strategy.types.js';
import { FNO_ORDER_EXCHANGES } from '../../domain/exchanges.js';
import type { Action } from '../../domain/orders.js';

export interface LegInput {
  symbol?: string | undefined;
  exchange: string;
  quantity: number;
  quantity_unit?: 'units' | 'lots' | undefined;
  side?: Action | undefined;
  underlying?: string | undefined;
  expiry_rank?: number | string | undefined;
  option_type?: DerivativeType | undefined;
  strike_offset?: number | undefined;
}

export interface InstrumentCheck {
  get(symbol: string, exchange: string): Promise<{ lotsize: number } | undefined>;
  hasExchange(exchange: string): Promise<boolean>;
  /** Future expiries of an underlying's contracts (a derivative leg needs at least one). */
  expiries?(f: {
    exchanges: string[];
    underlying: string | null;
    instrumentTypes: string[];
  }): Promise<string[]>;
}

const EXPIRY_WORDS: Record<string, number> = { current: 0, next: 1, far: 2 };
export const MAX_LEGS = 20;

function expiryRank(raw: number | string | undefined, at: string): number {
  if (raw === undefined) return 0;
  const n = typeof raw === 'string' ? EXPIRY_WORDS[raw.trim().toLowerCase()] : raw;
  if (n === undefined || !Number.isInteger(n) || n < 0 || n > 5) {
    throw badRequest(`${at}.expiry_rank must be 0-5 or current/next/far`, {
      [`${at}.expiry_rank`]: ['Must be 0-5 or current/next/far.'],
    });
  }
  return n;
}

/** Checks the legs of a strategy of `kind`; throws a 400 naming the first bad field. */
export async function checkLegs(
  kind: StrategyKind,
  legs: LegInput[],
  contract: InstrumentCheck,
): Promise<NewLeg[]> {
  if (legs.length === 0)
    throw badRequest('A strategy needs at least one leg', { legs: ['At least one leg.'] });
  if (legs.length > MAX_LEGS)
    throw badRequest(`At most ${MAX_LEGS} legs`, { legs: [`At most ${MAX_LEGS}.`] });
  const out: NewLeg[] = [];
  for (const [i, leg] of legs.entries()) {
    const at = `legs[${i}]`;
    const bad = (field: string, message: string) =>
      badRequest(`${at}.${field}: ${message}`, { [`${at}.${field}`]: [message] });
    const exchange = leg.exchange.trim().toUpperCase();
    if (!Number.isInteger(leg.quantity) || leg.quantity < 1)
      throw bad('quantity', 'Must be a positive integer.');
    if (kind === 'batch' && leg.side === undefined)
      throw bad('side', 'Required on a batch leg (BUY or SELL).');
    if (kind === 'signal' && leg.side !== undefined)
      throw bad('side', 'Signal legs take their side from the signal.');
    if (leg.underlying !== undefined) {
      if (kind !== 'batch') throw bad('underlying', 'Derivative legs belong to batch strategies.');
      if (leg.symbol !== undefined) throw bad('symbol', 'Give either symbol or underlying, not both.');
      if (!FNO_ORDER_EXCHANGES.has(exchange))
        throw bad('exchange', `A derivative leg needs one of ${[...FNO_ORDER_EXCHANGES].join(', ')}.`);
      const optionType = leg.option_type;
      if (optionType === undefined) throw bad('option_type', 'Required: CE, PE or FUT.');
      if (optionType === 'FUT' && leg.strike_offset !== undefined)
        throw bad('strike_offset', 'Futures have no strike.');
      const underlying = leg.underlying.trim().toUpperCase();
      if (!/^[A-Z0-9&_-]{1,40}$/.test(underlying)) throw bad('underlying', 'Not an underlying symbol.');
      if (contract.expiries && (await contract.hasExchange(exchange))) {
        const listed = await contract.expiries({
          exchanges: [exchange],
          underlying,
          instrumentTypes: [optionType],
        });
        if (listed.length === 0) {
          throw bad(
            'underlying',
            `No ${underlying} ${optionType} contract on ${exchange} in the master contract.`,
          );
        }
      }
      out.push({
        position: i,
        leg_type: 'derivative',
        symbol: null,
        exchange,
        underlying,
        expiry_rank: expiryRank(leg.expiry_rank, at),
        option_type: optionType,
        strike_offset: optionType === 'FUT' ? null : (leg.strike_offset ?? 0),
        quantity: leg.quantity,
        quantity_unit: 'lots',
        side: leg.side ?? null,
      });
      continue;
    }
    if (leg.symbol === undefined || leg.symbol.trim() === '')
      throw bad('symbol', 'Required (or underlying for a derivative leg).');
    const symbol = leg.symbol.trim().toUpperCase();
    if (await contract.hasExchange(exchange)) {
      if ((await contract.get(symbol, exchange)) === undefined) {
        throw bad('symbol', `${symbol} is not a contract on ${exchange} in the master contract.`);
      }
    }
    out.push({
      position: i,
      leg_type: 'instrument',
      symbol,
      exchange,
      underlying: null,
      expiry_rank: null,
      option_type: null,
      strike_offset: null,
      quantity: leg.quantity,
      quantity_unit: leg.quantity_unit ?? 'units',
      side: leg.side ?? null,
    });
  }
  return out;
}
