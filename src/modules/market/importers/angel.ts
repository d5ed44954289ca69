import type { Instrument, MasterContractFormat, ParsedItem } from '../instrument.js';
import type { DerivativeType } from '../../../domain/instruments.js';
import { EXCHANGES, indexExchangeOf } from '../../../domain/exchanges.js';
import {
  expiryCode,
  expiryLabel,
  formatStrike,
  futureSymbol,
  indexSymbol,
  NSE_SHARE_SERIES,
  optionSymbol,
  parseDecimal,
  underlyingFromTradingSymbol,
} from '../symbology.js';
import type { ContractInput } from './csv.js';
import {
  cashFields,
  ExpiryReader,
  readLot,
  readTick,
  readToken,
  readTradingSymbol,
  RowSkip,
  shown,
  skipRow,
} from './fields.js';
import { readJsonArrayBatches } from './json-array.js';
import type { MappedRow } from './parse-master.js';
import { SymbolBook } from './symbol-book.js';

const WHAT = 'an Angel One scrip master';

/** The fields of every scrip-master object (all strings in Angel's file). */
const FIELDS = [
  'token',
  'symbol',
  'name',
  'expiry',
  'strike',
  'lotsize',
  'instrumenttype',
  'exch_seg',
  'tick_size',
] as const;
type Field = (typeof FIELDS)[number];

interface Segment {
  /** Cash (equities and the `AMXIDX` index rows) or futures and options. */
  kind: 'cash' | 'derivative';
  /** Canonical exchange. */
  exchange: string;
  /**
   * What strike and tick are multiplied by in the file: 100 (paise: NIFTY 22000 is
   * `2200000.000000`, a ₹0.05 tick `5.000000`), 10^7 on CDS (USDINR 75.25 is `752500000.000000`,
   * a ₹0.0025 tick `25000.000000`).
   */
  scale: number;
}

/** `exch_seg` → segment. Angel's codes are OpenAlgo's exchange codes. */
const SEGMENTS: ReadonlyMap<string, Segment> = new Map([
  ['NSE', { kind: 'cash', exchange: 'NSE', scale: 100 }],
  ['BSE', { kind: 'cash', exchange: 'BSE', scale: 100 }],
  ['NFO', { kind: 'derivative', exchange: 'NFO', scale: 100 }],
  ['BFO', { kind: 'derivative', exchange: 'BFO', scale: 100 }],
  ['MCX', { kind: 'derivative', exchange: 'MCX', scale: 100 }],
  ['CDS', { kind: 'derivative', exchange: 'CDS', scale: 10_000_000 }],
] as const);

/** Angel's instrument type of an index row. */
const INDEX_TYPE = 'AMXIDX';

/** An NSE series suffix (`SBIN-EQ`, `GODHA-BE`, `679AP34-SG`); `BAJAJ-AUTO-EQ` → `BAJAJ-AUTO`. */
const SERIES_RE = /^(.+)-([A-Z0-9]{2})$/;

/**
 * Parses Angel One SmartAPI's `OpenAPIScripMaster.json`: one JSON array of objects whose fields
 * are all strings, e.g. `{"token":"3045","symbol":"SBIN-EQ","name":"SBIN","expiry":"",
 * "strike":"-1.000000","lotsize":"1","instrumenttype":"","exch_seg":"NSE","tick_size":"5.000000"}`.
 * The file is read as a stream ({@link readJsonArrayBatches}); a skip's `line` is the 1-based
 * position of the object in the array.
 *
 * - token: `token` (what Angel's order, quote and stream APIs take: `symboltoken`); brsymbol:
 *   `symbol` (their `tradingsymbol`); brexchange: `exch_seg`;
 * - indices (`AMXIDX` on NSE/BSE, tokens `999…`): `Nifty 50` → `NIFTY` on NSE_INDEX, `SENSEX` on
 *   BSE_INDEX; indices of other segments (MCX) have no canonical exchange and are skipped;
 * - equity (type empty on NSE/BSE): NSE symbols lose their series suffix by the rules Kite's
 *   follow (`SBIN-EQ` → `SBIN`, see {@link NSE_SHARE_SERIES} and SymbolBook); BSE symbols are
 *   the plain scrip ids;
 * - futures/options (NFO, BFO, MCX, CDS; type `FUT…` / `OPT…`, the side from the symbol's
 *   `CE`/`PE`): strike and tick divided by the segment's scale, `expiry` (`28MAR2024`) read as
 *   the date; the underlying is what precedes `DDMMMYY[strike]FUT|CE|PE` in the symbol (Angel's
 *   NFO/BFO form, already canonical), else the base of an exchange trading symbol
 *   (`USDINR21DEC75.25CE`), else `name` when the symbol starts with it;
 * - other instrument types (`UNDCUR`, `COMDTY`, …) and the NCDEX and NCO segments are skipped.
 */
