import type { Instrument, MasterContractFormat, ParsedItem } from '../instrument.js';
import { indexSymbol, NSE_SHARE_SERIES } from '../symbology.js';
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
import { CASH_EXCHANGES, DERIVATIVE_EXCHANGES, indexExchangeOf } from '../../../domain/exchanges.js';

const COLUMNS = [
  'instrument_token',
  'exchange_token',
  'tradingsymbol',
  'name',
  'expiry',
  'strike',
  'tick_size',
  'lot_size',
  'instrument_type',
  'segment',
  'exchange',
] as const;
/** Read when the header names it (Kite's does; often 0, which is no price). */
const OPTIONAL = ['last_price'] as const;
type Column = (typeof COLUMNS)[number] | (typeof OPTIONAL)[number];

/** A Kite series suffix: a hyphen and two capitals/digits (`-BE`, `-N0`); `BAJAJ-AUTO` has none. */
const SERIES_RE = /^(.+)-([A-Z0-9]{2})$/;

/**
 * Parses Kite Connect's `instruments` CSV (all exchanges, or one exchange's dump), both as Kite
 * serves it (quoted names, integer numbers) and as re-saved by pandas (floats, unquoted).
 *
 * - token: `instrument_token` (what Kite's quote, history and websocket APIs take);
 * - NSE/BSE `INDICES` rows → NSE_INDEX/BSE_INDEX, type INDEX (`NIFTY 50` → `NIFTY`); indices
 *   of other exchanges (MCX) have no canonical exchange and are skipped;
 * - equity: Kite's trading symbol without its series suffix (`GODHA-BE` → `GODHA`); see
 *   {@link NSE_SHARE_SERIES} and SymbolBook for the securities that keep it (`CHOLAFIN-D1`);
 * - futures/options (NFO, BFO, CDS, BCD, MCX, NCO): the underlying from the trading symbol
 *   (Kite's `name` as a fallback), the `expiry` date and the `strike`.
 */
export function parseZerodha(input: ContractInput): AsyncGenerator<ParsedItem> {
  return parseMaster(input, {
    what: 'a Zerodha instruments file',
    columns: COLUMNS,
    optional: OPTIONAL,
    map: mapRow,
  });
}

function mapRow(f: readonly string[], col: Columns<Column>, expiries: ExpiryReader): MappedRow {
  const token = readToken(f[col.instrument_token]);
  const brsymbol = readTradingSymbol(f[col.tradingsymbol]);
  const brexchange = f[col.exchange]!.trim();
  const segment = f[col.segment]!.trim();
  const type = f[col.instrument_type]!.trim();
  const name = f[col.name]!.trim();
  const referencePrice = readReferencePrice(f[col.last_price]);

  if (segment === 'INDICES') {
    const exchange = indexExchangeOf(brexchange);
    if (exchange === undefined) skipRow(`unsupported index exchange ${shown(brexchange)}`);
    const row: Instrument = {
      ...cashFields({ brsymbol, exchange, brexchange, token, name: name || brsymbol, referencePrice }),
      symbol: indexSymbol(brsymbol, exchange),
      instrumenttype: 'INDEX',
      lotsize: readLot(f[col.lot_size], true),
      tickSize: readTick(f[col.tick_size], true),
    };
    return { kind: 'claim', row };
  }

  if (CASH_EXCHANGES.has(brexchange)) {
    if (type !== 'EQ') skipRow(`unexpected instrument type ${shown(type)} on ${brexchange}`);
    const row: Instrument = {
      ...cashFields({ brsymbol, exchange: brexchange, brexchange, token, name, referencePrice }),
      instrumenttype: 'EQ',
      lotsize: readLot(f[col.lot_size]),
      tickSize: readTick(f[col.tick_size]),
    };
    // Kite appends series to NSE symbols only; its BSE symbols are the plain scrip ids.
    const series = brexchange === 'NSE' ? SERIES_RE.exec(brsymbol) : null;
    if (series === null) return { kind: 'claim', row };
    const plain = { ...row, symbol: series[1]! };
    if (NSE_SHARE_SERIES.has(series[2]!)) return { kind: 'claim', row: plain };
    return { kind: 'defer', deferred: { row: plain, fallback: brsymbol, detail: `series ${series[2]!}` } };
  }

  // Kite's exchange codes are canonical: its derivative exchanges are futures and options rows.
  if (DERIVATIVE_EXCHANGES.has(brexchange)) {
    if (type !== 'FUT' && type !== 'CE' && type !== 'PE')
      skipRow(`unexpected instrument type ${shown(type)} on ${brexchange}`);
    const row = derivativeRow(
      {
        brsymbol,
        brexchange,
        exchange: brexchange,
        token,
        type,
        expiry: f[col.expiry],
        strike: f[col.strike],
        lotsize: readLot(f[col.lot_size]),
        tickSize: readTick(f[col.tick_size]),
        referencePrice,
        fallbackBase: name,
      },
      expiries,
    );
    return { kind: 'free', row };
  }
  return skipRow(`unknown exchange ${shown(brexchange)}`);
}

/** Kite Connect `instruments` CSV. */
export const zerodhaFormat: MasterContractFormat = { broker: 'zerodha', parse: parseZerodha };
