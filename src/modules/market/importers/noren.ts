/**
 * The Noren OMS symbol files (NorenApi-Py README "searchscrip": the trading-symbol rules; the
 * brokers serve `NSE_symbols.txt.zip`, `NFO_symbols.txt.zip`, `BFO_…`, `CDS_…`, `MCX_…`, one
 * exchange a file, at `api.shoonya.com/<EXCH>_symbols.txt.zip` and Flattrade's equivalent; OpenAlgo
 * broker/shoonya/database/master_contract_db.py reads them). Shoonya's and Flattrade's files are the
 * same format: {@link shoonyaFormat} and {@link flattradeFormat} differ only in the broker id.
 *
 * Comma-separated with a header that differs per exchange (each line ends with a comma; CDS data
 * lines do not): NSE `Exchange,Token,LotSize,Symbol,TradingSymbol,Instrument,TickSize`; NFO, BFO
 * `…,Symbol,TradingSymbol,Expiry,Instrument,OptionType,StrikePrice,TickSize`; CDS adds
 * `Precision,Multiplier`, MCX `GNGD`. Ticks are rupees, expiries `30-JAN-2025`.
 *
 * - token: `Token`; brsymbol: `TradingSymbol` (Noren's `tsym`); brexchange: `Exchange` (its `exch`,
 *   algodesk's exchange codes);
 * - NSE indices (`Instrument` INDEX): the trading symbol read as the exchange's index name
 *   (`NIFTY INDEX` → `NIFTY`, `NIFTY BANK` → `BANKNIFTY`, `FINNIFTY`), lot 0;
 * - NSE cash (`Instrument` is the series): the plain `Symbol` (`SBIN` of `SBIN-EQ`) by the rules
 *   Kite's import follows (ordinary-share series claim it, others take `SYMBOL-SERIES` when it
 *   is held: see {@link NSE_SHARE_SERIES} and SymbolBook);
 * - NFO, CDS, MCX (every derivative exchange but BFO) futures and options: Noren's own trading symbols (`NIFTY30JAN25F`,
 *   `NIFTY30JAN25C23000`, `USDINR11SEP26F`, MCX `SILVER10031AUG26` without the F): the
 *   underlying is `Symbol`, checked to be followed by the expiry's `DDMMMYY` in the trading
 *   symbol; the side from `OptionType` (futures: XX), the strike from `StrikePrice`;
 * - BFO: the trading symbol is BSE's (`SENSEX2510775000CE`, `BANKEX25MARFUT`) while `Symbol` is
 *   an internal code (`BSXOPT`): the underlying comes from the trading symbol as for Kite's rows;
 * - skipped: BSE rows (no BSE file was at hand to confirm its columns), currency underlyings
 *   (`UNDCUR`), other instrument types, unknown exchanges and exchange test securities.
 *
 * Zipped files (`NFO_symbols.txt.zip`, as served) are read too: the single entry of a zip,
 * stored or deflated, is inflated with node:zlib ({@link unzipSingle}; the repository has no zip
 * library).
 */
