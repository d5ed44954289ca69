import type { Instrument, MasterContractFormat, ParsedItem } from '../instrument.js';
import type { DerivativeType } from '../../../domain/instruments.js';
import {
  expiryCode,
  expiryLabel,
  futureSymbol,
  indexSymbol,
  NSE_SHARE_SERIES,
  optionSymbol,
} from '../symbology.js';
import { isTestUnderlying } from '../search-rules.js';
import type { ContractInput } from './csv.js';
import {
  cashFields,
  readLot,
  readStrike,
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
  'SEM_EXM_EXCH_ID',
  'SEM_SEGMENT',
  'SEM_SMST_SECURITY_ID',
  'SEM_INSTRUMENT_NAME',
  'SEM_TRADING_SYMBOL',
  'SEM_LOT_UNITS',
  'SEM_CUSTOM_SYMBOL',
  'SEM_EXPIRY_DATE',
  'SEM_STRIKE_PRICE',
  'SEM_OPTION_TYPE',
  'SEM_TICK_SIZE',
  'SEM_SERIES',
  'SM_SYMBOL_NAME',
] as const;
type Column = (typeof COLUMNS)[number];

interface Segment {
  exchange: string;
  /** DhanHQ's `exchangeSegment` (what its order, quote and feed APIs take with the security id). */
  brexchange: string;
  kind: 'cash' | 'index' | 'derivative';
}

/**
 * `<SEM_EXM_EXCH_ID>/<SEM_SEGMENT>` → segment. Segment codes: E equity, I index, D equity
 * derivatives, C currency, M commodity. NSE/M (NSE's commodity segment) is absent: DhanHQ's
 * exchange segments (IDX_I, NSE_EQ, NSE_FNO, NSE_CURRENCY, BSE_EQ, MCX_COMM, BSE_CURRENCY,
 * BSE_FNO) have none to order or quote it through, so its rows are skipped.
 */
const SEGMENTS: ReadonlyMap<string, Segment> = new Map([
  ['NSE/E', { exchange: 'NSE', brexchange: 'NSE_EQ', kind: 'cash' }],
  ['BSE/E', { exchange: 'BSE', brexchange: 'BSE_EQ', kind: 'cash' }],
  ['NSE/I', { exchange: INDEX_EXCHANGE_OF.NSE, brexchange: 'IDX_I', kind: 'index' }],
  ['BSE/I', { exchange: INDEX_EXCHANGE_OF.BSE, brexchange: 'IDX_I', kind: 'index' }],
  ['NSE/D', { exchange: 'NFO', brexchange: 'NSE_FNO', kind: 'derivative' }],
  ['BSE/D', { exchange: 'BFO', brexchange: 'BSE_FNO', kind: 'derivative' }],
  ['NSE/C', { exchange: 'CDS', brexchange: 'NSE_CURRENCY', kind: 'derivative' }],
  ['BSE/C', { exchange: 'BCD', brexchange: 'BSE_CURRENCY', kind: 'derivative' }],
  ['MCX/M', { exchange: 'MCX', brexchange: 'MCX_COMM', kind: 'derivative' }],
] as const);

/**
 * Dhan's short names of NSE indices whose squeezed form differs from the exchange's name that
 * Kite and Upstox list (keys squeezed: upper case, no spaces or hyphens). Mapped to that name, so
 * {@link indexSymbol} gives every broker's import one symbol (`NIFTY MID100 FREE` → `NIFTY
 * MIDCAP 100` → `NIFTYMIDCAP100`). `NIFTY`, `BANKNIFTY`, `FINNIFTY` and `MIDCPNIFTY` are already
 * OpenAlgo's symbols.
 */
const DHAN_NSE_INDEX_NAMES: Readonly<Record<string, string>> = {
  NIFTYMID100FREE: 'NIFTY MIDCAP 100',
  NIFTYMCAP50: 'NIFTY MIDCAP 50',
  NIFTYSMALLCAP100: 'NIFTY SMLCAP 100',
  NIFTYSMALLCAP250: 'NIFTY SMLCAP 250',
  NIFTYSMALLCAP50: 'NIFTY SMLCAP 50',
  NIFTYMIDSMALLCAP400: 'NIFTY MIDSML 400',
  NIFTY100EQUALWEIGHT: 'NIFTY100 EQL WGT',
  NIFTY100LOWVOLATILITY30: 'NIFTY100 LOWVOL30',
};