export async function* parseAngel(input: ContractInput): AsyncGenerator<ParsedItem> {
  const book = new SymbolBook();
  const expiries = new ExpiryReader();
  let checked = false;
  for await (const batch of readJsonArrayBatches(input, WHAT)) {
    for (const { index: line, value } of batch) {
      if (!checked) {
        checkFirst(value);
        checked = true;
      }
      try {
        const mapped = mapRecord(value, expiries);
        if (mapped.kind === 'defer') book.defer({ ...mapped.deferred, line });
        else if (mapped.kind === 'claim') yield book.claim(line, mapped.row);
        else yield { kind: 'row', row: mapped.row };
      } catch (err) {
        if (!(err instanceof RowSkip)) throw err;
        yield { kind: 'skip', line, reason: err.reason };
      }
    }
  }
  if (!checked) throw new Error(`not ${WHAT}: the array is empty`);
  yield* book.settle();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first element decides whether the file is a scrip master at all (the CSV header check). */
function checkFirst(value: unknown): void {
  const shownValue = JSON.stringify(value) ?? String(value);
  const head = shownValue.length > 160 ? `${shownValue.slice(0, 160)}…` : shownValue;
  if (!isRecord(value)) throw new Error(`not ${WHAT}: its first element ${head} is not an object`);
  const missing = FIELDS.filter((f) => !Object.hasOwn(value, f));
  if (missing.length > 0)
    throw new Error(`not ${WHAT}: its first element ${head} lacks ${missing.join(', ')}`);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

/** A field as text: strings as they are, numbers written out (a re-saved file), else undefined. */
function field(o: Record<string, unknown>, name: Field): string | undefined {
  const v = o[name];
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return undefined;
}

/** A number of the file in rupees: `2200000.000000` / 100 → 22000 (rounded off binary noise). */
function scaled(text: string | undefined, scale: number): number | null {
  const n = parseDecimal(text ?? '');
  return n === null ? null : Math.round((n / scale) * 1e8) / 1e8;
}

function mapRecord(value: unknown, expiries: ExpiryReader): MappedRow {
  if (!isRecord(value)) skipRow(`not an object (${kindOf(value)})`);
  const token = readToken(field(value, 'token'));
  const brexchange = (field(value, 'exch_seg') ?? '').trim();
  const segment = SEGMENTS.get(brexchange);
  if (segment === undefined) {
    // Angel also lists NCDEX and NCO, exchanges the service knows, but no documentation shows their
    // rows (units of strike and tick, symbol form): skipped rather than imported with guessed
    // tick sizes, which orders would be rounded to.
    if ((EXCHANGES as readonly string[]).includes(brexchange))
      skipRow(`unsupported exchange ${brexchange} (its rows are undocumented)`);
    skipRow(`unknown exchange ${shown(brexchange)}`);
  }
  const brsymbol = readTradingSymbol(field(value, 'symbol'));
  const type = (field(value, 'instrumenttype') ?? '').trim();
  const name = (field(value, 'name') ?? '').trim();

  if (type === INDEX_TYPE) {
    const exchange = segment.kind === 'cash' ? indexExchangeOf(segment.exchange) : undefined;
    if (exchange === undefined) skipRow(`unsupported index exchange ${brexchange}`);
    const row: Instrument = {
      ...cashFields({ brsymbol, exchange, brexchange, token, name: name || brsymbol }),
      symbol: indexSymbol(brsymbol, exchange),
      instrumenttype: 'INDEX',
      // Angel states 1 for indices; they trade in no lots (the Instrument contract: 0).
      lotsize: 0,
      tickSize: readTick(field(value, 'tick_size'), true, segment.scale),
    };
    return { kind: 'claim', row };
  }

  if (segment.kind === 'cash') {
    if (type !== '') skipRow(`unexpected instrument type ${shown(type)} on ${brexchange}`);
    const row: Instrument = {
      ...cashFields({ brsymbol, exchange: segment.exchange, brexchange, token, name }),
      instrumenttype: 'EQ',
      lotsize: readLot(field(value, 'lotsize')),
      tickSize: readTick(field(value, 'tick_size'), false, segment.scale),
    };
    // Angel appends the series to NSE symbols only; its BSE symbols are the plain scrip ids.
    const series = segment.exchange === 'NSE' ? SERIES_RE.exec(brsymbol) : null;
    if (series === null) return { kind: 'claim', row };
    const plain = { ...row, symbol: series[1]! };
    if (NSE_SHARE_SERIES.has(series[2]!)) return { kind: 'claim', row: plain };
    return { kind: 'defer', deferred: { row: plain, fallback: brsymbol, detail: `series ${series[2]!}` } };
  }

  let side: DerivativeType;
  if (type.startsWith('FUT')) side = 'FUT';
  else if (type.startsWith('OPT')) {
    const suffix = brsymbol.slice(-2);
    if (suffix !== 'CE' && suffix !== 'PE')
      skipRow(`no option type (CE/PE) at the end of ${shown(brsymbol)}`);
    side = suffix;
  } else return skipRow(`unexpected instrument type ${shown(type || '(empty)')} on ${brexchange}`);

  const expiryDate = expiries.read(field(value, 'expiry'));
  let strike: number | null = null;
  if (side !== 'FUT') {
    const text = field(value, 'strike');
    strike = scaled(text, segment.scale);
    if (strike === null || strike <= 0) skipRow(`bad strike ${shown(text ?? '')}`);
  }
  const base = underlyingOf(brsymbol, side, expiryDate, strike, name);
  if (base === null) skipRow(`no underlying in trading symbol ${shown(brsymbol)}`);
  const row: Instrument = {
    symbol: side === 'FUT' ? futureSymbol(base, expiryDate) : optionSymbol(base, expiryDate, strike!, side),
    brsymbol,
    name: base,
    exchange: segment.exchange,
    brexchange,
    token,
    expiry: expiryLabel(expiryDate),
    expiryDate,
    strike,
    lotsize: readLot(field(value, 'lotsize')),
    instrumenttype: side,
    tickSize: readTick(field(value, 'tick_size'), false, segment.scale),
    underlying: base,
  };
  return { kind: 'free', row };
}

/**
 * The underlying of a derivative row: what precedes the canonical tail in Angel's symbol
 * (`NIFTY` of `NIFTY28MAR2422000CE` with expiry 28MAR2024 and strike 22000), else the base of
 * an exchange trading symbol (`USDINR21DEC75.25CE`), else `name` when the symbol starts with it.
 */
function underlyingOf(
  brsymbol: string,
  side: DerivativeType,
  expiryDate: string,
  strike: number | null,
  name: string,
): string | null {
  const tail =
    side === 'FUT'
      ? `${expiryCode(expiryDate)}FUT`
      : `${expiryCode(expiryDate)}${formatStrike(strike!)}${side}`;
  if (brsymbol.length > tail.length && brsymbol.endsWith(tail)) return brsymbol.slice(0, -tail.length);
  const exchangeBase = underlyingFromTradingSymbol(brsymbol, side, strike ?? undefined);
  if (exchangeBase !== null) return exchangeBase;
  return name !== '' && brsymbol.startsWith(name) ? name : null;
}

/** Angel One SmartAPI `OpenAPIScripMaster.json`. */
export const angelFormat: MasterContractFormat = { broker: 'angel', parse: parseAngel };
