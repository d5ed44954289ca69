import { beforeAll, describe, expect, it } from 'vitest';
import {
  bySymbol,
  countBy,
  dataLines,
  FO_FILE,
  NSE_FILE,
  parseKiteFixtures,
  type Parsed,
} from '../../../../test/helpers/kite-instruments.js';

let fo: Parsed;
let nse: Parsed;
beforeAll(async () => {
  ({ fo, nse } = await parseKiteFixtures());
});

describe('the Kite NFO/BFO fixture (a cut of the 2026-08-18 snapshot) yields every contract it holds', () => {
  it("yields the fixture's 4,195 rows and no skips (rows + skips = data lines)", () => {
    expect(fo.skips).toEqual([]);
    expect(fo.rows).toHaveLength(4_195);
    expect(fo.rows.length + fo.skips.length).toBe(dataLines(FO_FILE));
  });

  it('counts in the fixture NFO 2,819 = 1,089 PE + 1,090 CE + 640 FUT and BFO 1,376 = 682 PE + 682 CE + 12 FUT', () => {
    expect(countBy(fo.rows)).toEqual({
      'NFO PE': 1_089,
      'NFO CE': 1_090,
      'NFO FUT': 640,
      'BFO PE': 682,
      'BFO CE': 682,
      'BFO FUT': 12,
    });
  });

  it("splits the fixture's 2,179 NFO options into 156 on stocks and 2,023 on indices, 214 NFO underlyings (every future kept)", () => {
    const indices = new Set(['NIFTY', 'BANKNIFTY', 'FINNIFTY', 'MIDCPNIFTY', 'NIFTYNXT50']);
    const options = fo.rows.filter((r) => r.exchange === 'NFO' && r.instrumenttype !== 'FUT');
    expect(options.filter((r) => indices.has(r.underlying!))).toHaveLength(2_023);
    expect(options.filter((r) => !indices.has(r.underlying!))).toHaveLength(156);
    expect(new Set(fo.rows.filter((r) => r.exchange === 'NFO').map((r) => r.underlying)).size).toBe(214);
    expect(new Set(fo.rows.filter((r) => r.exchange === 'BFO').map((r) => r.underlying))).toEqual(
      new Set(['BANKEX', 'FOCIT', 'SENSEX', 'SENSEX50']),
    );
  });

  it("keeps the fixture's expiry ranges: NFO 5 dates 2026-08-18…2029-12-24, BFO 4 dates 2026-08-20…2026-10-29", () => {
    for (const [exchange, n, first, last] of [
      ['NFO', 5, '2026-08-18', '2029-12-24'],
      ['BFO', 4, '2026-08-20', '2026-10-29'],
    ] as const) {
      const dates = [
        ...new Set(fo.rows.filter((r) => r.exchange === exchange).map((r) => r.expiryDate!)),
      ].sort();
      expect(dates).toHaveLength(n);
      expect([dates[0], dates.at(-1)]).toEqual([first, last]);
    }
  });
});

describe('Kite derivatives get canonical symbols, expiries and the Kite token', () => {
  it('maps a NIFTY weekly option completely', () => {
    expect(bySymbol(fo, 'NFO', 'NIFTY18AUG2624350CE')).toEqual({
      symbol: 'NIFTY18AUG2624350CE',
      brsymbol: 'NIFTY2681824350CE',
      name: 'NIFTY',
      exchange: 'NFO',
      brexchange: 'NFO',
      token: '11546626',
      expiry: '18-AUG-26',
      expiryDate: '2026-08-18',
      strike: 24350,
      lotsize: 65,
      instrumenttype: 'CE',
      tickSize: 0.05,
      underlying: 'NIFTY',
    });
  });

  it('maps futures as base + DDMMMYY + FUT with their Kite lot sizes (NIFTY 65, BANKNIFTY 30, SENSEX 20)', () => {
    expect(bySymbol(fo, 'NFO', 'NIFTY25AUG26FUT')).toMatchObject({
      brsymbol: 'NIFTY26AUGFUT',
      token: '14866434',
      lotsize: 65,
      strike: null,
      tickSize: 0.1,
      expiry: '25-AUG-26',
    });
    expect(bySymbol(fo, 'NFO', 'BANKNIFTY25AUG26FUT')).toMatchObject({ token: '14865154', lotsize: 30 });
    expect(bySymbol(fo, 'BFO', 'SENSEX27AUG26FUT')).toMatchObject({ token: '211359237', lotsize: 20 });
    expect(fo.rows.filter((r) => r.underlying === 'NIFTY').every((r) => r.lotsize === 65)).toBe(true);
  });

  it('keeps decimal strikes in the symbol (ASHOKLEY 172.5)', () => {
    expect(bySymbol(fo, 'NFO', 'ASHOKLEY25AUG26172.5CE')).toMatchObject({
      token: '21671426',
      strike: 172.5,
      brsymbol: 'ASHOKLEY26AUG172.5CE',
    });
  });

  it('uses the real (holiday-shifted) expiry: the Dec-2029 NIFTY monthly expires Monday 24-DEC-29', () => {
    const row = bySymbol(fo, 'NFO', 'NIFTY24DEC2924000CE');
    expect(row).toMatchObject({
      brsymbol: 'NIFTY29DEC24000CE',
      expiry: '24-DEC-29',
      expiryDate: '2029-12-24',
    });
    expect(new Date(`${row!.expiryDate}T00:00:00Z`).getUTCDay()).toBe(1);
  });

  // The fixture keeps the whole NIFTY chains of 18-AUG-26 and 25-AUG-26 plus NIFTY29DEC24000CE;
  // the far strikes of the full snapshot (12000…34500, 141 of them) are cut away.
  it("lists the fixture's NIFTY strikes 21200…27200, 121 of them", () => {
    const strikes = [
      ...new Set(fo.rows.filter((r) => r.underlying === 'NIFTY' && r.strike !== null).map((r) => r.strike!)),
    ];
    expect(strikes).toHaveLength(121);
    expect([Math.min(...strikes), Math.max(...strikes)]).toEqual([21_200, 27_200]);
  });
});

