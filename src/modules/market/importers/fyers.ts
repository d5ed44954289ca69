import type { Instrument, MasterContractFormat, ParsedItem } from '../instrument.js';
import type { DerivativeType } from '../../../domain/instruments.js';
import { indexSymbol, NSE_SHARE_SERIES } from '../symbology.js';
import type { ContractInput } from './csv.js';
import {
  cashFields,
  derivativeRow,
  readLot,
  readTick,
  readToken,
  readTradingSymbol,
  shown,
  skipRow,
  type ExpiryReader,
} from './fields.js';
import { parseMaster, type Columns, type MappedRow } from './parse-master.js';
import { INDEX_EXCHANGE_OF } from '../../../domain/exchanges.js';

/** The leading columns of a Fyers symbol master, in file order (the file has no header). */
const COLUMNS = [
  'fytoken',
  'details',
  'instrument',
  'lot',
  'tick',
  'isin',
  'session',
  'updated',
  'expiry',
  'ticker',
  'exchange',
  'segment',
  'scrip',
  'underlying',
  'underlying_scrip',
  'strike',
  'option',
  'underlying_fytoken',
] as const;
type Column = (typeof COLUMNS)[number];

interface Segment {
  exchange: string;
  /** Fyers' name of the segment file (`NSE_CM`), kept as brexchange. */
  brexchange: string;
  kind: 'cash' | 'derivative';
}

/** `<exchange code>/<segment code>` → segment. Codes: exchange 10 NSE, 11 MCX, 12 BSE. */
const SEGMENTS: ReadonlyMap<string, Segment> = new Map([
  ['10/10', { exchange: 'NSE', brexchange: 'NSE_CM', kind: 'cash' }],
  ['12/10', { exchange: 'BSE', brexchange: 'BSE_CM', kind: 'cash' }],
  ['10/11', { exchange: 'NFO', brexchange: 'NSE_FO', kind: 'derivative' }],
  ['12/11', { exchange: 'BFO', brexchange: 'BSE_FO', kind: 'derivative' }],
  ['10/12', { exchange: 'CDS', brexchange: 'NSE_CD', kind: 'derivative' }],
  ['11/20', { exchange: 'MCX', brexchange: 'MCX_COM', kind: 'derivative' }],
] as const);

/** Fyers instrument type of an index in the cash files. */
const INDEX_TYPE = '10';

/**
 * Fyers' own names of BSE indices → BSE's index codes (what Kite and Upstox list), which
 * `indexSymbol` then maps to OpenAlgo's names (`HC` → `BSEHC` → `BSEHEALTHCARE`).
 */
const FYERS_BSE_INDEX_CODES: Readonly<Record<string, string>> = {
  '100': 'BSE100',
  '200': 'BSE200',
  '500': 'BSE500',
  HC: 'BSEHC',
  IT: 'BSEIT',
  CG: 'BSECG',
  CD: 'BSECD',
  '150MIDCAP': 'MID150',
  '250SMALLCAP': 'SML250',
  '250LARGEMIDCAP': 'LMI250',
  '400MIDSMALLCAP': 'MSL400',
  '100LARGECAPTMC': 'LCTMCI',
  DFRG: 'DFRGRI',
  CDGS: 'CONDIS',
  INDIAMANUFACTURING: 'MFG',
  PRIVATEBANKS: 'BSEPBI',
  MOMENTUM: 'BSEMOI',
  LOWVOLATILITY: 'BSELVI',
  QUALITY: 'BSEQUI',
  ENHANCEDVALUE: 'BSEEVI',
  DIVIDENDSTABILITY: 'BSEDSI',
};

/** BSE groups of debt and government securities: they may share an issuer's symbol. */
const BSE_DEBT_GROUPS = new Set(['F', 'G']);

const TICKER_RE = /^[A-Z]+:\S/;

/** A Fyers master's first line: a numeric Fytoken, an `EXCHANGE:SYMBOL` ticker, numeric codes. */
function looksLikeFyers(first: readonly string[]): boolean {
  return (
    first.length >= COLUMNS.length &&
    /^\d+$/.test(first[0]!) &&
    TICKER_RE.test(first[9]!) &&
    /^\d+$/.test(first[10]!) &&
    /^\d+$/.test(first[11]!)
  );
}

