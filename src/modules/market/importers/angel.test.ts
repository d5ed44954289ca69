/**
 * The Angel One importer (`OpenAPIScripMaster.json`).
 *
 * The real file is not among the shared data (it is not available offline), so unlike the other
 * importers' fixtures, `angel/OpenAPIScripMaster_documented_rows.json` is NOT a cut of a real
 * file. It holds (one object per line; element n of the array is line n + 1):
 * - rows as published: SBIN-EQ 3045, BSE SBIN 500112, the `AMXIDX` rows Nifty 50 (99926000),
 *   Nifty Bank, India VIX and SENSEX (99919000), the bare NSE `NIFTY` 26000 row, and the
 *   ASIANPAINT25FEB213060CE, USDINR21DEC75.25CE (SmartAPI forum, topic 286 "Number format query
 *   in instrument master") and SENSEX24MAR75000PE rows;
 * - rows in that documented shape for contracts of the Kite NFO/BFO fixture of 2026-08-18 (token =
 *   Kite's exchange_token, which is the exchange token Angel uses), for the comparison below;
 * - MCX and CDS rows in the documented shape (tokens made up), the NCDEX, MCX-index and CDS
 *   underlying rows the file also lists, and malformed rows.
 * The fixtures README says the same.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  bySymbol,
  collect,
  FO_FILE,
  NSE_FILE,
  type Parsed,
} from '../../../../test/helpers/kite-instruments.js';
import { marketFixture } from '../../../../test/helpers/market-fixtures.js';
import type { Instrument } from '../instrument.js';
import { angelFormat, parseAngel } from './angel.js';
import { parseZerodha } from './zerodha.js';

const FILE = marketFixture('angel', 'OpenAPIScripMaster_documented_rows.json');

type Row = Record<string, string>;
/** An Angel scrip-master object with all nine fields (the documented SBIN-EQ row, overridden). */
const row = (over: Row = {}): Row => ({
  token: '3045',
  symbol: 'SBIN-EQ',
  name: 'SBIN',
  expiry: '',
  strike: '-1.000000',
  lotsize: '1',
  instrumenttype: '',
  exch_seg: 'NSE',
  tick_size: '5.000000',
  ...over,
});
const option = (over: Row = {}): Row =>
  row({
    token: '45200',
    symbol: 'NIFTY18AUG2626000CE',
    name: 'NIFTY',
    expiry: '18AUG2026',
    strike: '2600000.000000',
    lotsize: '65',
    instrumenttype: 'OPTIDX',
    exch_seg: 'NFO',
    ...over,
  });
const parseRows = (rows: unknown[]) => collect(parseAngel(Readable.from([JSON.stringify(rows)])));

let all: Parsed;
beforeAll(async () => {
  all = await collect(parseAngel(createReadStream(FILE)));
});

const find = (exchange: string, symbol: string) => bySymbol(all, exchange, symbol);

