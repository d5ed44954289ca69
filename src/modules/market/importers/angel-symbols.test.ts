/**
 * The Angel One importer's symbol forms (series suffixes, derivative symbols written other ways)
 * and the files it refuses. The fixture rows and their provenance are described in angel.test.ts.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { collect, NSE_FILE, type Parsed } from '../../../../test/helpers/kite-instruments.js';
import { marketFixture } from '../../../../test/helpers/market-fixtures.js';
import { angelFormat, parseAngel } from './angel.js';

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
