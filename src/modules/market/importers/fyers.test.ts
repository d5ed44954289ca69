import { createReadStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { marketFixture } from '../../../../test/helpers/market-fixtures.js';
import type { Instrument, ParsedItem } from '../instrument.js';
import { fyersFormat, parseFyers } from './fyers.js';

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

const FILES = ['NSE_CM', 'BSE_CM', 'BSE_FO', 'NSE_CD', 'MCX_COM'] as const;
const parsed = {} as Record<(typeof FILES)[number], Parsed>;
beforeAll(async () => {
  await Promise.all(
    FILES.map(async (name) => {
      parsed[name] = await collect(parseFyers(createReadStream(marketFixture('fyers', `${name}.csv`))));
    }),
  );
});

function countBy(rows: Instrument[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of rows)
    counts[`${r.exchange} ${r.instrumenttype}`] = (counts[`${r.exchange} ${r.instrumenttype}`] ?? 0) + 1;
  return counts;
}

const find = (file: (typeof FILES)[number], exchange: string, symbol: string) =>
  parsed[file].rows.find((r) => r.exchange === exchange && r.symbol === symbol);

describe('the headerless Fyers masters (test/fixtures/market/fyers, a cut of the snapshot) yield every row', () => {
  it.each([
    ['NSE_CM', 341, { 'NSE EQ': 221, 'NSE_INDEX INDEX': 120 }],
    ['BSE_FO', 215, { 'BFO CE': 84, 'BFO PE': 83, 'BFO FUT': 48 }],
    ['NSE_CD', 453, { 'CDS CE': 124, 'CDS PE': 146, 'CDS FUT': 183 }],
    ['MCX_COM', 512, { 'MCX CE': 192, 'MCX PE': 185, 'MCX FUT': 135 }],
  ] as const)('%s: all %d rows of the fixture, no skips', (file, total, counts) => {
    expect(parsed[file].skips).toEqual([]);
    expect(parsed[file].rows).toHaveLength(total);
    expect(countBy(parsed[file].rows)).toEqual(counts);
  });

  it('states no reference price: the masters have no price column', () => {
    for (const file of FILES)
      expect(parsed[file].rows.filter((r) => r.referencePrice !== undefined)).toEqual([]);
  });

  it('BSE_CM: 372 lines = 314 equities + 56 indices + 2 bonds of two issuers listed under one symbol', () => {
    expect(countBy(parsed.BSE_CM.rows)).toEqual({ 'BSE EQ': 314, 'BSE_INDEX INDEX': 56 });
    expect(parsed.BSE_CM.skips.map((s) => s.reason)).toEqual([
      'ambiguous symbol 875PFL26 on BSE, shared by 2 securities (series F)',
      'ambiguous symbol 875PFL26 on BSE, shared by 2 securities (series F)',
    ]);
    // Debt rows are deferred: with their plain symbol free, each keeps it (165 -F, 27 -G).
    const debt = parsed.BSE_CM.rows.filter((r) => /-[FG]$/.test(r.brsymbol));
    expect(debt).toHaveLength(192);
    for (const r of debt) expect(`BSE:${r.symbol}-`).toBe(r.brsymbol.slice(0, -1));
    expect(find('BSE_CM', 'BSE', '875KFL26A')?.brsymbol).toBe('BSE:875KFL26A-F');
  });

  it('reads expiry epochs as IST days: BFO 2025-11-13…2030-06-27, CDS 2025-11-14…2026-10-28, MCX 2025-09-05…2026-08-05', () => {
    for (const [file, first, last] of [
      ['BSE_FO', '2025-11-13', '2030-06-27'],
      ['NSE_CD', '2025-11-14', '2026-10-28'],
      ['MCX_COM', '2025-09-05', '2026-08-05'],
    ] as const) {
      const dates = parsed[file].rows.map((r) => r.expiryDate!).sort();
      expect([dates[0], dates.at(-1)]).toEqual([first, last]);
    }
  });
});

describe('Fyers derivatives get canonical symbols with the Fytoken and the ticker', () => {
  it('maps a SENSEX weekly option completely', () => {
    expect(find('BSE_FO', 'BFO', 'SENSEX13NOV2574700CE')).toEqual({
      symbol: 'SENSEX13NOV2574700CE',
      brsymbol: 'BSE:SENSEX25N1374700CE',
      name: 'SENSEX',
      exchange: 'BFO',
      brexchange: 'BSE_FO',
      token: '12112511131101649',
      expiry: '13-NOV-25',
      expiryDate: '2025-11-13',
      strike: 74700,
      lotsize: 20,
      instrumenttype: 'CE',
      tickSize: 0.05,
      underlying: 'SENSEX',
    });
  });

  it('keeps currency decimals and the MCX expiry day although 23:30 IST is the previous UTC evening', () => {
    expect(find('NSE_CD', 'CDS', 'EURINR14NOV25110.25CE')).toMatchObject({
      token: '101225111411673',
      tickSize: 0.0025,
    });
    expect(find('MCX_COM', 'MCX', 'SILVER05SEP25FUT')).toMatchObject({
      brsymbol: 'MCX:SILVER25SEPFUT',
      expiry: '05-SEP-25',
    });
    expect(find('NSE_CD', 'CDS', '648GS203527NOV25FUT')).toMatchObject({ underlying: '648GS2035' });
  });
});

describe('Fyers cash rows follow the Kite/Upstox symbols', () => {
  it.each([
    ['NSE', 'SBIN', 'NSE:SBIN-EQ'],
    ['NSE', 'GOLDSTAR', 'NSE:GOLDSTAR-SM'],
    ['NSE', 'CHOLAFIN', 'NSE:CHOLAFIN-EQ'],
    ['NSE', 'CHOLAFIN-D1', 'NSE:CHOLAFIN-D1'],
    ['NSE', 'BAJAJ-AUTO', 'NSE:BAJAJ-AUTO-EQ'],
    ['NSE', '656MH32', 'NSE:656MH32-SG'],
    ['BSE', 'ABB', 'BSE:ABB-A'],
    ['BSE', 'RAMAPPR-B', 'BSE:RAMAPPR-B-Z'],
  ])('%s %s ← %s', (exchange, symbol, brsymbol) => {
    const file = exchange === 'NSE' ? 'NSE_CM' : 'BSE_CM';
    expect(find(file, exchange, symbol)?.brsymbol).toBe(brsymbol);
  });

  it.each([
    ['NSE_CM', 'NSE_INDEX', 'NIFTY', 'NSE:NIFTY50-INDEX'],
    ['NSE_CM', 'NSE_INDEX', 'BANKNIFTY', 'NSE:NIFTYBANK-INDEX'],
    ['NSE_CM', 'NSE_INDEX', 'NIFTY100EQLWGT', 'NSE:NIFTY100 EQL WGT-INDEX'],
    ['NSE_CM', 'NSE_INDEX', 'BHARATBONDAPR30', 'NSE:BHARATBOND-APR30-INDEX'],
    ['BSE_CM', 'BSE_INDEX', 'SENSEX', 'BSE:SENSEX-INDEX'],
    ['BSE_CM', 'BSE_INDEX', 'SENSEX50', 'BSE:SNSX50-INDEX'],
    ['BSE_CM', 'BSE_INDEX', 'BSE100', 'BSE:100-INDEX'],
    ['BSE_CM', 'BSE_INDEX', 'BSEHEALTHCARE', 'BSE:HC-INDEX'],
    ['BSE_CM', 'BSE_INDEX', 'BSE150MIDCAPINDEX', 'BSE:150MIDCAP-INDEX'],
  ] as const)('%s index %s ← %s', (file, exchange, symbol, brsymbol) => {
    expect(find(file, exchange, symbol)).toMatchObject({
      brsymbol,
      instrumenttype: 'INDEX',
      underlying: null,
    });
  });

  it('has unique (exchange, symbol) and tokens over all five files', () => {
    const rows = FILES.flatMap((f) => parsed[f].rows);
    expect(new Set(rows.map((r) => `${r.exchange}:${r.symbol}`)).size).toBe(rows.length);
    expect(new Set(rows.map((r) => r.token)).size).toBe(rows.length);
  });
});

describe('a Fyers file is recognised by its first line', () => {
  it('refuses a file with a header', async () => {
    const kite = createReadStream(marketFixture('zerodha', 'kite_instruments_NSE_2025-10-06.csv'));
    await expect(collect(fyersFormat.parse(kite))).rejects.toThrow(
      /^not a Fyers symbol master: first line "instrument_token,exchange_token,/,
    );
  });

  it('refuses an empty file', async () => {
    await expect(collect(parseFyers(Readable.from(['\n'])))).rejects.toThrow(
      'not a Fyers symbol master: the file is empty',
    );
  });

  it('reads concatenated files and reports bad lines', async () => {
    const cd = readFileSync(marketFixture('fyers', 'NSE_CD.csv'), 'utf8').split('\n').slice(0, 2);
    const text = [
      ...cd,
      '1,X,19,1,0.0025,,s,d,1763103600,NSE:EURINR25N14110.25XE,10,12,1,EURINR,25,110.25,XE,1',
      '2,X,19,1,0.0025,,s,d,1763103600,NSE:EURINR25N14110.25CE,10,99,1,EURINR,25,110.25,CE,1',
      '3,X,19,1,0.0025,,s,d,,NSE:EURINR25N14110.25CE,10,12,1,EURINR,25,110.25,CE,1',
      '4,X,19,1',
    ].join('\n');
    const { rows, skips } = await collect(parseFyers(Readable.from([text])));
    expect(rows).toHaveLength(2);
    expect(skips).toEqual([
      { kind: 'skip', line: 3, reason: 'bad option type XE' },
      { kind: 'skip', line: 4, reason: 'unknown exchange 10/99' },
      { kind: 'skip', line: 5, reason: 'missing expiry' },
      { kind: 'skip', line: 6, reason: 'too few fields (4 of 18)' },
    ]);
  });

  it('propagates a truncated gzip', async () => {
    const gz = gzipSync(readFileSync(marketFixture('fyers', 'MCX_COM.csv')));
    const input = Readable.from([gz.subarray(0, gz.length >> 1)]).pipe(createGunzip());
    await expect(collect(parseFyers(input))).rejects.toMatchObject({ code: 'Z_BUF_ERROR' });
  });
});
