import { createReadStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { marketFixture } from '../../../../test/helpers/market-fixtures.js';
import {
  collect,
  countBy,
  dataLines,
  FO_FILE,
  NSE_FILE,
  type Parsed,
} from '../../../../test/helpers/kite-instruments.js';
import type { Instrument } from '../instrument.js';
import { dhanFormat, parseDhan } from './dhan.js';
import { parseUpstox } from './upstox.js';
import { parseZerodha } from './zerodha.js';

const FILE = marketFixture('dhan', 'api-scrip-master_2026-02-10.csv');
/** Kite rows of the NIFTY/BANKNIFTY/SENSEX contracts the Dhan cut lists and the Kite fixture lacks. */
const KITE_OVERLAP_FILE = marketFixture('dhan', 'kite_instruments_NFO_BFO_2026-08-18_dhan-overlap.csv');
const HEADER =
  'SEM_EXM_EXCH_ID,SEM_SEGMENT,SEM_SMST_SECURITY_ID,SEM_INSTRUMENT_NAME,SEM_EXPIRY_CODE,SEM_TRADING_SYMBOL,SEM_LOT_UNITS,SEM_CUSTOM_SYMBOL,SEM_EXPIRY_DATE,SEM_STRIKE_PRICE,SEM_OPTION_TYPE,SEM_TICK_SIZE,SEM_EXPIRY_FLAG,SEM_EXCH_INSTRUMENT_TYPE,SEM_SERIES,SM_SYMBOL_NAME';

let dhan: Parsed;
beforeAll(async () => {
  dhan = await collect(parseDhan(createReadStream(FILE)));
});

const find = (exchange: string, symbol: string) =>
  dhan.rows.find((r) => r.exchange === exchange && r.symbol === symbol);

/** Parses a Dhan master given as lines after the header; the last line has no newline, as Dhan serves it. */
const parseLines = (...lines: string[]) => collect(parseDhan(Readable.from([[HEADER, ...lines].join('\n')])));

describe('the Dhan scrip master (test/fixtures/market/dhan, a cut of the 2026-02-10 snapshot) yields every row', () => {
  it('accounts for all 1,298 data lines as 1,291 instruments and 7 skips', () => {
    expect(dhan.rows.length + dhan.skips.length).toBe(dataLines(FILE));
    expect(dhan.rows).toHaveLength(1_291);
    expect(dhan.skips).toEqual([
      { kind: 'skip', line: 248, reason: 'exchange test security 11NSETEST-Dec2036-FUT' },
      { kind: 'skip', line: 268, reason: 'exchange test security 011NSETEST-Nov2036-FUT' },
      { kind: 'skip', line: 696, reason: 'exchange test security 11NSETEST' },
      { kind: 'skip', line: 697, reason: 'exchange test security G1NSETEST' },
      // NSE's commodity segment: DhanHQ has no exchange segment to order or quote it through.
      { kind: 'skip', line: 1104, reason: 'unsupported segment NSE/M' },
      { kind: 'skip', line: 1105, reason: 'unsupported segment NSE/M' },
      // BSE lists two indices under the code CAPINS; the first keeps it.
      { kind: 'skip', line: 1283, reason: 'duplicate symbol CAPINS on BSE_INDEX' },
    ]);
  });

  it('maps every segment to its canonical exchange and DhanHQ exchange segment', () => {
    const counts: Record<string, number> = {};
    for (const r of dhan.rows) {
      const key = `${r.brexchange}→${r.exchange} ${r.instrumenttype}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    expect(counts).toEqual({
      'NSE_EQ→NSE EQ': 445,
      'BSE_EQ→BSE EQ': 8,
      'IDX_I→NSE_INDEX INDEX': 119,
      'IDX_I→BSE_INDEX INDEX': 74,
      // NSE/D: 15 index + 8 stock futures; options: the NIFTY/BANKNIFTY contracts the Kite
      // snapshot shares, a few near ones (NIFTY, FINNIFTY, SBIN, RELIANCE)
      'NSE_FNO→NFO FUT': 23,
      'NSE_FNO→NFO CE': 177,
      'NSE_FNO→NFO PE': 200,
      'BSE_FNO→BFO FUT': 17,
      'BSE_FNO→BFO CE': 103,
      'BSE_FNO→BFO PE': 103,
      'MCX_COMM→MCX FUT': 3,
      'MCX_COMM→MCX CE': 2,
      'MCX_COMM→MCX PE': 1,
      // Expired currency contracts stay in the file and are yielded like any other.
      'NSE_CURRENCY→CDS FUT': 5,
      'NSE_CURRENCY→CDS CE': 1,
      'NSE_CURRENCY→CDS PE': 7,
      'BSE_CURRENCY→BCD FUT': 2,
      'BSE_CURRENCY→BCD CE': 1,
    });
  });

  it('states no reference price: the master has no price column', () => {
    expect(dhan.rows.filter((r) => r.referencePrice !== undefined)).toEqual([]);
  });

  it('has unique (exchange, symbol) and unique (segment, security id)', () => {
    expect(new Set(dhan.rows.map((r) => `${r.exchange}:${r.symbol}`)).size).toBe(dhan.rows.length);
    expect(new Set(dhan.rows.map((r) => `${r.brexchange}:${r.token}`)).size).toBe(dhan.rows.length);
  });
});

describe('Dhan derivatives get canonical symbols from the trading symbol and the expiry date', () => {
  it('maps a NIFTY weekly option completely (security id as token, NSE_FNO, tick 5 paise)', () => {
    expect(find('NFO', 'NIFTY10FEB2625000CE')).toEqual({
      symbol: 'NIFTY10FEB2625000CE',
      brsymbol: 'NIFTY-Feb2026-25000-CE',
      name: 'NIFTY',
      exchange: 'NFO',
      brexchange: 'NSE_FNO',
      token: '42500',
      expiry: '10-FEB-26',
      expiryDate: '2026-02-10',
      strike: 25000,
      lotsize: 65,
      instrumenttype: 'CE',
      tickSize: 0.05,
      underlying: 'NIFTY',
    });
  });

  it('tells apart the weeklies Dhan lists under one trading symbol, holiday-shifted Mondays included', () => {
    const march = dhan.rows.filter((r) => r.brsymbol === 'NIFTY-Mar2026-25000-CE');
    expect(march.map((r) => [r.symbol, r.token]).sort()).toEqual([
      ['NIFTY02MAR2625000CE', '54886'],
      ['NIFTY10MAR2625000CE', '45539'],
      ['NIFTY30MAR2625000CE', '62926'],
    ]);
    expect(dhan.rows.filter((r) => r.brsymbol === 'NIFTY-Feb2026-25000-CE').map((r) => r.expiryDate)).toEqual(
      ['2026-02-10', '2026-02-17', '2026-02-24'],
    );
  });

  it('maps an NSE index future, whose strike column says -0.01', () => {
    expect(find('NFO', 'BANKNIFTY30MAR26FUT')).toEqual({
      symbol: 'BANKNIFTY30MAR26FUT',
      brsymbol: 'BANKNIFTY-Mar2026-FUT',
      name: 'BANKNIFTY',
      exchange: 'NFO',
      brexchange: 'NSE_FNO',
      token: '51701',
      expiry: '30-MAR-26',
      expiryDate: '2026-03-30',
      strike: null,
      lotsize: 30,
      instrumenttype: 'FUT',
      tickSize: 0.2,
      underlying: 'BANKNIFTY',
    });
  });

  it('maps BSE futures (strike 0, no option type) and options on BSE_FNO', () => {
    expect(find('BFO', 'SENSEX26FEB26FUT')).toEqual({
      symbol: 'SENSEX26FEB26FUT',
      brsymbol: 'SENSEX-Feb2026-FUT',
      name: 'SENSEX',
      exchange: 'BFO',
      brexchange: 'BSE_FNO',
      token: '1165486',
      expiry: '26-FEB-26',
      expiryDate: '2026-02-26',
      strike: null,
      lotsize: 20,
      instrumenttype: 'FUT',
      tickSize: 0.05,
      underlying: 'SENSEX',
    });
    expect(find('BFO', 'SENSEX5026FEB26FUT')).toMatchObject({ token: '1162338', lotsize: 75 });
    expect(find('BFO', 'BANKEX26FEB2660000CE')).toMatchObject({ token: '1168120', lotsize: 30 });
    expect(find('BFO', 'SBIN26FEB261000CE')).toEqual({
      symbol: 'SBIN26FEB261000CE',
      brsymbol: 'SBIN-Feb2026-1000-CE',
      name: 'SBIN',
      exchange: 'BFO',
      brexchange: 'BSE_FNO',
      token: '1164953',
      expiry: '26-FEB-26',
      expiryDate: '2026-02-26',
      strike: 1000,
      lotsize: 750,
      instrumenttype: 'CE',
      tickSize: 0.05,
      underlying: 'SBIN',
    });
  });

  it('maps stock futures and options, hyphenated bases included', () => {
    expect(find('NFO', 'BAJAJ-AUTO24FEB26FUT')).toEqual({
      symbol: 'BAJAJ-AUTO24FEB26FUT',
      brsymbol: 'BAJAJ-AUTO-Feb2026-FUT',
      name: 'BAJAJ-AUTO',
      exchange: 'NFO',
      brexchange: 'NSE_FNO',
      token: '59216',
      expiry: '24-FEB-26',
      expiryDate: '2026-02-24',
      strike: null,
      lotsize: 75,
      instrumenttype: 'FUT',
      tickSize: 0.5,
      underlying: 'BAJAJ-AUTO',
    });
    expect(find('NFO', 'RELIANCE24FEB26FUT')).toMatchObject({ token: '59460', lotsize: 500, tickSize: 0.1 });
    expect(find('NFO', 'SBIN24FEB261000CE')).toMatchObject({ token: '134260', lotsize: 750 });
    expect(find('NFO', 'M&M24FEB26FUT')).toMatchObject({ underlying: 'M&M' });
  });

  it('maps MCX futures and options on MCX_COMM, the day in the symbol, ticks in paise', () => {
    expect(find('MCX', 'SILVER05MAR26FUT')).toEqual({
      symbol: 'SILVER05MAR26FUT',
      brsymbol: 'SILVER-05Mar2026-FUT',
      name: 'SILVER',
      exchange: 'MCX',
      brexchange: 'MCX_COMM',
      token: '451666',
      expiry: '05-MAR-26',
      expiryDate: '2026-03-05',
      strike: null,
      lotsize: 1,
      instrumenttype: 'FUT',
      tickSize: 1,
      underlying: 'SILVER',
    });
    expect(find('MCX', 'SILVER24FEB26106500CE')).toEqual({
      symbol: 'SILVER24FEB26106500CE',
      brsymbol: 'SILVER-24Feb2026-106500-CE',
      name: 'SILVER',
      exchange: 'MCX',
      brexchange: 'MCX_COMM',
      token: '451667',
      expiry: '24-FEB-26',
      expiryDate: '2026-02-24',
      strike: 106500,
      lotsize: 1,
      instrumenttype: 'CE',
      tickSize: 0.5,
      underlying: 'SILVER',
    });
    expect(find('MCX', 'MCXBULLDEX24FEB2629900CE')).toMatchObject({ token: '488643', tickSize: 0.05 });
  });

  it('keeps currency decimals (strike 104.75, tick ₹0.0025) and yields expired contracts', () => {
    expect(find('CDS', 'EURINR27MAR26104.75CE')).toEqual({
      symbol: 'EURINR27MAR26104.75CE',
      brsymbol: 'EURINR-Mar2026-104.75-CE',
      name: 'EURINR',
      exchange: 'CDS',
      brexchange: 'NSE_CURRENCY',
      token: '10000',
      expiry: '27-MAR-26',
      expiryDate: '2026-03-27',
      strike: 104.75,
      lotsize: 1,
      instrumenttype: 'CE',
      tickSize: 0.0025,
      underlying: 'EURINR',
    });
    // One trading symbol, a monthly and a weekly contract, both expired before the snapshot.
    expect(find('CDS', 'EURINR29OCT25FUT')).toMatchObject({ token: '1005', brsymbol: 'EURINR-Oct2025-FUT' });
    expect(find('CDS', 'EURINR03OCT25FUT')).toMatchObject({ token: '2892', brsymbol: 'EURINR-Oct2025-FUT' });
    expect(find('BCD', 'USDINR28AUG24FUT')).toEqual({
      symbol: 'USDINR28AUG24FUT',
      brsymbol: 'USDINR-28Aug2024-FUT',
      name: 'USDINR',
      exchange: 'BCD',
      brexchange: 'BSE_CURRENCY',
      token: '1026077',
      expiry: '28-AUG-24',
      expiryDate: '2024-08-28',
      strike: null,
      lotsize: 1,
      instrumenttype: 'FUT',
      tickSize: 0.0025,
      underlying: 'USDINR',
    });
  });
});

describe('Dhan cash rows and indices', () => {
  it('maps NSE and BSE equities with their own segments and security ids', () => {
    expect(find('NSE', 'SBIN')).toEqual({
      symbol: 'SBIN',
      brsymbol: 'SBIN',
      name: 'STATE BANK OF INDIA',
      exchange: 'NSE',
      brexchange: 'NSE_EQ',
      token: '3045',
      expiry: null,
      expiryDate: null,
      strike: null,
      lotsize: 1,
      instrumenttype: 'EQ',
      tickSize: 0.1,
      underlying: null,
    });
    expect(find('BSE', 'SBIN')).toMatchObject({ brexchange: 'BSE_EQ', token: '500112', tickSize: 0.05 });
    for (const symbol of ['RELIANCE', 'INFY']) {
      expect(find('NSE', symbol)?.brexchange).toBe('NSE_EQ');
      expect(find('BSE', symbol)?.brexchange).toBe('BSE_EQ');
    }
    expect(find('NSE', 'GOLDSTAR')).toMatchObject({ lotsize: 11_250 });
  });

  it('gives the ordinary share its symbol and other securities of the issuer Kite’s SYMBOL-SERIES', () => {
    expect(find('NSE', 'CHOLAFIN')?.token).toBe('685');
    expect(find('NSE', 'CHOLAFIN-D1')).toMatchObject({ brsymbol: 'CHOLAFIN', token: '19257' });
    expect(['IMC1-N1', 'IMC1-N2', 'IMC1-N3'].map((s) => find('NSE', s)?.token)).toEqual([
      '14219',
      '14224',
      '14228',
    ]);
    expect(find('NSE', 'IMC1')).toBeUndefined();
    expect(find('BSE', '875PFL26')).toMatchObject({ token: '974653' });
  });

  it('maps index rows to NSE_INDEX/BSE_INDEX on IDX_I, lot 0, tick in rupees', () => {
    expect(find('NSE_INDEX', 'NIFTY')).toEqual({
      symbol: 'NIFTY',
      brsymbol: 'NIFTY',
      name: 'Nifty 50',
      exchange: 'NSE_INDEX',
      brexchange: 'IDX_I',
      token: '13',
      expiry: null,
      expiryDate: null,
      strike: null,
      lotsize: 0,
      instrumenttype: 'INDEX',
      tickSize: 0.05,
      underlying: null,
    });
    expect(find('NSE_INDEX', 'BANKNIFTY')).toMatchObject({ token: '25', name: 'Nifty Bank' });
    expect(find('BSE_INDEX', 'SENSEX')).toMatchObject({ token: '51', brexchange: 'IDX_I', tickSize: 0.01 });
  });

  it.each([
    ['NSE_INDEX', 'NIFTY MID100 FREE', 'NIFTYMIDCAP100'],
    ['NSE_INDEX', 'NIFTYMCAP50', 'NIFTYMIDCAP50'],
    ['NSE_INDEX', 'NIFTY SMALLCAP 100', 'NIFTYSMLCAP100'],
    ['NSE_INDEX', 'NIFTY MIDSMALLCAP 400', 'NIFTYMIDSML400'],
    ['NSE_INDEX', 'NIFTY100 EQUAL WEIGHT', 'NIFTY100EQLWGT'],
    ['NSE_INDEX', 'NIFTY100 LOW VOLATILITY 30', 'NIFTY100LOWVOL30'],
    ['NSE_INDEX', 'NIFTY NEXT 50', 'NIFTYNXT50'],
    ['NSE_INDEX', 'INDIA VIX', 'INDIAVIX'],
    ['NSE_INDEX', 'FINNIFTY', 'FINNIFTY'],
    ['NSE_INDEX', 'MIDCPNIFTY', 'MIDCPNIFTY'],
    ['BSE_INDEX', 'SNSX50', 'SENSEX50'],
    ['BSE_INDEX', 'BSE CG', 'BSECAPITALGOODS'],
    ['BSE_INDEX', 'BANKEX', 'BANKEX'],
  ])('%s %s → %s', (exchange, brsymbol, symbol) => {
    expect(dhan.rows.find((r) => r.exchange === exchange && r.brsymbol === brsymbol)?.symbol).toBe(symbol);
  });

  it('names the NSE indices as Kite does and the BSE indices as Upstox does', async () => {
    const kite = await collect(parseZerodha(createReadStream(NSE_FILE)));
    const ours = new Set(dhan.rows.filter((r) => r.exchange === 'NSE_INDEX').map((r) => r.symbol));
    const kiteIndices = kite.rows.filter((r) => r.exchange === 'NSE_INDEX').map((r) => r.symbol);
    // Dhan does not list these two (its `Nifty500 LowVol50` is another index).
    expect(kiteIndices.filter((s) => !ours.has(s))).toEqual(['HANGSENGBEESNAV', 'NIFTYLOWVOL50']);
    const upstox = await collect(
      parseUpstox(
        createReadStream(marketFixture('upstox', 'upstox_complete_2026-02-05.csv.gz')).pipe(createGunzip()),
      ),
    );
    const bse = new Set(upstox.rows.filter((r) => r.exchange === 'BSE_INDEX').map((r) => r.symbol));
    const ourBse = new Set(dhan.rows.filter((r) => r.exchange === 'BSE_INDEX').map((r) => r.symbol));
    // 65 of Dhan's 74 BSE indices are Upstox's; these four of Upstox's 69 Dhan does not list.
    expect([...bse].filter((s) => !ourBse.has(s)).sort()).toEqual(['DIVY50', 'INDDEF', 'MOME50', 'QUAL50']);
    expect([...ourBse].filter((s) => bse.has(s))).toHaveLength(65);
    expect([...ourBse]).toEqual(expect.arrayContaining(['SENSEX', 'BANKEX', 'SENSEX50', 'BSECAPITALGOODS']));
  });
});

describe('a Dhan file is recognised by its header; rows it cannot map are skipped with a reason', () => {
  it('refuses a Kite file and an empty file', async () => {
    await expect(collect(dhanFormat.parse(createReadStream(NSE_FILE)))).rejects.toThrow(
      /^not a Dhan scrip master: header "instrument_token,exchange_token,.*" lacks SEM_EXM_EXCH_ID, /,
    );
    await expect(collect(parseDhan(Readable.from([''])))).rejects.toThrow(
      'not a Dhan scrip master: the file is empty',
    );
  });

  it('reads the last line without a newline and reports the lines it cannot use', async () => {
    const { rows, skips } = await parseLines(
      'NSE,D,1,OPTIDX,0,NIFTY-Feb2026-25000-CE,65.0,X,2026-02-10 14:30:00,25000.00000,XX,5.0000,W,OP,,',
      'NSE,D,2,OPTIDX,0,NIFTY-Mar2026-25000-CE,65.0,X,2026-02-10 14:30:00,25000.00000,CE,5.0000,W,OP,,',
      'NSE,D,3,OPTIDX,0,NIFTY-Feb2026-25100-CE,65.0,X,2026-02-10 14:30:00,25000.00000,CE,5.0000,W,OP,,',
      'NSE,D,4,OPTIDX,0,NIFTY 10 FEB 25000 CALL,65.0,X,2026-02-10 14:30:00,25000.00000,CE,5.0000,W,OP,,',
      'NSE,D,5,FUTIDX,0,NIFTY-Feb2026-25000-CE,65.0,X,2026-02-24 14:30:00,-0.01000,XX,5.0000,M,FUT,,',
      'NSE,D,6,OPTIDX,0,NIFTY-Feb2026-25000-CE,65.0,X,,25000.00000,CE,5.0000,W,OP,,',
      'NSE,D,7,OPTIDX,0,NIFTY-Feb2026-25000-CE,0.5,X,2026-02-10 14:30:00,25000.00000,CE,5.0000,W,OP,,',
      'NSE,D,8,SPREAD,0,NIFTY-Feb2026-FUT,65.0,X,2026-02-24 14:30:00,-0.01000,XX,5.0000,M,FUT,,',
      'NSE,M,9,OPTFUT,0,GOLD-25Feb2026-150000-CE,1.0,X,2026-02-25 20:00:00,150000.00000,CE,100.0000,M,OPTFUT,1,GOLD',
      'NCDEX,M,10,FUTCOM,0,GUARSEED-20Feb2026-FUT,1.0,X,2026-02-20 00:00:00,0.00000,XX,100.0000,M,FUTCOM,1,GUAR',
      'BSE,I,11,EQUITY,0,SENSEX,1.0,Sensex,0001-01-01,,XX,0.0100,,INDEX,X,SENSEX',
      'NSE,E,12,EQUITY,0,N2NSETEST,1.0,N2NSETEST,,,,5.0000,NA,Other,EQ,N2NSETEST',
      'NSE,E,13,EQUITY,0,SBIN,1.0,State Bank of India,,,,0,NA,ES,EQ,STATE BANK OF INDIA',
      'NSE,E,,EQUITY,0,SBIN,1.0,State Bank of India,,,,10.0000,NA,ES,EQ,STATE BANK OF INDIA',
      'NSE,E,15,EQUITY',
      'NSE,E,16,EQUITY,0,SBIN,1.0,State Bank of India,,,,10.0000,NA,ES,EQ,STATE BANK OF INDIA',
    );
    expect(rows.map((r) => r.symbol)).toEqual(['SBIN']);
    expect(skips.map((s) => [s.line, s.reason])).toEqual([
      [2, 'bad option type XX'],
      [3, 'expiry 2026-02-10 not that of NIFTY-Mar2026-25000-CE'],
      [4, 'strike 25000 not that of NIFTY-Feb2026-25100-CE'],
      [5, 'unreadable trading symbol NIFTY 10 FEB 25000 CALL'],
      [6, 'unreadable trading symbol NIFTY-Feb2026-25000-CE'],
      [7, 'missing expiry'],
      [8, 'bad lot size 0.5'],
      [9, 'unexpected instrument type SPREAD on NSE/D'],
      [10, 'unsupported segment NSE/M'],
      [11, 'unsupported segment NCDEX/M'],
      [12, 'unexpected instrument type EQUITY on BSE/I'],
      [13, 'exchange test security N2NSETEST'],
      [14, 'bad tick size 0'],
      [15, 'missing token'],
      [16, 'too few fields (4 of 16)'],
    ]);
  });

  it('propagates a truncated gzip', async () => {
    const gz = gzipSync(readFileSync(FILE));
    const input = Readable.from([gz.subarray(0, gz.length >> 1)]).pipe(createGunzip());
    await expect(collect(parseDhan(input))).rejects.toMatchObject({ code: 'Z_BUF_ERROR' });
  });
});

/** What two brokers' imports must agree on for one contract. */
const terms = (r: Instrument) => ({
  symbol: r.symbol,
  exchange: r.exchange,
  expiryDate: r.expiryDate,
  expiry: r.expiry,
  strike: r.strike,
  lotsize: r.lotsize,
  instrumenttype: r.instrumenttype,
  underlying: r.underlying,
});

describe('the Dhan and Zerodha imports give the same contracts the same service symbols', () => {
  // Kite NFO/BFO of 2026-08-18 (the fixture, and the overlap cut beside the Dhan fixture) and Kite
  // NSE of 2025-10-06, against Dhan's 2026-02-10 master.
  let kite: Map<string, Instrument>;
  /** Kite instrument_token → exchange_token (the exchange's own contract id). */
  const exchangeTokens = new Map<string, string>();
  beforeAll(async () => {
    const files = [FO_FILE, KITE_OVERLAP_FILE, NSE_FILE];
    const parsed = await Promise.all(files.map((f) => collect(parseZerodha(createReadStream(f)))));
    for (const p of parsed) expect(p.skips).toEqual([]);
    kite = new Map(parsed.flatMap((p) => p.rows).map((r) => [`${r.exchange}:${r.symbol}`, r]));
    for (const f of files)
      for (const line of readFileSync(f, 'utf8').trimEnd().split('\n').slice(1)) {
        const [instrumentToken, exchangeToken] = line.split(',');
        exchangeTokens.set(instrumentToken!, exchangeToken!);
      }
  });
  const overlap = (pick: (r: Instrument) => boolean) =>
    dhan.rows.filter(pick).flatMap((r) => {
      const k = kite.get(`${r.exchange}:${r.symbol}`);
      return k ? [{ dhan: r, kite: k }] : [];
    });

  it('agrees on all 553 NIFTY, BANKNIFTY and SENSEX options both snapshots list (Sep 2026 … Dec 2030)', () => {
    const pairs = overlap((r) => ['NIFTY', 'BANKNIFTY', 'SENSEX'].includes(r.underlying ?? ''));
    expect(
      countBy(pairs.map((p) => ({ ...p.dhan, exchange: `${p.dhan.exchange} ${p.dhan.underlying!}` }))),
    ).toEqual({
      'NFO NIFTY CE': 138,
      'NFO NIFTY PE': 159,
      'NFO BANKNIFTY CE': 30,
      'NFO BANKNIFTY PE': 32,
      'BFO SENSEX CE': 97,
      'BFO SENSEX PE': 97,
    });
    for (const { dhan: d, kite: k } of pairs) expect(terms(d)).toEqual(terms(k));
    const expiries = [...new Set(pairs.map((p) => `${p.dhan.underlying!} ${p.dhan.expiryDate!}`))].sort();
    expect(expiries).toEqual([
      'BANKNIFTY 2026-09-29',
      'BANKNIFTY 2026-12-29',
      'NIFTY 2026-09-29',
      'NIFTY 2026-12-29',
      'NIFTY 2027-06-29',
      'NIFTY 2027-12-28',
      'NIFTY 2028-06-27',
      'NIFTY 2028-12-26',
      'NIFTY 2029-06-26',
      'NIFTY 2029-12-24',
      'NIFTY 2030-06-25',
      'NIFTY 2030-12-31',
      'SENSEX 2026-09-24',
      'SENSEX 2026-12-31',
      'SENSEX 2027-06-24',
      'SENSEX 2027-12-30',
      'SENSEX 2028-06-29',
      'SENSEX 2028-12-28',
      'SENSEX 2029-06-28',
      'SENSEX 2029-12-27',
      'SENSEX 2030-06-27',
      'SENSEX 2030-12-26',
    ]);
  });

  it('matches the same NSE contracts: the Dhan security id is the Kite exchange token of every shared NFO option', () => {
    const pairs = overlap((r) => r.exchange === 'NFO');
    expect(pairs).toHaveLength(359);
    for (const { dhan: d, kite: k } of pairs)
      expect([d.symbol, d.token]).toEqual([k.symbol, exchangeTokens.get(k.token)]);
  });

  it('shares no future: Dhan lists index futures to 2026-04-30, Kite from 2026-08-25', () => {
    const futures = (rows: Iterable<Instrument>) =>
      [...rows].filter(
        (r) => r.instrumenttype === 'FUT' && ['NIFTY', 'BANKNIFTY', 'SENSEX'].includes(r.underlying!),
      );
    const last = futures(dhan.rows)
      .map((r) => r.expiryDate!)
      .sort()
      .at(-1);
    const first = futures(kite.values())
      .map((r) => r.expiryDate!)
      .sort()[0];
    expect([last, first]).toEqual(['2026-04-30', '2026-08-25']);
    expect(overlap((r) => r.instrumenttype === 'FUT')).toEqual([]);
    // Both name them base + DDMMMYY + FUT with the same lots.
    expect(find('NFO', 'NIFTY24FEB26FUT')).toMatchObject({
      lotsize: kite.get('NFO:NIFTY25AUG26FUT')!.lotsize,
    });
    expect(find('NFO', 'BANKNIFTY24FEB26FUT')).toMatchObject({
      lotsize: kite.get('NFO:BANKNIFTY25AUG26FUT')!.lotsize,
    });
    expect(find('BFO', 'SENSEX26FEB26FUT')).toMatchObject({
      lotsize: kite.get('BFO:SENSEX27AUG26FUT')!.lotsize,
    });
  });

  it('agrees on the 445 NSE equities both list, but the SME lots NSE revised between the snapshots', () => {
    const pairs = overlap((r) => r.exchange === 'NSE');
    expect(pairs).toHaveLength(445);
    const lotChanged = pairs.filter((p) => p.dhan.lotsize !== p.kite.lotsize);
    // SME market lots are reset by price; SOLEX also moved to the main board (lot 1).
    expect(lotChanged.map((p) => [p.kite.brsymbol, p.kite.lotsize, p.dhan.lotsize])).toEqual([
      ['VINSYS-SM', 500, 250],
      ['AKIKO-ST', 1600, 800],
      ['SHUBHSHREE-SM', 600, 300],
      ['SOLEX-ST', 125, 1],
      ['COOLCAPS-SM', 2500, 1250],
    ]);
    for (const { dhan: d, kite: k } of pairs)
      expect({ ...terms(d), lotsize: 0 }).toEqual({ ...terms(k), lotsize: 0 });
    // Kite's symbols carry the series (`GOLDSTAR-SM`), which the service symbol drops.
    expect(pairs.filter((p) => p.dhan.symbol !== p.kite.brsymbol)).toHaveLength(303);
    expect(pairs.map((p) => p.dhan.symbol)).toEqual(
      expect.arrayContaining(['SBIN', 'BAJAJ-AUTO', 'M&M', 'GOLDSTAR', 'CHOLAFIN', 'CHOLAFIN-D1', 'IMC1-N1']),
    );
  });
});