describe('the documented rows map to canonical instruments, every element accounted for', () => {
  it('yields 25 instruments and 11 skips for the 36 elements', () => {
    const elements = (JSON.parse(readFileSync(FILE, 'utf8')) as unknown[]).length;
    expect(elements).toBe(36);
    expect(all.rows).toHaveLength(25);
    expect(all.skips).toHaveLength(11);
  });

  const cases: [string, Instrument][] = [
    [
      'NSE equity: SBIN-EQ → SBIN, paise tick → rupees',
      {
        symbol: 'SBIN',
        brsymbol: 'SBIN-EQ',
        name: 'SBIN',
        exchange: 'NSE',
        brexchange: 'NSE',
        token: '3045',
        expiry: null,
        expiryDate: null,
        strike: null,
        lotsize: 1,
        instrumenttype: 'EQ',
        tickSize: 0.05,
        underlying: null,
      },
    ],
    [
      'BSE equity: the plain scrip id',
      {
        symbol: 'SBIN',
        brsymbol: 'SBIN',
        name: 'SBIN',
        exchange: 'BSE',
        brexchange: 'BSE',
        token: '500112',
        expiry: null,
        expiryDate: null,
        strike: null,
        lotsize: 1,
        instrumenttype: 'EQ',
        tickSize: 0.05,
        underlying: null,
      },
    ],
    [
      'NSE index: Nifty 50 → NIFTY on NSE_INDEX, no lot',
      {
        symbol: 'NIFTY',
        brsymbol: 'Nifty 50',
        name: 'NIFTY',
        exchange: 'NSE_INDEX',
        brexchange: 'NSE',
        token: '99926000',
        expiry: null,
        expiryDate: null,
        strike: null,
        lotsize: 0,
        instrumenttype: 'INDEX',
        tickSize: 0,
        underlying: null,
      },
    ],
    [
      'BSE index: SENSEX on BSE_INDEX',
      {
        symbol: 'SENSEX',
        brsymbol: 'SENSEX',
        name: 'SENSEX',
        exchange: 'BSE_INDEX',
        brexchange: 'BSE',
        token: '99919000',
        expiry: null,
        expiryDate: null,
        strike: null,
        lotsize: 0,
        instrumenttype: 'INDEX',
        tickSize: 0,
        underlying: null,
      },
    ],
    [
      'NFO index option CE: strike ÷ 100, expiry 18AUG2026 → 2026-08-18',
      {
        symbol: 'NIFTY18AUG2626000CE',
        brsymbol: 'NIFTY18AUG2626000CE',
        name: 'NIFTY',
        exchange: 'NFO',
        brexchange: 'NFO',
        token: '45200',
        expiry: '18-AUG-26',
        expiryDate: '2026-08-18',
        strike: 26000,
        lotsize: 65,
        instrumenttype: 'CE',
        tickSize: 0.05,
        underlying: 'NIFTY',
      },
    ],
    [
      'NFO index option PE',
      {
        symbol: 'NIFTY18AUG2626000PE',
        brsymbol: 'NIFTY18AUG2626000PE',
        name: 'NIFTY',
        exchange: 'NFO',
        brexchange: 'NFO',
        token: '45203',
        expiry: '18-AUG-26',
        expiryDate: '2026-08-18',
        strike: 26000,
        lotsize: 65,
        instrumenttype: 'PE',
        tickSize: 0.05,
        underlying: 'NIFTY',
      },
    ],
    [
      'NFO index future: the strike -1.000000 is ignored',
      {
        symbol: 'BANKNIFTY25AUG26FUT',
        brsymbol: 'BANKNIFTY25AUG26FUT',
        name: 'BANKNIFTY',
        exchange: 'NFO',
        brexchange: 'NFO',
        token: '58067',
        expiry: '25-AUG-26',
        expiryDate: '2026-08-25',
        strike: null,
        lotsize: 30,
        instrumenttype: 'FUT',
        tickSize: 0.2,
        underlying: 'BANKNIFTY',
      },
    ],
    [
      'NFO stock option (the forum row: 306000.000000 → 3060, 5.000000 → 0.05)',
      {
        symbol: 'ASIANPAINT25FEB213060CE',
        brsymbol: 'ASIANPAINT25FEB213060CE',
        name: 'ASIANPAINT',
        exchange: 'NFO',
        brexchange: 'NFO',
        token: '38479',
        expiry: '25-FEB-21',
        expiryDate: '2021-02-25',
        strike: 3060,
        lotsize: 300,
        instrumenttype: 'CE',
        tickSize: 0.05,
        underlying: 'ASIANPAINT',
      },
    ],
    [
      'NFO stock future',
      {
        symbol: 'SBIN25AUG26FUT',
        brsymbol: 'SBIN25AUG26FUT',
        name: 'SBIN',
        exchange: 'NFO',
        brexchange: 'NFO',
        token: '58382',
        expiry: '25-AUG-26',
        expiryDate: '2026-08-25',
        strike: null,
        lotsize: 750,
        instrumenttype: 'FUT',
        tickSize: 0.1,
        underlying: 'SBIN',
      },
    ],
    [
      'BFO SENSEX option in the exchange form SENSEX24MAR75000PE → the expiry column’s date',
      {
        symbol: 'SENSEX28MAR2475000PE',
        brsymbol: 'SENSEX24MAR75000PE',
        name: 'SENSEX',
        exchange: 'BFO',
        brexchange: 'BFO',
        token: '866186',
        expiry: '28-MAR-24',
        expiryDate: '2024-03-28',
        strike: 75000,
        lotsize: 10,
        instrumenttype: 'PE',
        tickSize: 0.05,
        underlying: 'SENSEX',
      },
    ],
    [
      'BFO SENSEX future',
      {
        symbol: 'SENSEX27AUG26FUT',
        brsymbol: 'SENSEX27AUG26FUT',
        name: 'SENSEX',
        exchange: 'BFO',
        brexchange: 'BFO',
        token: '825622',
        expiry: '27-AUG-26',
        expiryDate: '2026-08-27',
        strike: null,
        lotsize: 20,
        instrumenttype: 'FUT',
        tickSize: 0.05,
        underlying: 'SENSEX',
      },
    ],
    [
      'MCX future (FUTCOM), a ₹1 tick stated as 100.000000',
      {
        symbol: 'CRUDEOIL19FEB26FUT',
        brsymbol: 'CRUDEOIL19FEB26FUT',
        name: 'CRUDEOIL',
        exchange: 'MCX',
        brexchange: 'MCX',
        token: '900001',
        expiry: '19-FEB-26',
        expiryDate: '2026-02-19',
        strike: null,
        lotsize: 100,
        instrumenttype: 'FUT',
        tickSize: 1,
        underlying: 'CRUDEOIL',
      },
    ],
    [
      'MCX option (OPTFUT)',
      {
        symbol: 'CRUDEOIL16FEB266800CE',
        brsymbol: 'CRUDEOIL16FEB266800CE',
        name: 'CRUDEOIL',
        exchange: 'MCX',
        brexchange: 'MCX',
        token: '900002',
        expiry: '16-FEB-26',
        expiryDate: '2026-02-16',
        strike: 6800,
        lotsize: 100,
        instrumenttype: 'CE',
        tickSize: 0.1,
        underlying: 'CRUDEOIL',
      },
    ],
    [
      'CDS future (FUTCUR), a ₹0.0025 tick stated as 25000.000000 (10^7)',
      {
        symbol: 'USDINR29DEC21FUT',
        brsymbol: 'USDINR21DECFUT',
        name: 'USDINR',
        exchange: 'CDS',
        brexchange: 'CDS',
        token: '900004',
        expiry: '29-DEC-21',
        expiryDate: '2021-12-29',
        strike: null,
        lotsize: 1,
        instrumenttype: 'FUT',
        tickSize: 0.0025,
        underlying: 'USDINR',
      },
    ],
    [
      'CDS option (the forum row: 752500000.000000 → 75.25, decimals kept in the symbol)',
      {
        symbol: 'USDINR29DEC2175.25CE',
        brsymbol: 'USDINR21DEC75.25CE',
        name: 'USDINR',
        exchange: 'CDS',
        brexchange: 'CDS',
        token: '14182',
        expiry: '29-DEC-21',
        expiryDate: '2021-12-29',
        strike: 75.25,
        lotsize: 1,
        instrumenttype: 'CE',
        tickSize: 0.0025,
        underlying: 'USDINR',
      },
    ],
  ];
  it.each(cases)('%s', (_label, expected) => {
    expect(find(expected.exchange, expected.symbol)).toEqual(expected);
  });

  it.each([
    ['Nifty Bank', 'BANKNIFTY', '99926009'],
    ['India VIX', 'INDIAVIX', '99926017'],
  ])('index %s → %s on NSE_INDEX', (brsymbol, symbol, token) => {
    expect(all.rows.find((r) => r.brsymbol === brsymbol)).toMatchObject({
      symbol,
      token,
      exchange: 'NSE_INDEX',
      instrumenttype: 'INDEX',
    });
  });

  it('drops a non-share NSE series when no other security holds the plain symbol (679AP34-SG)', () => {
    expect(find('NSE', '679AP34')).toMatchObject({ brsymbol: '679AP34-SG', token: '1004', tickSize: 0.01 });
  });

  it('skips what it cannot map, each with its element number and a short reason', () => {
    expect(all.skips).toEqual([
      // The bare NSE row under an index name that predates the 999… index tokens.
      { kind: 'skip', line: 8, reason: 'bad tick size 0.000000' },
      { kind: 'skip', line: 27, reason: 'unsupported exchange NCDEX (its rows are undocumented)' },
      { kind: 'skip', line: 28, reason: 'unsupported index exchange MCX' },
      { kind: 'skip', line: 29, reason: 'unexpected instrument type UNDCUR on CDS' },
      { kind: 'skip', line: 30, reason: 'missing token' },
      { kind: 'skip', line: 31, reason: 'bad expiry 31FEB2026' },
      { kind: 'skip', line: 32, reason: 'no option type (CE/PE) at the end of NIFTY18AUG2626000XX' },
      { kind: 'skip', line: 33, reason: 'bad strike -1.000000' },
      { kind: 'skip', line: 34, reason: 'bad lot size 0' },
      { kind: 'skip', line: 35, reason: 'unknown exchange NSEIX' },
      { kind: 'skip', line: 36, reason: 'not an object (null)' },
    ]);
  });

  it('has no duplicate (exchange, symbol) and no duplicate token', () => {
    expect(new Set(all.rows.map((r) => `${r.exchange}:${r.symbol}`)).size).toBe(all.rows.length);
    expect(new Set(all.rows.map((r) => r.token)).size).toBe(all.rows.length);
  });
});