describe('Kite NSE indices map to NSE_INDEX with OpenAlgo names', () => {
  it("yields the fixture's 462 NSE equities and all 117 indices, no skips", () => {
    expect(nse.skips).toEqual([]);
    expect(countBy(nse.rows)).toEqual({ 'NSE EQ': 462, 'NSE_INDEX INDEX': 117 });
    expect(nse.rows.length + nse.skips.length).toBe(dataLines(NSE_FILE));
  });

  it('maps NIFTY 50 to NIFTY with token 256265', () => {
    expect(bySymbol(nse, 'NSE_INDEX', 'NIFTY')).toEqual({
      symbol: 'NIFTY',
      brsymbol: 'NIFTY 50',
      name: 'NIFTY 50',
      exchange: 'NSE_INDEX',
      brexchange: 'NSE',
      token: '256265',
      expiry: null,
      expiryDate: null,
      strike: null,
      lotsize: 0,
      instrumenttype: 'INDEX',
      tickSize: 0,
      underlying: null,
    });
  });

  it.each([
    ['NIFTY BANK', 'BANKNIFTY'],
    ['NIFTY FIN SERVICE', 'FINNIFTY'],
    ['NIFTY MID SELECT', 'MIDCPNIFTY'],
    ['NIFTY NEXT 50', 'NIFTYNXT50'],
    ['INDIA VIX', 'INDIAVIX'],
    ['HANGSENG BEES-NAV', 'HANGSENGBEESNAV'],
    ['NIFTY GS 10YR CLN', 'NIFTYGS10YRCLN'],
  ])('%s → %s', (brsymbol, symbol) => {
    expect(nse.rows.find((r) => r.brsymbol === brsymbol)).toMatchObject({ symbol, exchange: 'NSE_INDEX' });
  });
});

describe('Kite equity symbols drop the series suffix unless another security holds the plain symbol', () => {
  const symbolOf = (brsymbol: string) => nse.rows.find((r) => r.brsymbol === brsymbol)?.symbol;

  it('keeps plain EQ symbols, hyphens included', () => {
    expect(bySymbol(nse, 'NSE', 'SBIN')).toMatchObject({
      token: '779521',
      lotsize: 1,
      tickSize: 0.05,
      name: 'STATE BANK OF INDIA',
    });
    expect(symbolOf('BAJAJ-AUTO')).toBe('BAJAJ-AUTO');
    expect(symbolOf('NAM-INDIA')).toBe('NAM-INDIA');
  });

  it.each([
    ['GODHA-BE', 'GODHA'],
    ['SOLEX-ST', 'SOLEX'],
    ['BIRET-RR', 'BIRET'],
    ['656KA30-SG', '656KA30'],
    ['364D040925-TB', '364D040925'],
    ['SGBSEP28VI-GB', 'SGBSEP28VI'],
    ['AARTISURF-BE', 'AARTISURF'],
  ])('%s → %s', (brsymbol, symbol) => {
    expect(symbolOf(brsymbol)).toBe(symbol);
  });

  it('keeps Kite symbols for the 13 securities that share an issuer symbol (debentures, warrants, partly paid, bond strips)', () => {
    const kept = nse.rows.filter(
      (r) => r.exchange === 'NSE' && r.symbol === r.brsymbol && /-[A-Z0-9]{2}$/.test(r.symbol),
    );
    expect(kept.map((r) => r.symbol).sort()).toEqual([
      'AAFS27B-N3',
      'AAFS27B-N4',
      'AARTISURF-P1',
      'ANURAS-W1',
      'CHOLAFIN-D1',
      'ELECTCAST-W1',
      'IMC1-N0',
      'IMC1-N1',
      'IMC1-N2',
      'IMC1-N3',
      'M&MFIN-N3',
      'MOTHERSON-D1',
      'RADIOCITY-P1',
    ]);
    expect(bySymbol(nse, 'NSE', 'CHOLAFIN')?.token).toBe('175361');
  });
});

describe('canonical symbols are unique per exchange and tokens per file', () => {
  it.each([
    ['NFO/BFO', () => fo],
    ['NSE', () => nse],
  ])('%s', (_label, get) => {
    const rows = get().rows;
    expect(new Set(rows.map((r) => `${r.exchange}:${r.symbol}`)).size).toBe(rows.length);
    expect(new Set(rows.map((r) => r.token)).size).toBe(rows.length);
  });
});