/**
 * Parses a Fyers v3 symbol master (`NSE_CM.csv`, `BSE_CM.csv`, `NSE_FO.csv`, `BSE_FO.csv`,
 * `NSE_CD.csv`, `MCX_COM.csv`; headerless, 21 columns), or several of them concatenated.
 *
 * - token: the Fytoken; brsymbol: the ticker (`NSE:SBIN-EQ`), which Fyers' APIs take;
 * - indices (instrument type 10): `NSE:NIFTYBANK-INDEX` → `BANKNIFTY` on NSE_INDEX;
 * - equity: the ticker without exchange and series (`NSE:GODHA-BE` → `GODHA`), with the rules
 *   Kite's symbols follow ({@link NSE_SHARE_SERIES}); BSE groups (`BSE:ABB-A`) are dropped;
 * - futures/options: the underlying from the ticker (the underlying column as fallback), the
 *   expiry epoch read as an IST day, the strike column.
 */
export function parseFyers(input: ContractInput): AsyncGenerator<ParsedItem> {
  return parseMaster(input, {
    what: 'a Fyers symbol master',
    columns: COLUMNS,
    headerless: looksLikeFyers,
    map: mapRow,
  });
}

function mapRow(f: readonly string[], col: Columns<Column>, expiries: ExpiryReader): MappedRow {
  const token = readToken(f[col.fytoken]);
  const codes = `${f[col.exchange]!.trim()}/${f[col.segment]!.trim()}`;
  const segment = SEGMENTS.get(codes);
  if (segment === undefined) skipRow(`unknown exchange ${shown(codes)}`);
  const brsymbol = readTradingSymbol(f[col.ticker]);
  const colon = brsymbol.indexOf(':');
  const code = brsymbol.slice(colon + 1);
  if (colon < 0 || code === '') skipRow(`bad ticker ${shown(brsymbol)}`);
  const { exchange, brexchange } = segment;

  if (segment.kind === 'derivative') {
    const option = f[col.option]!.trim();
    let side: DerivativeType;
    if (option === 'CE' || option === 'PE') side = option;
    else if (option === 'XX' || option === '') side = 'FUT';
    else return skipRow(`bad option type ${shown(option)}`);
    const row = derivativeRow(
      {
        brsymbol,
        exchangeSymbol: code,
        brexchange,
        exchange,
        token,
        type: side,
        expiry: f[col.expiry],
        strike: f[col.strike],
        lotsize: readLot(f[col.lot]),
        tickSize: readTick(f[col.tick]),
        fallbackBase: f[col.underlying],
      },
      expiries,
    );
    return { kind: 'free', row };
  }

  const details = f[col.details]!.trim();
  if (f[col.instrument]!.trim() === INDEX_TYPE) {
    const name = code.replace(/-INDEX$/, '');
    const indexExchange = INDEX_EXCHANGE_OF[exchange === 'NSE' ? 'NSE' : 'BSE'];
    const listed = indexExchange === INDEX_EXCHANGE_OF.BSE ? (FYERS_BSE_INDEX_CODES[name] ?? name) : name;
    const row: Instrument = {
      ...cashFields({
        brsymbol,
        exchange: indexExchange,
        brexchange,
        token,
        name: details.replace(/-INDEX$/, ''),
      }),
      symbol: indexSymbol(listed, indexExchange),
      instrumenttype: 'INDEX',
      lotsize: readLot(f[col.lot], true),
      tickSize: readTick(f[col.tick], true),
    };
    return { kind: 'claim', row };
  }

  const dash = code.lastIndexOf('-');
  const plain = dash > 0 ? code.slice(0, dash) : code;
  const series = dash > 0 ? code.slice(dash + 1) : '';
  const row: Instrument = {
    ...cashFields({ brsymbol, exchange, brexchange, token, name: details }),
    symbol: plain,
    instrumenttype: 'EQ',
    lotsize: readLot(f[col.lot]),
    tickSize: readTick(f[col.tick]),
  };
  const primary =
    exchange === 'NSE' ? series === '' || NSE_SHARE_SERIES.has(series) : !BSE_DEBT_GROUPS.has(series);
  if (primary) return { kind: 'claim', row };
  return { kind: 'defer', deferred: { row, fallback: code, detail: `series ${series}` } };
}

/** Fyers symbol master CSVs (headerless). */
export const fyersFormat: MasterContractFormat = { broker: 'fyers', parse: parseFyers };