describe('the same contract gets the same service symbol from Angel and from Kite', () => {
  let kiteFo: Parsed;
  let kiteNse: Parsed;
  beforeAll(async () => {
    [kiteFo, kiteNse] = await Promise.all([
      collect(parseZerodha(createReadStream(FO_FILE))),
      collect(parseZerodha(createReadStream(NSE_FILE))),
    ]);
  });

  it('maps NIFTY 18 AUG 2026 26000 CE (lot 65) to NIFTY18AUG2626000CE, as Kite’s NIFTY2681826000CE', () => {
    const angel = find('NFO', 'NIFTY18AUG2626000CE')!;
    const kite = kiteFo.rows.find((r) => r.brsymbol === 'NIFTY2681826000CE')!;
    expect(kite.symbol).toBe('NIFTY18AUG2626000CE');
    expect(angel.symbol).toBe(kite.symbol);
    const terms = ({
      exchange,
      expiry,
      expiryDate,
      strike,
      lotsize,
      instrumenttype,
      tickSize,
      underlying,
    }: Instrument) => ({
      exchange,
      expiry,
      expiryDate,
      strike,
      lotsize,
      instrumenttype,
      tickSize,
      underlying,
    });
    expect(terms(angel)).toEqual(terms(kite));
  });

  it('finds every NFO/BFO contract of the Aug-2026 rows (NIFTY, BANKNIFTY, SENSEX, SBIN, ASHOKLEY 172.5) under the same symbol and terms in Kite', () => {
    const overlap = all.rows.filter(
      (r) => (r.exchange === 'NFO' || r.exchange === 'BFO') && r.expiryDate!.startsWith('2026-08'),
    );
    expect(overlap.map((r) => r.symbol).sort()).toEqual([
      'ASHOKLEY25AUG26172.5CE',
      'BANKNIFTY25AUG2657500CE',
      'BANKNIFTY25AUG26FUT',
      'NIFTY18AUG2626000CE',
      'NIFTY18AUG2626000PE',
      'NIFTY25AUG26FUT',
      'SBIN25AUG261000CE',
      'SBIN25AUG26FUT',
      'SENSEX20AUG2678000CE',
      'SENSEX27AUG26FUT',
    ]);
    for (const a of overlap) {
      const k = bySymbol(kiteFo, a.exchange, a.symbol);
      expect({ symbol: a.symbol, found: k !== undefined }).toEqual({ symbol: a.symbol, found: true });
      expect(a).toMatchObject({
        expiryDate: k!.expiryDate,
        strike: k!.strike,
        lotsize: k!.lotsize,
        tickSize: k!.tickSize,
        instrumenttype: k!.instrumenttype,
        underlying: k!.underlying,
      });
    }
  });

  it('maps NSE equity and the NIFTY, BANKNIFTY and INDIAVIX indices to symbols Kite’s NSE file has', () => {
    for (const [exchange, symbol] of [
      ['NSE', 'SBIN'],
      ['NSE_INDEX', 'NIFTY'],
      ['NSE_INDEX', 'BANKNIFTY'],
      ['NSE_INDEX', 'INDIAVIX'],
    ] as const) {
      expect(find(exchange, symbol)).toBeDefined();
      expect(bySymbol(kiteNse, exchange, symbol)).toBeDefined();
    }
  });
});

