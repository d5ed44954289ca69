import { createReadStream, readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { marketFixture } from '../../../../test/helpers/market-fixtures.js';
import type { Instrument, ParsedItem } from '../instrument.js';
import { parseUpstox, upstoxFormat } from './upstox.js';
import { parseZerodha } from './zerodha.js';

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

const FILE = marketFixture('upstox', 'upstox_complete_2026-02-05.csv.gz');
const HEADER =
  '"instrument_key","exchange_token","tradingsymbol","name","last_price","expiry","strike","tick_size","lot_size","instrument_type","option_type","exchange"';

let all: Parsed;
beforeAll(async () => {
  const t0 = performance.now();
  all = await collect(parseUpstox(createReadStream(FILE).pipe(createGunzip())));
  // Reported, not asserted: timings belong to benchmarks, not tests.
  console.log(
    `upstox_complete_2026-02-05.csv.gz: ${all.rows.length} rows parsed in ${Math.round(performance.now() - t0)} ms`,
  );
});

const find = (exchange: string, symbol: string) =>
  all.rows.find((r) => r.exchange === exchange && r.symbol === symbol);

describe('the Upstox snapshot maps every segment to a canonical exchange', () => {
  it('accounts for all 3,520 data rows of the fixture (a cut of the 204,218-row snapshot) as 3,484 rows and 36 skips', () => {
    expect(all.rows.length + all.skips.length).toBe(3_520);
    expect(all.rows).toHaveLength(3_484);
    expect(all.skips).toHaveLength(36);
  });

  it('counts each segment of the fixture as the cut of the snapshot holds it', () => {
    const counts: Record<string, number> = {};
    for (const r of all.rows)
      counts[`${r.brexchange}→${r.exchange} ${r.instrumenttype}`] =
        (counts[`${r.brexchange}→${r.exchange} ${r.instrumenttype}`] ?? 0) + 1;
    expect(counts).toEqual({
      // NSE_FO 1,303: FUTSTK 618 + FUTIDX 15 (every future), OPTIDX 478 (the nearest NIFTY and
      // BANKNIFTY chains and scattered rows) + OPTSTK 192
      'NSE_FO→NFO FUT': 633,
      'NSE_FO→NFO CE': 333,
      'NSE_FO→NFO PE': 337,
      // MCX_FO 357: FUTCOM 39 + FUTIDX 1, OPTFUT 313 + OPTIDX 4
      'MCX_FO→MCX FUT': 40,
      'MCX_FO→MCX CE': 158,
      'MCX_FO→MCX PE': 159,
      // NSE_COM 292 (COPPER26FEB985CE trades there too) less the 24 rows without a type
      'NSE_COM→NCO FUT': 28,
      'NSE_COM→NCO CE': 130,
      'NSE_COM→NCO PE': 110,
      'BSE_FO→BFO FUT': 9,
      'BSE_FO→BFO CE': 247,
      'BSE_FO→BFO PE': 249,
      'NCD_FO→CDS FUT': 92,
      'NCD_FO→CDS CE': 27,
      'NCD_FO→CDS PE': 21,
      // BCD_FO 147: FUTCUR 92, OPTCUR 44 + OPTIRD 11
      'BCD_FO→BCD FUT': 92,
      'BCD_FO→BCD CE': 35,
      'BCD_FO→BCD PE': 20,
      'BSE_EQ→BSE EQ': 72,
      // NSE_EQ 501 less 12 securities whose symbol is ambiguous
      'NSE_EQ→NSE EQ': 489,
      'NSE_INDEX→NSE_INDEX INDEX': 134,
      'BSE_INDEX→BSE_INDEX INDEX': 69,
    });
  });
});

describe('Upstox derivatives get canonical symbols from the trading symbol and the expiry column', () => {
  it('maps BANKNIFTY26MARFUT to BANKNIFTY30MAR26FUT, expiring on the holiday-shifted 30-MAR-26', () => {
    expect(find('NFO', 'BANKNIFTY30MAR26FUT')).toEqual({
      symbol: 'BANKNIFTY30MAR26FUT',
      brsymbol: 'BANKNIFTY26MARFUT',
      name: 'BANKNIFTY',
      exchange: 'NFO',
      brexchange: 'NSE_FO',
      token: 'NSE_FO|51701',
      expiry: '30-MAR-26',
      expiryDate: '2026-03-30',
      strike: null,
      lotsize: 30,
      instrumenttype: 'FUT',
      tickSize: 0.2,
      underlying: 'BANKNIFTY',
      referencePrice: 60538.8,
    });
  });

  it('tells weekly from monthly NIFTY options by their expiry', () => {
    expect(find('NFO', 'NIFTY10FEB2625500CE')).toMatchObject({
      brsymbol: 'NIFTY2621025500CE',
      token: 'NSE_FO|42522',
      lotsize: 65,
    });
    expect(find('NFO', 'NIFTY24FEB2625500CE')).toMatchObject({
      brsymbol: 'NIFTY26FEB25500CE',
      token: 'NSE_FO|64852',
    });
    expect(find('BFO', 'SENSEX19MAR2685500PE')).toMatchObject({
      brsymbol: 'SENSEX2631985500PE',
      token: 'BSE_FO|855001',
    });
  });

  it('names stock derivatives by the underlying symbol, not the company name', () => {
    expect(find('NFO', 'NATIONALUM24FEB26355PE')).toMatchObject({
      underlying: 'NATIONALUM',
      name: 'NATIONALUM',
    });
  });

  it('keeps currency strike decimals and converts paise ticks to rupees on CDS and BCD', () => {
    expect(find('CDS', 'USDINR25FEB2686.25CE')).toMatchObject({
      token: 'NCD_FO|12136',
      strike: 86.25,
      tickSize: 0.0025,
    });
    expect(find('BCD', 'USDINR25FEB2686.25CE')).toMatchObject({ token: 'BCD_FO|2104132', tickSize: 0.0025 });
    expect(find('CDS', 'USDINR20FEB26FUT')).toMatchObject({
      brsymbol: 'USDINR26220FUT',
      token: 'NCD_FO|10692',
    });
    expect(find('BCD', '679GS203425JUN26103.5PE')).toMatchObject({ underlying: '679GS2034', strike: 103.5 });
    const currencyTicks = new Set(
      all.rows.filter((r) => r.exchange === 'CDS' || r.exchange === 'BCD').map((r) => r.tickSize),
    );
    expect(currencyTicks).toEqual(new Set([0.0025]));
  });

  it('takes MCX and NCO underlyings from the trading symbol (GOLDM, which Upstox names GOLD) with rupee ticks', () => {
    expect(find('MCX', 'GOLDM26FEB26154400CE')).toMatchObject({
      token: 'MCX_FO|527038',
      underlying: 'GOLDM',
      tickSize: 0.5,
      lotsize: 100,
    });
    expect(find('NCO', 'GOLDM26FEB26154400PE')).toMatchObject({
      token: 'NSE_COM|159066',
      brexchange: 'NSE_COM',
      lotsize: 1,
    });
    const mcxTicks = new Set(all.rows.filter((r) => r.exchange === 'MCX').map((r) => r.tickSize));
    // ₹0.01: OPTFUT rows stating 1.0 paise (COPPER26FEB985CE in the cut).
    expect(mcxTicks).toEqual(new Set([0.01, 0.05, 0.1, 0.5, 1, 10]));
  });

  it('keeps NFO ticks in rupees as the file states them', () => {
    const ticks = new Set(
      all.rows.filter((r) => r.exchange === 'NFO' && r.instrumenttype !== 'FUT').map((r) => r.tickSize),
    );
    expect(ticks).toEqual(new Set([0.05, 0.01]));
  });
});

describe('Upstox cash and index rows', () => {
  it('uses the instrument key as token for equities', () => {
    expect(find('NSE', 'SBIN')).toMatchObject({
      token: 'NSE_EQ|INE062A01020',
      name: 'STATE BANK OF INDIA',
      tickSize: 0.1,
      lotsize: 1,
    });
    expect(find('BSE', 'SBIN')).toMatchObject({ token: 'BSE_EQ|INE062A01020', brexchange: 'BSE_EQ' });
  });

  it.each([
    ['NSE_INDEX', 'NIFTY', 'NSE_INDEX|Nifty 50'],
    ['NSE_INDEX', 'BANKNIFTY', 'NSE_INDEX|Nifty Bank'],
    ['NSE_INDEX', 'INDIAVIX', 'NSE_INDEX|India VIX'],
    ['NSE_INDEX', 'NIFTY100QUALTY30', 'NSE_INDEX|NIFTY100 Qualty30'],
    ['NSE_INDEX', 'BHARATBONDAPR31', 'NSE_INDEX|BHARATBOND-APR31'],
    ['BSE_INDEX', 'SENSEX', 'BSE_INDEX|SENSEX'],
    ['BSE_INDEX', 'SENSEX50', 'BSE_INDEX|SENSEX50'],
    ['BSE_INDEX', 'BSEFINANCIALSERVICES', 'BSE_INDEX|FINSER'],
    ['BSE_INDEX', 'FOCIT', 'BSE_INDEX|FOCIT'],
  ])('%s %s has token %s', (exchange, symbol, token) => {
    expect(find(exchange, symbol)).toMatchObject({
      token,
      instrumenttype: 'INDEX',
      lotsize: 0,
      tickSize: 0,
      underlying: null,
    });
  });
});

describe('an Upstox equity symbol shared by several securities goes to the ordinary share', () => {
  it('keeps CHOLAFIN for the share (INE121A01024) and skips its debenture', () => {
    expect(find('NSE', 'CHOLAFIN')?.token).toBe('NSE_EQ|INE121A01024');
    expect(all.skips).toContainEqual(
      expect.objectContaining({
        reason: 'ambiguous symbol CHOLAFIN on NSE, used by another security (ISIN INE121A08PJ0)',
      }),
    );
  });

  it('skips exactly the 12 securities the file cannot tell apart, and the 24 NSE_COM spot rows', () => {
    const reasons = all.skips.map((s) => s.reason.replace(/ \(ISIN \w+\)$/, ''));
    expect(reasons.filter((r) => r === 'no instrument type (option_type COM)')).toHaveLength(24);
    expect(reasons.filter((r) => r.startsWith('ambiguous')).sort()).toEqual([
      'ambiguous symbol AAFS27B on NSE, shared by 2 securities',
      'ambiguous symbol AAFS27B on NSE, shared by 2 securities',
      'ambiguous symbol AARTISURF on NSE, used by another security',
      'ambiguous symbol ANURAS on NSE, used by another security',
      'ambiguous symbol CHOLAFIN on NSE, used by another security',
      'ambiguous symbol ELECTCAST on NSE, used by another security',
      'ambiguous symbol IMC1 on NSE, shared by 4 securities',
      'ambiguous symbol IMC1 on NSE, shared by 4 securities',
      'ambiguous symbol IMC1 on NSE, shared by 4 securities',
      'ambiguous symbol IMC1 on NSE, shared by 4 securities',
      'ambiguous symbol M&MFIN on NSE, used by another security',
      'ambiguous symbol MOTHERSON on NSE, used by another security',
    ]);
  });

  it('keeps bonds and debentures that have a symbol of their own', () => {
    expect(find('BSE', '775IRFC33')).toMatchObject({ token: 'BSE_EQ|INE053F08270', instrumenttype: 'EQ' });
  });
});

describe('canonical Upstox symbols are unique per exchange and tokens per file', () => {
  it('has no duplicate (exchange, symbol) and no duplicate instrument key', () => {
    expect(new Set(all.rows.map((r) => `${r.exchange}:${r.symbol}`)).size).toBe(all.rows.length);
    expect(new Set(all.rows.map((r) => r.token)).size).toBe(all.rows.length);
  });
});

describe('the same security gets the same canonical symbol from Kite and Upstox', () => {
  let kite: Parsed;
  beforeAll(async () => {
    kite = await collect(
      parseZerodha(createReadStream(marketFixture('zerodha', 'kite_instruments_NSE_2025-10-06.csv'))),
    );
  });

  it('finds all 117 Kite NSE indices of the fixture under the same symbol in Upstox', () => {
    const upstox = new Set(all.rows.filter((r) => r.exchange === 'NSE_INDEX').map((r) => r.symbol));
    const indices = kite.rows.filter((r) => r.exchange === 'NSE_INDEX');
    expect(indices).toHaveLength(117);
    expect(indices.filter((r) => !upstox.has(r.symbol))).toEqual([]);
  });

  it('finds 434 of the 462 Kite NSE equities in the fixtures (four months older) under the same symbol, against 131 with Kite suffixes', () => {
    const upstox = new Set(all.rows.filter((r) => r.exchange === 'NSE').map((r) => r.symbol));
    const equities = kite.rows.filter((r) => r.exchange === 'NSE');
    expect(equities).toHaveLength(462);
    expect(equities.filter((r) => upstox.has(r.symbol))).toHaveLength(434);
    // What OpenAlgo's Zerodha mapper (Kite symbol kept as is) would have matched:
    expect(equities.filter((r) => upstox.has(r.brsymbol))).toHaveLength(131);
  });
});

describe('the file’s last_price becomes the reference price (rupees), when it states one', () => {
  it('keeps the price of real rows in every segment, in rupees even where ticks are in paise', () => {
    expect(find('NSE', 'SBIN')).toMatchObject({ referencePrice: 1064.2, tickSize: 0.1 });
    expect(find('BSE', 'SBIN')).toMatchObject({ referencePrice: 1064.25 });
    expect(find('NSE_INDEX', 'NIFTY')).toMatchObject({ referencePrice: 25727.55 });
    // NCD_FO states its tick in paise (0.25) and its price in rupees (90.345).
    expect(find('CDS', 'USDINR25FEB26FUT')).toMatchObject({ referencePrice: 90.345, tickSize: 0.0025 });
    expect(find('MCX', 'CRUDEOIL19MAR26FUT')).toMatchObject({ referencePrice: 5696, tickSize: 1 });
    expect(find('MCX', 'COPPER20FEB26985CE')).toMatchObject({ referencePrice: 234.88 });
  });

  it('gives none for a 0 (real rows: a BSE bond, a BCD future)', () => {
    expect(find('BSE', '775IRFC33')).toMatchObject({ token: 'BSE_EQ|INE053F08270' });
    expect(find('BSE', '775IRFC33')!.referencePrice).toBeUndefined();
    expect(find('BCD', 'USDINR25FEB26FUT')!.referencePrice).toBeUndefined();
    const priced = all.rows.filter((r) => r.referencePrice !== undefined);
    expect(priced.length).toBeGreaterThan(2_000);
    expect(priced.every((r) => Number.isFinite(r.referencePrice) && r.referencePrice! > 0)).toBe(true);
  });

  it('gives none for a blank, negative or unreadable price, and never skips the row for it', async () => {
    const sbin = (price: string) =>
      `"NSE_EQ|INE062A01020","3045","SBIN","STATE BANK OF INDIA","${price}","","","0.1","1","EQUITY","","NSE_EQ"`;
    for (const price of ['', '0.0', '-5', 'n/a', 'Infinity']) {
      const { rows, skips } = await collect(parseUpstox(Readable.from([`${HEADER}\n${sbin(price)}\n`])));
      expect({ price, skips, referencePrice: rows[0]?.referencePrice, symbol: rows[0]?.symbol }).toEqual({
        price,
        skips: [],
        referencePrice: undefined,
        symbol: 'SBIN',
      });
    }
  });

  it('reads a file without the column as stating no prices', async () => {
    const header = HEADER.replace('"last_price",', '');
    const line =
      '"NSE_EQ|INE062A01020","3045","SBIN","STATE BANK OF INDIA","","","0.1","1","EQUITY","","NSE_EQ"';
    const { rows, skips } = await collect(parseUpstox(Readable.from([`${header}\n${line}\n`])));
    expect(skips).toEqual([]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ symbol: 'SBIN', tickSize: 0.1 });
    expect(rows[0]!.referencePrice).toBeUndefined();
  });
});

