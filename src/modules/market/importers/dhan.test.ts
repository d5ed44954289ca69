import { createReadStream } from 'node:fs';

import { createGunzip } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { marketFixture } from '../../../../test/helpers/market-fixtures.js';
import { collect, dataLines, NSE_FILE, type Parsed } from '../../../../test/helpers/kite-instruments.js';
import { parseDhan } from './dhan.js';
import { parseUpstox } from './upstox.js';
import { parseZerodha } from './zerodha.js';

const FILE = marketFixture('dhan', 'api-scrip-master_2026-02-10.csv');

let dhan: Parsed;
beforeAll(async () => {
  dhan = await collect(parseDhan(createReadStream(FILE)));
});

const find = (exchange: string, symbol: string) =>
  dhan.rows.find((r) => r.exchange === exchange && r.symbol === symbol);

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