describe('Angel equity symbols lose the series suffix unless another security holds the plain symbol', () => {
  it('keeps CHOLAFIN for the share and CHOLAFIN-D1 for the debenture; GODHA-BE → GODHA; BAJAJ-AUTO-EQ → BAJAJ-AUTO', async () => {
    const { rows, skips } = await parseRows([
      row({ token: '685', symbol: 'CHOLAFIN-D1', name: 'CHOLAFIN' }),
      row({ token: '686', symbol: 'CHOLAFIN-EQ', name: 'CHOLAFIN' }),
      row({ token: '700', symbol: 'GODHA-BE', name: 'GODHA' }),
      row({ token: '16669', symbol: 'BAJAJ-AUTO-EQ', name: 'BAJAJ-AUTO' }),
    ]);
    expect(skips).toEqual([]);
    expect(rows.map((r) => [r.symbol, r.brsymbol, r.token])).toEqual([
      ['CHOLAFIN', 'CHOLAFIN-EQ', '686'],
      ['GODHA', 'GODHA-BE', '700'],
      ['BAJAJ-AUTO', 'BAJAJ-AUTO-EQ', '16669'],
      ['CHOLAFIN-D1', 'CHOLAFIN-D1', '685'],
    ]);
  });

  it('skips a second index under a name already taken', async () => {
    const nifty = row({ token: '99926000', symbol: 'Nifty 50', name: 'NIFTY', instrumenttype: 'AMXIDX' });
    const { rows, skips } = await parseRows([nifty, { ...nifty, token: '99926999' }]);
    expect(rows).toHaveLength(1);
    expect(skips).toEqual([{ kind: 'skip', line: 2, reason: 'duplicate symbol NIFTY on NSE_INDEX' }]);
  });
});