import { crc32, inflateRaw } from 'node:zlib';
import { promisify } from 'node:util';
import type { Instrument, MasterContractFormat, ParsedItem } from '../instrument.js';
import type { DerivativeType } from '../../../domain/instruments.js';
import { DERIVATIVE_EXCHANGES, INDEX_EXCHANGE_OF } from '../../../domain/exchanges.js';
import {
  expiryCode,
  expiryLabel,
  formatStrike,
  futureSymbol,
  indexSymbol,
  NSE_SHARE_SERIES,
  optionSymbol,
} from '../symbology.js';
import { isTestUnderlying } from '../search-rules.js';
import type { ContractInput } from './csv.js';
import {
  cashFields,
  derivativeRow,
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

const COLUMNS = [
  'Exchange',
  'Token',
  'LotSize',
  'Symbol',
  'TradingSymbol',
  'Instrument',
  'TickSize',
] as const;
const OPTIONAL = ['Expiry', 'OptionType', 'StrikePrice'] as const;
type Column = (typeof COLUMNS)[number] | (typeof OPTIONAL)[number];

/** The largest zip read (the NFO file is under 1 MB zipped, 7 MB inflated). */
const MAX_ZIP_BYTES = 256 * 1024 * 1024;

const inflate = promisify(inflateRaw);

/**
 * The one file of a zip archive (`buf`): found through the end-of-central-directory record and its
 * central-directory entry (so sizes are right even when the local header defers them), stored
 * (method 0) or deflated (method 8), its length and CRC-32 checked. Throws for anything else.
 */
export async function unzipSingle(buf: Buffer): Promise<Buffer> {
  const bad = (why: string): never => {
    throw new Error(`not a readable zip: ${why}`);
  };
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65_535); i--)
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd < 0) bad('no end of central directory');
  const entries = buf.readUInt16LE(eocd + 10);
  if (entries !== 1) bad(`${entries} entries (one file expected)`);
  const cd = buf.readUInt32LE(eocd + 16);
  if (cd + 46 > buf.length || buf.readUInt32LE(cd) !== 0x02014b50) bad('broken central directory');
  const flags = buf.readUInt16LE(cd + 8);
  const method = buf.readUInt16LE(cd + 10);
  const crc = buf.readUInt32LE(cd + 16);
  const packed = buf.readUInt32LE(cd + 20);
  const size = buf.readUInt32LE(cd + 24);
  const local = buf.readUInt32LE(cd + 42);
  if (flags & 1) bad('the entry is encrypted');
  if (local + 30 > buf.length || buf.readUInt32LE(local) !== 0x04034b50) bad('broken local header');
  const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
  if (start + packed > buf.length) bad('the entry is cut short');
  const data = buf.subarray(start, start + packed);
  let out: Buffer;
  if (method === 0) out = data;
  else if (method === 8) out = await inflate(data, { maxOutputLength: MAX_ZIP_BYTES });
  else return bad(`compression method ${method}`);
  if (out.length !== size || crc32(out) !== crc) bad('the entry does not match its size and CRC-32');
  return out;
}

/** `input` as it is, or, when it starts with a zip's local-file signature, its single file inflated. */
async function* unzipped(input: ContractInput): AsyncGenerator<Buffer | string> {
  const chunks: Buffer[] = [];
  let size = 0;
  let zip: boolean | undefined;
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    if (zip === false) {
      yield chunk;
      continue;
    }
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    chunks.push(b);
    size += b.length;
    if (zip === undefined && size >= 4) {
      zip = Buffer.concat(chunks).readUInt32LE(0) === 0x04034b50;
      if (!zip) {
        yield* chunks.splice(0);
        continue;
      }
    }
    if (size > MAX_ZIP_BYTES) throw new Error(`zip larger than ${MAX_ZIP_BYTES} bytes`);
  }
  if (zip === true) yield await unzipSingle(Buffer.concat(chunks));
  else yield* chunks;
}

/**
 * `source` with a comma ending the header line dropped: every header ends with one, but CDS data
 * lines do not, and the header's empty last column would make them a field short.
 */