describe('a bad Upstox line becomes a skip with a short reason', () => {
  it('reports each problem with its line number', async () => {
    const text = [
      HEADER,
      '"NSE_EQ|INE062A01020","3045","SBIN","STATE BANK OF INDIA","1064.2","","","0.1","1","EQUITY","","NSE_EQ"',
      '"NSE_XYZ|1","1","ABC","ABC","0","","","0.05","1","EQUITY","","NSE_XYZ"',
      '"","51701","BANKNIFTY26MARFUT","BANKNIFTY","0","2026-03-30","0.0","0.2","30","FUTIDX","FF","NSE_FO"',
      '"NSE_FO|1","1","BANKNIFTY26MARFUT","BANKNIFTY","0","30-03-2026","0.0","0.2","30","FUTIDX","FF","NSE_FO"',
      '"NSE_FO|2","2","NIFTY26FEB25500XX","NIFTY","0","2026-02-24","25500.0","0.05","65","OPTIDX","XX","NSE_FO"',
      '"NSE_FO|3","3","NIFTY26FEB25500CE","NIFTY","0","2026-02-24","25500.0","0.05","","OPTIDX","CE","NSE_FO"',
      '"NSE_FO|4","4","WEIRD","NIFTY","0","2026-02-24","25500.0","0.05","65","OPTIDX","CE","NSE_FO"',
      '"NSE_FO|5","5","NIFTY26FEBFUT","NIFTY","0","2026-02-24","0.0","0.05","65","EQUITY","","NSE_FO"',
      '"NSE_COM|4","4","BRENTCRUDEOIL","BRCRUDE","0","","0.0","100.0","1","","COM","NSE_COM"',
      'junk',
      '"NSE_FO|51701","51701","BANKNIFTY26MARFUT","BANKNIFTY","0","2026-03-30","0.0","0.2","30","FUTIDX","FF","NSE_FO"',
    ].join('\r\n');
    const { rows, skips } = await collect(parseUpstox(Readable.from([text])));
    expect(rows.map((r) => r.symbol)).toEqual(['SBIN', 'BANKNIFTY30MAR26FUT']);
    expect(skips).toEqual([
      { kind: 'skip', line: 3, reason: 'unknown exchange NSE_XYZ' },
      { kind: 'skip', line: 4, reason: 'missing token' },
      { kind: 'skip', line: 5, reason: 'bad expiry 30-03-2026' },
      { kind: 'skip', line: 6, reason: 'bad option type XX' },
      { kind: 'skip', line: 7, reason: 'bad lot size (empty)' },
      { kind: 'skip', line: 8, reason: 'no underlying in trading symbol WEIRD' },
      { kind: 'skip', line: 9, reason: 'unexpected instrument type EQUITY on NSE_FO' },
      { kind: 'skip', line: 10, reason: 'no instrument type (option_type COM)' },
      { kind: 'skip', line: 11, reason: 'too few fields (1 of 12)' },
    ]);
  });
});

describe('a file that is not an Upstox CSV fails fast; a broken stream aborts', () => {
  it('refuses the Kite file before yielding a row', async () => {
    const kite = createReadStream(marketFixture('zerodha', 'kite_instruments_NSE_2025-10-06.csv'));
    await expect(collect(upstoxFormat.parse(kite))).rejects.toThrow(
      /^not an Upstox instruments file: header "instrument_token,exchange_token,.*" lacks instrument_key, option_type$/,
    );
  });

  it('refuses an empty file', async () => {
    await expect(collect(parseUpstox(Readable.from([''])))).rejects.toThrow(
      'not an Upstox instruments file: the file is empty',
    );
  });

  it('propagates a truncated gzip', async () => {
    const gz = readFileSync(FILE);
    // Cut inside the deflate stream, well short of its end and trailer.
    const input = Readable.from([gz.subarray(0, Math.floor(gz.length / 2))]).pipe(createGunzip());
    await expect(collect(parseUpstox(input))).rejects.toMatchObject({ code: 'Z_BUF_ERROR' });
  });
});
