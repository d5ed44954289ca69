/**
 * The Noren (Shoonya, Flattrade) symbols importer against cuts of the real files
 * (test/fixtures/market/shoonya: NSE, CDS and MCX of 2026-08-18/19, NFO and BFO from the zips in
 * the shared data, whose contracts expire in 2025–2029), and the overlap with Kite's import: the
 * same service symbol for the same instrument. The NFO/BFO cuts expire before the Kite NFO/BFO
 * snapshot of 2026-08-18 and its long-dated expiries fall on other days (2026-12-31 here,
 * 2026-12-29 there), so the derivatives share no contract with it: the overlap is checked on NSE
 * equities and indices, and the derivatives against Kite's symbol rules.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { deflateRawSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { marketFixture } from '../../../../test/helpers/market-fixtures.js';
import {
  collect,
  countBy,
  dataLines,
  NSE_FILE,
  type Parsed,
} from '../../../../test/helpers/kite-instruments.js';
import { flattradeFormat, parseNoren, shoonyaFormat, unzipSingle } from './noren.js';
import { parseZerodha } from './zerodha.js';

const F = (name: string) => marketFixture('shoonya', name);
const NSE = F('shoonya_NSE_symbols_2026-08-19_cut.txt');
const NFO = F('NFO_symbols_cut.txt');
const parse = (file: string) => collect(parseNoren(createReadStream(file)));
const find = (p: Parsed, exchange: string, symbol: string) =>
  p.rows.find((r) => r.exchange === exchange && r.symbol === symbol);

describe('formats', () => {
  it('Shoonya and Flattrade read the same Noren files under their own broker ids', () => {
    expect(shoonyaFormat.broker).toBe('shoonya');
    expect(flattradeFormat.broker).toBe('flattrade');
    expect(shoonyaFormat.parse).toBe(flattradeFormat.parse);
  });

  it('refuses a file that is not a Noren symbols file before yielding anything', async () => {
    await expect(collect(parseNoren(Readable.from(['a,b,c\n1,2,3\n'])))).rejects.toThrow(
      /not a Noren symbols file: header "a,b,c" lacks Exchange, Token/,
    );
  });
});

describe('NSE: indices and equities', () => {
  let nse: Parsed;
  beforeAll(async () => {
    nse = await parse(NSE);
  });

  it('accounts for every line: 6 indices and 442 equities, no skips', () => {
    expect(nse.rows.length + nse.skips.length).toBe(dataLines(NSE));
    expect(countBy(nse.rows)).toEqual({ 'NSE_INDEX INDEX': 6, 'NSE EQ': 442 });
  });

  it('names the indices as OpenAlgo does, from the trading symbol', () => {
    const idx = nse.rows
      .filter((r) => r.exchange === 'NSE_INDEX')
      .map((r) => [r.symbol, r.brsymbol, r.token]);
    expect(idx).toEqual([
      ['NIFTY', 'NIFTY INDEX', '26000'],
      ['BANKNIFTY', 'NIFTY BANK', '26009'],
      ['INDIAVIX', 'INDIA VIX', '26017'],
      ['FINNIFTY', 'FINNIFTY', '26037'],
      ['MIDCPNIFTY', 'MIDCPNIFTY', '26074'],
      ['NIFTYNXT50', 'NIFTYNXT50', '26013'],
    ]);
    expect(find(nse, 'NSE_INDEX', 'NIFTY')).toMatchObject({ lotsize: 0, tickSize: 0, brexchange: 'NSE' });
  });

  it('maps an equity completely: plain symbol, Noren trading symbol, token, lot and tick', () => {
    expect(find(nse, 'NSE', 'SBIN')).toEqual({
      symbol: 'SBIN',
      brsymbol: 'SBIN-EQ',
      name: 'SBIN',
      exchange: 'NSE',
      brexchange: 'NSE',
      token: '3045',
      expiry: null,
      expiryDate: null,
      strike: null,
      underlying: null,
      referencePrice: undefined,
      instrumenttype: 'EQ',
      lotsize: 1,
      tickSize: 0.1,
    });
    expect(find(nse, 'NSE', 'M&M')?.brsymbol).toBe('M&M-EQ');
  });

  it('keeps the ordinary share on the plain symbol and gives a debenture its series', () => {
    expect(find(nse, 'NSE', 'CHOLAFIN')?.brsymbol).toBe('CHOLAFIN-EQ');
    expect(find(nse, 'NSE', 'CHOLAFIN-D1')).toMatchObject({ brsymbol: 'CHOLAFIN-D1', token: '19257' });
  });
});

describe('the overlap with the Kite import (NSE of 2025-10-06)', () => {
  it('gives the Kite symbol to the same security: 439 shared symbols, one type, the exchange token', async () => {
    const [ours, kite] = await Promise.all([parse(NSE), collect(parseZerodha(createReadStream(NSE_FILE)))]);
    const kiteBy = new Map(kite.rows.map((r) => [`${r.exchange}:${r.symbol}`, r]));
    const pairs = ours.rows.flatMap((r) => {
      const k = kiteBy.get(`${r.exchange}:${r.symbol}`);
      return k ? [{ ours: r, kite: k }] : [];
    });
    expect(pairs).toHaveLength(439);
    expect(pairs.filter((p) => p.ours.instrumenttype !== p.kite.instrumenttype)).toEqual([]);
    // Kite's exchange_token is the exchange's own token, as Noren's: equal for 411 of the 433 shared equities (others were
    // re-listed in the ten months between the two files).
    const lines = readFileSync(NSE_FILE, 'utf8').trim().split('\n').slice(1);
    const exchangeToken = new Map(lines.map((l) => l.split(',')).map((f) => [`${f[11]}:${f[2]}`, f[1]]));
    const cash = pairs.filter((p) => p.ours.exchange === 'NSE');
    const differ = cash.filter((p) => exchangeToken.get(`NSE:${p.kite.brsymbol}`) !== p.ours.token);
    expect(cash.length - differ.length).toBe(411);
    expect(differ).toHaveLength(22);
    const same = new Set(cash.filter((p) => !differ.includes(p)).map((p) => p.ours.symbol));
    for (const s of ['SBIN', 'RELIANCE', 'INFY', 'M&M', 'BAJAJ-AUTO', 'CHOLAFIN'])
      expect(same.has(s)).toBe(true);
  });
});

describe('NFO (zipped as served, and plain)', () => {
  it('reads the zip and the plain cut alike: 33 contracts, the NSETEST future skipped', async () => {
    const [plain, zipped] = await Promise.all([parse(NFO), parse(F('NFO_symbols_cut.txt.zip'))]);
    expect(zipped).toEqual(plain);
    expect(countBy(plain.rows)).toEqual({ 'NFO FUT': 9, 'NFO CE': 12, 'NFO PE': 12 });
    expect(plain.skips).toEqual([
      { kind: 'skip', line: 9, reason: 'exchange test security 181NSETEST27NOV36F' },
    ]);
  });

  it('maps a NIFTY weekly option and futures to the symbols Kite gives them', async () => {
    const nfo = await parse(NFO);
    expect(find(nfo, 'NFO', 'NIFTY09JAN2523500CE')).toEqual({
      symbol: 'NIFTY09JAN2523500CE',
      brsymbol: 'NIFTY09JAN25C23500',
      name: 'NIFTY',
      exchange: 'NFO',
      brexchange: 'NFO',
      token: '48094',
      expiry: '09-JAN-25',
      expiryDate: '2025-01-09',
      strike: 23500,
      lotsize: 75,
      instrumenttype: 'CE',
      tickSize: 0.05,
      underlying: 'NIFTY',
    });
    expect(find(nfo, 'NFO', 'BANKNIFTY30JAN25FUT')).toMatchObject({
      brsymbol: 'BANKNIFTY30JAN25F',
      lotsize: 15,
    });
    expect(find(nfo, 'NFO', 'M&M30JAN253000PE')?.brsymbol).toBe('M&M30JAN25P3000');
    expect(find(nfo, 'NFO', 'BAJAJ-AUTO30JAN25FUT')?.token).toBe('35885');
    expect(find(nfo, 'NFO', 'NIFTY28JUN2939000PE')?.expiryDate).toBe('2029-06-28');
  });

  it('skips a row whose trading symbol does not spell its symbol, expiry or strike', async () => {
    const header =
      'Exchange,Token,LotSize,Symbol,TradingSymbol,Expiry,Instrument,OptionType,StrikePrice,TickSize,';
    const p = await collect(
      parseNoren(
        Readable.from([
          `${header}\nNFO,1,75,NIFTY,NIFTY16JAN25C23500,09-JAN-2025,OPTIDX,CE,23500,0.05,\n` +
            'NFO,2,75,NIFTY,NIFTY09JAN25C23600,09-JAN-2025,OPTIDX,CE,23500,0.05,\n' +
            'NFO,3,75,NIFTY,NIFTY09JAN25C23500,09-JAN-2025,OPTIDX,XX,23500,0.05,\n' +
            'BSE,4,1,SBIN,SBIN,,EQ,,,0.05,\n',
        ]),
      ),
    );
    expect(p.rows).toEqual([]);
    expect(p.skips.map((s) => s.reason)).toEqual([
      'trading symbol NIFTY16JAN25C23500 is not NIFTY of 2025-01-09',
      'strike 23500 not that of NIFTY09JAN25C23600',
      'bad option type XX',
      'BSE rows are not read (no BSE symbols file confirmed its columns)',
    ]);
  });
});

describe('BFO: BSE trading symbols, the underlying read from them', () => {
  it('maps SENSEX weeklies, monthlies and futures, SENSEX50 and BANKEX', async () => {
    const bfo = await parse(F('BFO_symbols_cut.txt'));
    expect(countBy(bfo.rows)).toEqual({ 'BFO FUT': 15, 'BFO CE': 6, 'BFO PE': 6 });
    expect(bfo.skips).toEqual([]);
    expect(find(bfo, 'BFO', 'SENSEX07JAN2578500CE')).toMatchObject({
      brsymbol: 'SENSEX2510778500CE',
      token: '822333',
      name: 'SENSEX',
      lotsize: 20,
      expiryDate: '2025-01-07',
    });
    expect(find(bfo, 'BFO', 'SENSEX28JAN2580000PE')?.brsymbol).toBe('SENSEX25JAN80000PE');
    expect(find(bfo, 'BFO', 'SENSEX07JAN25FUT')?.brsymbol).toBe('SENSEX25107FUT');
    expect(find(bfo, 'BFO', 'SENSEX5025MAR2526450PE')?.underlying).toBe('SENSEX50');
    expect(find(bfo, 'BFO', 'BANKEX25MAR25FUT')?.brsymbol).toBe('BANKEX25MARFUT');
  });
});

describe('CDS and MCX', () => {
  it('CDS: currency futures and options (decimal strikes, 0.25 paise ticks); the underlying row skipped', async () => {
    const cds = await parse(F('shoonya_CDS_symbols_2026-08-19_cut.txt'));
    expect(countBy(cds.rows)).toEqual({ 'CDS FUT': 4, 'CDS CE': 2, 'CDS PE': 2 });
    expect(cds.skips).toEqual([
      { kind: 'skip', line: 2, reason: 'unexpected instrument type UNDCUR on CDS' },
    ]);
    expect(find(cds, 'CDS', 'USDINR28SEP2694.75PE')).toMatchObject({
      brsymbol: 'USDINR28SEP26P94.75',
      strike: 94.75,
      tickSize: 0.0025,
      lotsize: 1,
    });
    expect(find(cds, 'CDS', 'USDINR11SEP26FUT')?.brsymbol).toBe('USDINR11SEP26F');
  });

  it('MCX: futures without the F, commodity options, the MCXBULLDEX index future', async () => {
    const mcx = await parse(F('shoonya_MCX_symbols_2026-08-18_cut.txt'));
    expect(countBy(mcx.rows)).toEqual({ 'MCX FUT': 21, 'MCX CE': 3, 'MCX PE': 3 });
    expect(find(mcx, 'MCX', 'CRUDEOIL19AUG26FUT')).toMatchObject({
      brsymbol: 'CRUDEOIL19AUG26',
      tickSize: 1,
    });
    expect(find(mcx, 'MCX', 'CRUDEOIL15OCT263650CE')).toMatchObject({ token: '581139', tickSize: 0.1 });
    expect(find(mcx, 'MCX', 'MCXBULLDEX28AUG26FUT')?.lotsize).toBe(30);
    expect(find(mcx, 'MCX', 'NATGASMINI24AUG26295PE')?.lotsize).toBe(250);
  });
});

describe('unzipSingle', () => {
  /** A one-entry zip of `data` written by hand (deflated), with the CRC given. */
  function zip(data: Buffer, crc: number): Buffer {
    const packed = deflateRawSync(data);
    const name = Buffer.from('x.txt');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(0, 42);
    const cdOffset = local.length + name.length + packed.length;
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(1, 8);
    end.writeUInt16LE(1, 10);
    end.writeUInt32LE(central.length + name.length, 12);
    end.writeUInt32LE(cdOffset, 16);
    return Buffer.concat([local, name, packed, central, name, end]);
  }

  it('inflates the entry and checks its CRC-32', async () => {
    const data = Buffer.from('Exchange,Token\n');
    const { crc32 } = await import('node:zlib');
    expect((await unzipSingle(zip(data, crc32(data)))).toString()).toBe('Exchange,Token\n');
    await expect(unzipSingle(zip(data, 12345))).rejects.toThrow('does not match its size and CRC-32');
    await expect(unzipSingle(Buffer.from('PK\u0003\u0004 not really'))).rejects.toThrow(
      'no end of central directory',
    );
  });
});
