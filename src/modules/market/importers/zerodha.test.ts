import { createReadStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { marketFixture } from '../../../../test/helpers/market-fixtures.js';
import type { Instrument, ParsedItem } from '../instrument.js';
import { parseZerodha, zerodhaFormat } from './zerodha.js';

interface Parsed {
  rows: Instrument[];
  skips: Extract<ParsedItem, { kind: 'skip' }>[];
}

async function collect(items: AsyncIterable<ParsedItem>): Promise<Parsed> {
  const out: Parsed = { rows: [], skips: [] };
  for await (const item of items) {
    if (item.kind === 'row') out.rows.push(item.row);
    else out.skips.push(item);
  }
  return out;
}

function parseText(text: string): Promise<Parsed> {
  return collect(parseZerodha(Readable.from([Buffer.from(text)])));
}

/** Rows counted by `exchange instrumenttype`. */
function countBy(rows: Instrument[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of rows)
    counts[`${r.exchange} ${r.instrumenttype}`] = (counts[`${r.exchange} ${r.instrumenttype}`] ?? 0) + 1;
  return counts;
}

function dataLines(file: string): number {
  return readFileSync(file, 'utf8').trimEnd().split('\n').length - 1;
}

const FO_FILE = marketFixture('zerodha', 'kite_instruments_NFO_BFO_2026-08-18.csv');
const NSE_FILE = marketFixture('zerodha', 'kite_instruments_NSE_2025-10-06.csv');
const HEADER =
  'instrument_token,exchange_token,tradingsymbol,name,last_price,expiry,strike,tick_size,lot_size,instrument_type,segment,exchange';

let fo: Parsed;
let nse: Parsed;
beforeAll(async () => {
  [fo, nse] = await Promise.all([
    collect(parseZerodha(createReadStream(FO_FILE))),
    collect(parseZerodha(createReadStream(NSE_FILE))),
  ]);
});

const bySymbol = (p: Parsed, exchange: string, symbol: string) =>
  p.rows.find((r) => r.exchange === exchange && r.symbol === symbol);

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

describe('the raw Kite CSV (quoted names, integer numbers) parses like the pandas re-save', () => {
  it('gives identical instruments for the whole NFO/BFO file', async () => {
    const [header, ...lines] = readFileSync(FO_FILE, 'utf8').trimEnd().split('\n');
    const raw = lines.map((line) => {
      const f = line.split(',');
      f[3] = `"${f[3]}"`;
      for (const i of [4, 6, 7]) f[i] = String(Number(f[i]));
      return f.join(',');
    });
    expect(raw[0]).toBe('14866434,58072,NIFTY26AUGFUT,"NIFTY",0,2026-08-25,0,0.1,65,FUT,NFO-FUT,NFO');
    const again = await parseText(`${header}\r\n${raw.join('\r\n')}\r\n`);
    expect(again.skips).toEqual([]);
    expect(again.rows).toEqual(fo.rows);
  });
});

describe('Kite rows of the exchanges the snapshots lack map the same way (raw Kite form)', () => {
  it('maps MCX, CDS, BCD, NCO, BSE equity and BSE indices', async () => {
    const { rows, skips } = await parseText(
      [
        HEADER,
        '109134855,426308,CRUDEOIL25SEPFUT,"CRUDEOIL",0,2025-09-19,0,1,1,FUT,MCX-FUT,MCX',
        '109134856,426309,GOLDM25OCT120000CE,"GOLD",0,2025-10-27,120000,0.5,1,CE,MCX-OPT,MCX',
        '268502275,1048837,USDINR25N1486.25CE,"USDINR",0,2025-11-14,86.25,0.0025,1,CE,CDS-OPT,CDS',
        '2016130,7876,EURINR25NOVFUT,"EURINR",0,2025-11-26,0,0.0025,1,FUT,BCD-FUT,BCD',
        '3000001,11719,ALUMINI26MAYFUT,"ALUMINI",0,2026-05-29,0,0.05,1,FUT,NCO-FUT,NCO',
        '128028676,500112,SBIN,"STATE BANK OF INDIA",0,,0,0.05,1,EQ,BSE,BSE',
        '265,1,SENSEX,"SENSEX",0,,0,0,0,EQ,INDICES,BSE',
        '274441,1072,SNSX50,"SNSX50",0,,0,0,0,EQ,INDICES,BSE',
        '281,1,TESTSYM-BE,"SOME BSE SCRIP",0,,0,0.01,1,EQ,BSE,BSE',
        '290,2,GIFT NIFTY,"GIFT NIFTY",0,,0,0,0,EQ,INDICES,NSEIX',
      ].join('\n'),
    );
    expect(rows.map((r) => [r.exchange, r.symbol, r.underlying])).toEqual([
      ['MCX', 'CRUDEOIL19SEP25FUT', 'CRUDEOIL'],
      ['MCX', 'GOLDM27OCT25120000CE', 'GOLDM'],
      ['CDS', 'USDINR14NOV2586.25CE', 'USDINR'],
      ['BCD', 'EURINR26NOV25FUT', 'EURINR'],
      ['NCO', 'ALUMINI29MAY26FUT', 'ALUMINI'],
      ['BSE', 'SBIN', null],
      ['BSE_INDEX', 'SENSEX', null],
      ['BSE_INDEX', 'SENSEX50', null],
      ['BSE', 'TESTSYM-BE', null],
    ]);
    expect(skips).toEqual([{ kind: 'skip', line: 11, reason: 'unsupported index exchange NSEIX' }]);
  });
});

describe('the file’s last_price becomes the reference price (rupees) when it is positive', () => {
  const SBIN = '779521,3045,SBIN,STATE BANK OF INDIA,0.0,,0.0,0.05,1,EQ,NSE,NSE';
  const SBIN_FUT = '14945794,58382,SBIN26AUGFUT,SBIN,0.0,2026-08-25,0.0,0.1,750,FUT,NFO-FUT,NFO';
  const NIFTY_INDEX = '256265,1001,NIFTY 50,NIFTY 50,0.0,,0.0,0.0,0,EQ,INDICES,NSE';
  /** A real fixture line with its last_price field replaced. */
  const priced = (line: string, price: string) => {
    const f = line.split(',');
    f[4] = price;
    return f.join(',');
  };

  it('the snapshots state 0.0 everywhere: no row of either fixture has a price', () => {
    for (const line of [SBIN, SBIN_FUT, NIFTY_INDEX])
      expect(readFileSync(line === SBIN_FUT ? FO_FILE : NSE_FILE, 'utf8')).toContain(`\n${line}\n`);
    expect([...nse.rows, ...fo.rows].filter((r) => r.referencePrice !== undefined)).toEqual([]);
  });

  it('keeps a positive price on cash, derivative and index rows', async () => {
    const { rows, skips } = await parseText(
      [HEADER, priced(SBIN, '812.35'), priced(SBIN_FUT, '815'), priced(NIFTY_INDEX, '25727.55')].join('\n'),
    );
    expect(skips).toEqual([]);
    expect(rows.map((r) => [r.exchange, r.symbol, r.referencePrice])).toEqual([
      ['NSE', 'SBIN', 812.35],
      ['NFO', 'SBIN25AUG26FUT', 815],
      ['NSE_INDEX', 'NIFTY', 25727.55],
    ]);
  });

  it('gives none for 0, blank, negative or unreadable prices, and never skips the row for it', async () => {
    for (const line of [SBIN, SBIN_FUT])
      for (const p of ['0', '0.0', '', '-1.5', 'NaN']) {
        const one = await parseText(`${HEADER}\n${priced(line, p)}\n`);
        expect({ p, skips: one.skips, rows: one.rows.length, price: one.rows[0]?.referencePrice }).toEqual({
          p,
          skips: [],
          rows: 1,
          price: undefined,
        });
      }
  });

  it('reads a file without the column as stating no prices', async () => {
    const drop = (line: string) => line.split(',').toSpliced(4, 1).join(',');
    const { rows, skips } = await parseText(`${drop(HEADER)}\n${drop(SBIN)}\n`);
    expect(skips).toEqual([]);
    expect(rows).toMatchObject([{ symbol: 'SBIN', tickSize: 0.05 }]);
    expect(rows[0]!.referencePrice).toBeUndefined();
  });
});

describe('a bad Kite line becomes a skip with a short reason, the rest of the file is read', () => {
  it('reports each problem with its line number', async () => {
    const text = [
      HEADER,
      '779521,3045,SBIN,"STATE BANK OF INDIA",0,,0,0.05,1,EQ,NSE,NSE',
      'garbage',
      ',58072,NIFTY26AUGFUT,NIFTY,0,2026-08-25,0,0.1,65,FUT,NFO-FUT,NFO',
      '1,2,NIFTY26AUGFUT,NIFTY,0,2026-13-01,0,0.1,65,FUT,NFO-FUT,NFO',
      '1,2,NIFTY26AUGFUT,NIFTY,0,2026-08-25,0,0.1,abc,FUT,NFO-FUT,NFO',
      '1,2,NIFTY26AUGFUT,NIFTY,0,2026-08-25,0,0.1,0,FUT,NFO-FUT,NFO',
      '1,2,XYZ,XYZ,0,,0,0.05,1,EQ,XYZ,NSE_XYZ',
      '1,2,NIFTY2681824350CE,NIFTY,0,2026-08-18,0,0.05,65,CE,NFO-OPT,NFO',
      '1,2,SBIN26AUGFUT,SBIN,0,2026-08-25,0,0.1,750,EQ,NFO-FUT,NFO',
      '1,2,SBIN-X,SBIN,0,,0,0,1,EQ,NSE,NSE',
      '2,3,SBIN,"STATE BANK",0,,0,0.05,1,EQ,NSE,NSE',
      '3,4,MCXBULLDEX,MCXBULLDEX,0,,0,0,0,EQ,INDICES,MCX',
      '4,5,A,unquoted, comma,0,,0,0.05,1,EQ,NSE,NSE',
      '5,6,,,0,,0,0.05,1,EQ,NSE,NSE',
      '14866434,58072,NIFTY26AUGFUT,NIFTY,0,2026-08-25,0,0.1,65,FUT,NFO-FUT,NFO',
    ].join('\n');
    const { rows, skips } = await parseText(text);
    expect(rows.map((r) => r.symbol)).toEqual(['SBIN', 'NIFTY25AUG26FUT']);
    expect(skips).toEqual([
      { kind: 'skip', line: 3, reason: 'too few fields (1 of 12)' },
      { kind: 'skip', line: 4, reason: 'missing token' },
      { kind: 'skip', line: 5, reason: 'bad expiry 2026-13-01' },
      { kind: 'skip', line: 6, reason: 'bad lot size abc' },
      { kind: 'skip', line: 7, reason: 'bad lot size 0' },
      { kind: 'skip', line: 8, reason: 'unknown exchange NSE_XYZ' },
      { kind: 'skip', line: 9, reason: 'bad strike 0' },
      { kind: 'skip', line: 10, reason: 'unexpected instrument type EQ on NFO' },
      { kind: 'skip', line: 11, reason: 'bad tick size 0' },
      { kind: 'skip', line: 12, reason: 'duplicate symbol SBIN on NSE' },
      { kind: 'skip', line: 13, reason: 'unsupported index exchange MCX' },
      { kind: 'skip', line: 14, reason: 'too many fields (13 of 12)' },
      { kind: 'skip', line: 15, reason: 'missing trading symbol' },
    ]);
  });

  it('keeps test and far-dated contracts that are valid contracts', async () => {
    const { rows, skips } = await parseText(
      `${HEADER}\n1,2,181NSETEST36NOVFUT,181NSETEST,0,2036-11-27,0,0.05,1,FUT,NFO-FUT,NFO\n`,
    );
    expect(skips).toEqual([]);
    expect(rows[0]).toMatchObject({ symbol: '181NSETEST27NOV36FUT', underlying: '181NSETEST' });
  });
});

describe('a file that is not a Kite instruments file fails before any row', () => {
  it('refuses a foreign header and names what is missing', async () => {
    const items = parseZerodha(
      Readable.from(['"instrument_key","exchange_token","tradingsymbol"\n"NSE_EQ|X","1","SBIN"\n']),
    );
    const seen: ParsedItem[] = [];
    await expect(
      (async () => {
        for await (const item of items) seen.push(item);
      })(),
    ).rejects.toThrow(
      /^not a Zerodha instruments file: header "instrument_key,exchange_token,tradingsymbol" lacks instrument_token, name/,
    );
    expect(seen).toEqual([]);
  });

  it('refuses an empty file (an import of it must not look like an empty master)', async () => {
    await expect(parseText('')).rejects.toThrow('not a Zerodha instruments file: the file is empty');
    await expect(parseText('\uFEFF\r\n\r\n')).rejects.toThrow('the file is empty');
  });

  it('reads a header-only file as no instruments', async () => {
    expect(await parseText(`${HEADER}\n`)).toEqual({ rows: [], skips: [] });
  });

  it('propagates a truncated gzip after the rows read so far', async () => {
    const gz = gzipSync(readFileSync(FO_FILE));
    const input = Readable.from([gz.subarray(0, Math.floor(gz.length / 2))]).pipe(createGunzip());
    let rows = 0;
    await expect(
      (async () => {
        for await (const item of zerodhaFormat.parse(input)) if (item.kind === 'row') rows++;
      })(),
    ).rejects.toMatchObject({ code: 'Z_BUF_ERROR' });
    expect(rows).toBeGreaterThan(1_000);
    expect(rows).toBeLessThan(4_195);
  });
});