/** BSE groups of debt and government securities: they may share an issuer's symbol. */
const BSE_DEBT_GROUPS = new Set(['F', 'G']);

/**
 * A Dhan derivative trading symbol: base, then the expiry month (MCX: day and month), then `FUT`
 * or strike and side (`NIFTY-Feb2026-25000-CE`, `SILVER-05Mar2026-FUT`, `BAJAJ-AUTO-Feb2026-FUT`).
 */
const DERIVATIVE_RE =
  /^(?<base>.+)-(?<day>\d{2})?(?<month>[A-Z][a-z]{2})(?<year>\d{4})-(?:FUT|(?<strike>[\d.]+)-(?<side>CE|PE))$/;

/**
 * Parses DhanHQ's compact scrip master `api-scrip-master.csv` (16 columns, `SEM_*` and
 * `SM_SYMBOL_NAME`).
 *
 * - token: the security id (`SEM_SMST_SECURITY_ID`), brexchange: DhanHQ's exchange segment
 *   (`NSE_FNO`, `IDX_I`, …): the pair its order, quote and feed APIs take. A security id is unique
 *   only within its segment (`NSE_EQ` 1 and `IDX_I` 1 are different securities);
 * - indices (segment I): `NIFTY` → `NIFTY` on NSE_INDEX, `SNSX50` → `SENSEX50` on BSE_INDEX, Dhan's
 *   short names read as the exchange's ({@link DHAN_NSE_INDEX_NAMES}); lot 0, tick in rupees;
 * - equity: the trading symbol (Dhan's has no series suffix); ordinary shares (NSE series of
 *   {@link NSE_SHARE_SERIES}, BSE groups but F/G) claim it, other securities keep it only when
 *   free, else take `SYMBOL-SERIES` as Kite names them (`CHOLAFIN-D1`);
 * - futures/options: base and side from the trading symbol (`NIFTY-Feb2026-25000-CE`, its month
 *   checked against the expiry), the date part of `SEM_EXPIRY_DATE` (its time is not the close),
 *   the strike column for options (futures carry `-0.01` or `0`);
 * - ticks: in paise on every segment but I (`5.0000` = ₹0.05, currency `0.2500` = ₹0.0025);
 *   lots: `SEM_LOT_UNITS` (`65.0`);
 * - skipped: NSE/M (NSE commodities, no DhanHQ segment) and the exchanges' test securities
 *   (`NSETEST`). Expired contracts (the file keeps stale currency rows) are yielded like any
 *   other: the importers do not read the clock.
 */
export function parseDhan(input: ContractInput): AsyncGenerator<ParsedItem> {
  return parseMaster(input, {
    what: 'a Dhan scrip master',
    columns: COLUMNS,
    map: mapRow,
  });
}