describe('Angel derivative symbols in other forms give the same canonical symbol', () => {
  it('reads exchange-form symbols (NIFTY26AUGFUT, CRUDEOIL26FEB6800CE) and symbols dated by their future (name as underlying)', async () => {
    const { rows, skips } = await parseRows([
      option({
        token: '1',
        symbol: 'NIFTY26AUGFUT',
        expiry: '25AUG2026',
        instrumenttype: 'FUTIDX',
        tick_size: '10.000000',
      }),
      option({
        token: '2',
        symbol: 'CRUDEOIL26FEB6800CE',
        name: 'CRUDEOIL',
        expiry: '16FEB2026',
        strike: '680000.000000',
        lotsize: '100',
        instrumenttype: 'OPTFUT',
        exch_seg: 'MCX',
      }),
      option({
        token: '3',
        symbol: 'CRUDEOIL19FEB266800PE',
        name: 'CRUDEOIL',
        expiry: '16FEB2026',
        strike: '680000.000000',
        lotsize: '100',
        instrumenttype: 'OPTFUT',
        exch_seg: 'MCX',
      }),
      option({ token: '4', symbol: 'NIFTY18Aug2626000CE', expiry: '18Aug2026' }),
    ]);
    expect(skips).toEqual([]);
    expect(rows.map((r) => [r.symbol, r.underlying])).toEqual([
      ['NIFTY25AUG26FUT', 'NIFTY'],
      ['CRUDEOIL16FEB266800CE', 'CRUDEOIL'],
      ['CRUDEOIL16FEB266800PE', 'CRUDEOIL'],
      // Expiry case does not matter; the symbol's mixed-case date falls back to `name`.
      ['NIFTY18AUG2626000CE', 'NIFTY'],
    ]);
  });

  it('skips a symbol that neither has the contract’s form nor starts with the name', async () => {
    const { rows, skips } = await parseRows([option({ symbol: 'WEIRDCE' })]);
    expect(rows).toEqual([]);
    expect(skips).toEqual([{ kind: 'skip', line: 1, reason: 'no underlying in trading symbol WEIRDCE' }]);
  });

  it('reads numbers where the file has strings (a re-saved file)', async () => {
    const { rows, skips } = await parseRows([{ ...option(), token: 45200, lotsize: 65, strike: 2600000 }]);
    expect(skips).toEqual([]);
    expect(rows[0]).toMatchObject({
      symbol: 'NIFTY18AUG2626000CE',
      token: '45200',
      lotsize: 65,
      strike: 26000,
    });
  });

  it('skips a later object that lacks a field, and a row of another instrument type on NSE', async () => {
    const { tick_size: _dropped, ...noTick } = option();
    const { skips } = await parseRows([row(), noTick, row({ instrumenttype: 'UNDIRD' }), [1, 2]]);
    expect(skips).toEqual([
      { kind: 'skip', line: 2, reason: 'bad tick size (empty)' },
      { kind: 'skip', line: 3, reason: 'unexpected instrument type UNDIRD on NSE' },
      { kind: 'skip', line: 4, reason: 'not an object (an array)' },
    ]);
  });
});

