/**
 * The Kite importer against the file's own forms and faults: the raw CSV, exchanges the fixtures
 * lack, the reference price, bad lines and files that are not a Kite instruments file. (Mapping
 * of the fixtures' contracts: zerodha.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  FO_FILE,
  HEADER,
  NSE_FILE,
  parseKiteFixtures,
  parseText,
  type Parsed,
} from '../../../../test/helpers/kite-instruments.js';
import type { ParsedItem } from '../instrument.js';
import { parseZerodha, zerodhaFormat } from './zerodha.js';

let fo: Parsed;
let nse: Parsed;
beforeAll(async () => {
  ({ fo, nse } = await parseKiteFixtures());
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