async function* headerTrimmed(source: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer | string> {
  const head: Buffer[] = [];
  let done = false;
  for await (const chunk of source) {
    if (done) {
      yield chunk;
      continue;
    }
    head.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    const all = Buffer.concat(head);
    const nl = all.indexOf(0x0a);
    if (nl < 0 && all.length < 64 * 1024) continue;
    done = true;
    const end = nl < 0 ? all.length : nl;
    const cr = end > 0 && all[end - 1] === 0x0d ? 1 : 0;
    const comma = end - cr - 1;
    yield comma >= 0 && all[comma] === 0x2c
      ? Buffer.concat([all.subarray(0, comma), all.subarray(comma + 1)])
      : all;
  }
  if (!done && head.length > 0) yield Buffer.concat(head);
}

/** Parses one Noren symbols file (plain or zipped); see the file comment. */
export function parseNoren(input: ContractInput): AsyncGenerator<ParsedItem> {
  return parseMaster(headerTrimmed(unzipped(input)), {
    what: 'a Noren symbols file',
    columns: COLUMNS,
    optional: OPTIONAL,
    map: mapRow,
  });
}

function mapRow(f: readonly string[], col: Columns<Column>, expiries: ExpiryReader): MappedRow {
  const at = (c: Column) => (col[c] < 0 ? '' : (f[col[c]] ?? '').trim());
  const exchange = at('Exchange');
  const token = readToken(at('Token'));
  const brsymbol = readTradingSymbol(at('TradingSymbol'));
  const symbol = at('Symbol');
  const type = at('Instrument');
  if (isTestUnderlying(brsymbol)) skipRow(`exchange test security ${shown(brsymbol)}`);

  if (exchange === 'NSE') {
    if (type === 'INDEX') {
      const name = brsymbol.replace(/\s+INDEX$/i, '');
      const row: Instrument = {
        ...cashFields({
          brsymbol,
          exchange: INDEX_EXCHANGE_OF.NSE,
          brexchange: exchange,
          token,
          name: symbol || name,
        }),
        symbol: indexSymbol(name, INDEX_EXCHANGE_OF.NSE),
        instrumenttype: 'INDEX',
        lotsize: 0,
        tickSize: readTick(at('TickSize'), true),
      };
      return { kind: 'claim', row };
    }
    if (symbol === '') skipRow(`no symbol for ${shown(brsymbol)}`);
    const row: Instrument = {
      ...cashFields({ brsymbol, exchange, brexchange: exchange, token, name: symbol }),
      symbol,
      instrumenttype: 'EQ',
      lotsize: readLot(at('LotSize')),
      tickSize: readTick(at('TickSize')),
    };
    if (NSE_SHARE_SERIES.has(type)) return { kind: 'claim', row };
    return { kind: 'defer', deferred: { row, fallback: brsymbol, detail: `series ${shown(type)}` } };
  }
  if (exchange === 'BSE') skipRow('BSE rows are not read (no BSE symbols file confirmed its columns)');
  if (!DERIVATIVE_EXCHANGES.has(exchange)) skipRow(`unknown exchange ${shown(exchange)}`);

  let side: DerivativeType;
  if (type.startsWith('FUT')) side = 'FUT';
  else if (type.startsWith('OPT')) {
    const opt = at('OptionType');
    if (opt !== 'CE' && opt !== 'PE') skipRow(`bad option type ${shown(opt)}`);
    side = opt;
  } else return skipRow(`unexpected instrument type ${shown(type)} on ${exchange}`);
  const lotsize = readLot(at('LotSize'));
  const tickSize = readTick(at('TickSize'));

  if (exchange === 'BFO') {
    const input = { brsymbol, brexchange: exchange, exchange, token, type: side, lotsize, tickSize };
    return {
      kind: 'free',
      row: derivativeRow({ ...input, expiry: at('Expiry'), strike: at('StrikePrice') }, expiries),
    };
  }

  const expiryDate = expiries.read(at('Expiry'));
  if (symbol === '' || !brsymbol.startsWith(`${symbol}${expiryCode(expiryDate)}`))
    skipRow(`trading symbol ${shown(brsymbol)} is not ${shown(symbol)} of ${expiryDate}`);
  let strike: number | null = null;
  let canonical = futureSymbol(symbol, expiryDate);
  if (side !== 'FUT') {
    strike = readStrike(at('StrikePrice'));
    if (!brsymbol.endsWith(`${side[0]}${formatStrike(strike)}`))
      skipRow(`strike ${formatStrike(strike)} not that of ${shown(brsymbol)}`);
    canonical = optionSymbol(symbol, expiryDate, strike, side);
  }
  const row: Instrument = {
    symbol: canonical,
    brsymbol,
    name: symbol,
    exchange,
    brexchange: exchange,
    token,
    expiry: expiryLabel(expiryDate),
    expiryDate,
    strike,
    lotsize,
    instrumenttype: side,
    tickSize,
    underlying: symbol,
  };
  return { kind: 'free', row };
}

/** Shoonya (Finvasia) `<EXCH>_symbols.txt(.zip)`. */
export const shoonyaFormat: MasterContractFormat = { broker: 'shoonya', parse: parseNoren };

/** Flattrade `<EXCH>_symbols.txt(.zip)`: the same Noren format. */
export const flattradeFormat: MasterContractFormat = { broker: 'flattrade', parse: parseNoren };