describe('a file that is not an Angel scrip master fails fast; a broken file aborts', () => {
  it('refuses the Kite CSV before yielding a row', async () => {
    await expect(collect(angelFormat.parse(createReadStream(NSE_FILE)))).rejects.toThrow(
      /^not an Angel One scrip master: not a JSON array \(it starts with "instrument_token,exchange_token,/,
    );
  });

  it('refuses a JSON array of other objects, an empty file and an empty array', async () => {
    await expect(
      parseRows([{ instrument_key: 'NSE_EQ|INE062A01020', tradingsymbol: 'SBIN' }]),
    ).rejects.toThrow(
      /^not an Angel One scrip master: its first element \{"instrument_key".*\} lacks token, symbol, name, expiry, strike, lotsize, instrumenttype, exch_seg, tick_size$/,
    );
    await expect(collect(parseAngel(Readable.from([''])))).rejects.toThrow(
      'not an Angel One scrip master: the file is empty',
    );
    await expect(parseRows([])).rejects.toThrow('not an Angel One scrip master: the array is empty');
    // What the download returned on a bad day (SmartAPI forum: "returns NULL").
    await expect(collect(parseAngel(Readable.from(['null'])))).rejects.toThrow(
      'not an Angel One scrip master: not a JSON array (it starts with "null")',
    );
  });

  it('rejects a file cut short, after the rows it could read', async () => {
    const text = readFileSync(FILE, 'utf8');
    const cut = text.slice(0, text.indexOf('{"token":"45200"') + 30);
    const seen: string[] = [];
    const run = async () => {
      for await (const item of parseAngel(Readable.from([cut])))
        if (item.kind === 'row') seen.push(item.row.symbol);
    };
    await expect(run()).rejects.toThrow(
      'malformed JSON: the input ends before the array is closed (truncated?)',
    );
    expect(seen).toContain('SBIN');
  });

  it('propagates a truncated gzip', async () => {
    const gz = gzipSync(readFileSync(FILE));
    const input = Readable.from([gz.subarray(0, Math.floor(gz.length / 2))]).pipe(createGunzip());
    await expect(collect(parseAngel(input))).rejects.toMatchObject({ code: 'Z_BUF_ERROR' });
  });

  it('parses the gzipped fixture streamed in small chunks like the plain file', async () => {
    const gz = gzipSync(readFileSync(FILE));
    const chunks = Array.from({ length: Math.ceil(gz.length / 97) }, (_, i) =>
      gz.subarray(i * 97, (i + 1) * 97),
    );
    const again = await collect(parseAngel(Readable.from(chunks).pipe(createGunzip())));
    expect(again).toEqual(all);
  });
});
