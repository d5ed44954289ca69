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

import { beforeAll, describe, expect, it } from 'vitest';
import { bySymbol, collect, type Parsed } from '../../../../test/helpers/kite-instruments.js';
import { marketFixture } from '../../../../test/helpers/market-fixtures.js';
import type { Instrument } from '../instrument.js';
import { parseAngel } from './angel.js';

const FILE = marketFixture('angel', 'OpenAPIScripMaster_documented_rows.json');

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
