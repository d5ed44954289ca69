import type { Instrument, MasterContractFormat, ParsedItem } from '../instrument.js';
import type { DerivativeType } from '../../../domain/instruments.js';
import { indexSymbol } from '../symbology.js';
import type { ContractInput } from './csv.js';
import {
  cashFields,
  derivativeRow,
  readLot,
  readReferencePrice,
  readTick,
  readToken,
  readTradingSymbol,
  shown,
  skipRow,
  type ExpiryReader,
} from './fields.js';
import { parseMaster, type Columns, type MappedRow } from './parse-master.js';
import { INDEX_EXCHANGE_OF } from '../../../domain/exchanges.js';

const COLUMNS = [
  'instrument_key',
  'exchange_token',
  'tradingsymbol',
  'name',
  'expiry',
  'strike',
  'tick_size',
  'lot_size',
  'instrument_type',
  'option_type',
  'exchange',
] as const;
/**
 * Read when the header names it: `last_price` in rupees in every segment (USDINR `94.5175`, MCX
 * crude `5696.0`), unlike the paise ticks of some segments; 0 is no price.
 */
const OPTIONAL = ['last_price'] as const;
type Column = (typeof COLUMNS)[number] | (typeof OPTIONAL)[number];

interface Segment {
  exchange: string;
  kind: 'cash' | 'index' | 'derivative';
  /** Ticks stated in paise. */
  paise: boolean;
}

/**
 * Upstox segment → canonical exchange. NSE_COM (NSE's commodity segment) is NCO; OpenAlgo's
 * Upstox mapper drops the segment altogether, we keep its contracts.
 */
const SEGMENTS: ReadonlyMap<string, Segment> = new Map([
  ['NSE_EQ', { exchange: 'NSE', kind: 'cash', paise: false }],
  ['BSE_EQ', { exchange: 'BSE', kind: 'cash', paise: false }],
  ['NSE_INDEX', { exchange: 'NSE_INDEX', kind: 'index', paise: false }],
  ['BSE_INDEX', { exchange: 'BSE_INDEX', kind: 'index', paise: false }],
  ['NSE_FO', { exchange: 'NFO', kind: 'derivative', paise: false }],
  ['BSE_FO', { exchange: 'BFO', kind: 'derivative', paise: false }],
  // The CSV states the ticks of these segments in paise (MCX gold options `50.0` = ₹0.50,
  // USDINR `0.25` = ₹0.0025; cross-checked against the Fyers masters), the others in rupees.
  ['NCD_FO', { exchange: 'CDS', kind: 'derivative', paise: true }],
  ['BCD_FO', { exchange: 'BCD', kind: 'derivative', paise: true }],
  ['MCX_FO', { exchange: 'MCX', kind: 'derivative', paise: true }],
  ['NSE_COM', { exchange: 'NCO', kind: 'derivative', paise: true }],
] as const);

/** ISIN of an issuer's ordinary equity shares: `INE` + issuer + security type `01`. */
const ORDINARY_SHARE_ISIN = /^INE[A-Z0-9]{4}01/;

/**
 * Parses Upstox's `complete.csv` (every field quoted; the `exchange` column holds the segment).
 *
 * - token: `instrument_key` (`NSE_EQ|INE062A01020`, what Upstox's APIs take);
 * - indices: `NIFTY 100` → `NIFTY100` on NSE_INDEX;
 * - equity: the trading symbol. The CSV has no series column, so an issuer's debenture or
 *   warrant can carry the issuer's symbol (`CHOLAFIN` twice on NSE_EQ): the ordinary share
 *   (ISIN security type 01) keeps it and the others are skipped as ambiguous (SymbolBook);
 * - futures/options: the underlying is taken from the trading symbol (`GOLDM26FEB154400CE` →
 *   `GOLDM`), never from `name`, which holds the company name or the commodity group (`GOLD`);
 * - NSE_COM rows without an instrument type (spot references such as `GOLDMINI`) are skipped.
 */
export function parseUpstox(input: ContractInput): AsyncGenerator<ParsedItem> {
  return parseMaster(input, {
    what: 'an Upstox instruments file',
    columns: COLUMNS,
    optional: OPTIONAL,
    map: mapRow,
  });
}

function mapRow(f: readonly string[], col: Columns<Column>, expiries: ExpiryReader): MappedRow {
  const token = readToken(f[col.instrument_key]);
  const brexchange = f[col.exchange]!.trim();
  const segment = SEGMENTS.get(brexchange);
  if (segment === undefined) skipRow(`unknown exchange ${shown(brexchange)}`);
  const brsymbol = readTradingSymbol(f[col.tradingsymbol]);
  const type = f[col.instrument_type]!.trim();
  const { exchange, kind } = segment;
  const referencePrice = readReferencePrice(f[col.last_price]);

  if (kind === 'derivative') {
    if (type === '') skipRow(`no instrument type (option_type ${shown(f[col.option_type]!)})`);
    let side: DerivativeType;
    if (type.startsWith('FUT')) side = 'FUT';
    else if (type.startsWith('OPT')) {
      const opt = f[col.option_type]!.trim();
      if (opt !== 'CE' && opt !== 'PE') skipRow(`bad option type ${shown(opt)}`);
      side = opt;
    } else return skipRow(`unexpected instrument type ${shown(type)} on ${brexchange}`);
    const row = derivativeRow(
      {
        brsymbol,
        brexchange,
        exchange,
        token,
        type: side,
        expiry: f[col.expiry],
        strike: f[col.strike],
        lotsize: readLot(f[col.lot_size]),
        tickSize: readTick(f[col.tick_size], false, segment.paise ? 100 : 1),
        referencePrice,
      },
      expiries,
    );
    return { kind: 'free', row };
  }

  const base = cashFields({
    brsymbol,
    exchange,
    brexchange,
    token,
    name: f[col.name]!.trim(),
    referencePrice,
  });
  if (kind === 'index') {
    if (type !== 'INDEX') skipRow(`unexpected instrument type ${shown(type)} on ${brexchange}`);
    const row: Instrument = {
      ...base,
      symbol: indexSymbol(
        brsymbol,
        exchange === INDEX_EXCHANGE_OF.NSE ? INDEX_EXCHANGE_OF.NSE : INDEX_EXCHANGE_OF.BSE,
      ),
      instrumenttype: 'INDEX',
      lotsize: readLot(f[col.lot_size], true),
      tickSize: readTick(f[col.tick_size], true),
    };
    return { kind: 'claim', row };
  }

  if (type !== 'EQUITY') skipRow(`unexpected instrument type ${shown(type)} on ${brexchange}`);
  const row: Instrument = {
    ...base,
    instrumenttype: 'EQ',
    lotsize: readLot(f[col.lot_size]),
    tickSize: readTick(f[col.tick_size]),
  };
  const isin = token.slice(token.indexOf('|') + 1);
  // Non-company ISINs (ETFs `INF`, government securities `IN0`…) carry symbols of their own.
  if (!isin.startsWith('INE') || ORDINARY_SHARE_ISIN.test(isin)) return { kind: 'claim', row };
  return { kind: 'defer', deferred: { row, fallback: null, detail: `ISIN ${isin}` } };
}

/** Upstox `complete.csv` (gunzipped). */
export const upstoxFormat: MasterContractFormat = { broker: 'upstox', parse: parseUpstox };