function mapRow(f: readonly string[], col: Columns<Column>, expiries: ExpiryReader): MappedRow {
  const token = readToken(f[col.SEM_SMST_SECURITY_ID]);
  const codes = `${f[col.SEM_EXM_EXCH_ID]!.trim()}/${f[col.SEM_SEGMENT]!.trim()}`;
  const segment = SEGMENTS.get(codes);
  if (segment === undefined) skipRow(`unsupported segment ${shown(codes)}`);
  const brsymbol = readTradingSymbol(f[col.SEM_TRADING_SYMBOL]);
  if (isTestUnderlying(brsymbol)) skipRow(`exchange test security ${shown(brsymbol)}`);
  const type = f[col.SEM_INSTRUMENT_NAME]!.trim();
  const { exchange, brexchange } = segment;

  if (segment.kind === 'derivative') {
    let side: DerivativeType;
    if (type.startsWith('FUT')) side = 'FUT';
    else if (type.startsWith('OPT')) {
      const opt = f[col.SEM_OPTION_TYPE]!.trim();
      if (opt !== 'CE' && opt !== 'PE') skipRow(`bad option type ${shown(opt)}`);
      side = opt;
    } else return skipRow(`unexpected instrument type ${shown(type)} on ${codes}`);
    const parts = DERIVATIVE_RE.exec(brsymbol)?.groups;
    if (parts === undefined || (parts.side ?? 'FUT') !== side)
      skipRow(`unreadable trading symbol ${shown(brsymbol)}`);
    const base = parts.base!;
    const expiryDate = expiries.read(f[col.SEM_EXPIRY_DATE]);
    // The symbol names the expiry's month (MCX: its day too); a row whose expiry column says
    // otherwise cannot be trusted.
    const code = expiryCode(expiryDate); // `10FEB26`
    if (
      parts.year !== expiryDate.slice(0, 4) ||
      parts.month!.toUpperCase() !== code.slice(2, 5) ||
      (parts.day !== undefined && parts.day !== code.slice(0, 2))
    )
      skipRow(`expiry ${expiryDate} not that of ${shown(brsymbol)}`);
    let symbol: string;
    let strike: number | null = null;
    if (side === 'FUT') symbol = futureSymbol(base, expiryDate);
    else {
      strike = readStrike(f[col.SEM_STRIKE_PRICE]);
      if (Number(parts.strike) !== strike) skipRow(`strike ${strike} not that of ${shown(brsymbol)}`);
      symbol = optionSymbol(base, expiryDate, strike, side);
    }
    const row: Instrument = {
      symbol,
      brsymbol,
      name: base,
      exchange,
      brexchange,
      token,
      expiry: expiryLabel(expiryDate),
      expiryDate,
      strike,
      lotsize: readLot(f[col.SEM_LOT_UNITS]),
      instrumenttype: side,
      tickSize: readTick(f[col.SEM_TICK_SIZE], false, 100),
      underlying: base,
    };
    return { kind: 'free', row };
  }

  const listedName = f[col.SM_SYMBOL_NAME]!.trim();
  const customName = f[col.SEM_CUSTOM_SYMBOL]!.trim();
  if (segment.kind === 'index') {
    if (type !== 'INDEX') skipRow(`unexpected instrument type ${shown(type)} on ${codes}`);
    const indexExchange = exchange === INDEX_EXCHANGE_OF.NSE ? INDEX_EXCHANGE_OF.NSE : INDEX_EXCHANGE_OF.BSE;
    const squeezed = brsymbol.toUpperCase().replace(/[\s-]+/g, '');
    const listed =
      indexExchange === INDEX_EXCHANGE_OF.NSE ? (DHAN_NSE_INDEX_NAMES[squeezed] ?? brsymbol) : brsymbol;
    // SM_SYMBOL_NAME repeats the short name on index rows; the custom symbol spells it out.
    const name = customName || listedName || brsymbol;
    const row: Instrument = {
      ...cashFields({ brsymbol, exchange, brexchange, token, name }),
      symbol: indexSymbol(listed, indexExchange),
      instrumenttype: 'INDEX',
      // Dhan states 1.0, which is no lot: indices are not traded.
      lotsize: 0,
      // Index rows state their tick in rupees, unlike every other segment.
      tickSize: readTick(f[col.SEM_TICK_SIZE], true),
    };
    return { kind: 'claim', row };
  }

  if (type !== 'EQUITY') skipRow(`unexpected instrument type ${shown(type)} on ${codes}`);
  const name = listedName || customName || brsymbol;
  const row: Instrument = {
    ...cashFields({ brsymbol, exchange, brexchange, token, name }),
    instrumenttype: 'EQ',
    lotsize: readLot(f[col.SEM_LOT_UNITS]),
    tickSize: readTick(f[col.SEM_TICK_SIZE], false, 100),
  };
  const series = f[col.SEM_SERIES]!.trim();
  const primary = exchange === 'NSE' ? NSE_SHARE_SERIES.has(series) : !BSE_DEBT_GROUPS.has(series);
  if (primary) return { kind: 'claim', row };
  return {
    kind: 'defer',
    deferred: {
      row,
      fallback: series === '' ? null : `${brsymbol}-${series}`,
      detail: `series ${shown(series)}`,
    },
  };
}

/** DhanHQ compact scrip master `api-scrip-master.csv`. */
export const dhanFormat: MasterContractFormat = { broker: 'dhan', parse: parseDhan };
