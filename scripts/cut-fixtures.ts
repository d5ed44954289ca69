/**
 * Cuts the test fixtures in test/fixtures/market/ from the full reference files in ../shared/data
 * (or $ALGODESK_SHARED_DATA). Each fixture keeps the original's format and real rows, unchanged:
 * the rows the tests name, whole option chains of the nearest expiries of a few underlyings, every
 * future and index, and every Nth other row so each file keeps its variety (series suffixes,
 * empty names, odd tick sizes). Run again after changing a rule, then update the counts the tests
 * assert (test/fixtures/market/README.md lists them):
 *
 *   npx tsx scripts/cut-fixtures.ts
 *
 * The service and the tests never read ../shared/data; only this script and bench/ do.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = process.env.ALGODESK_SHARED_DATA ?? resolve(ROOT, '..', 'shared', 'data');
const OUT = join(ROOT, 'test', 'fixtures', 'market');

const read = (...p: string[]) => readFileSync(join(SHARED, ...p), 'utf8');
const write = (rel: string, text: string | Buffer) => {
  const file = join(OUT, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  console.log(`${rel}: ${typeof text === 'string' ? text.split('\n').length - 1 : 'gz'} lines`);
};
const lines = (text: string) => text.replace(/\n$/, '').split('\n');
/** Every `n`th data row (the first one included), by position: deterministic. */
const everyNth = (n: number) => (_row: string, i: number) => i % n === 0;

/** Rows the tests name by trading symbol, exact (Kite NSE). */
const KITE_NSE_NAMED = new Set(
  `AAFS27B-N3 AAFS27B-N4 AARTISURF-BE AARTISURF-P1 ABB ANURAS ANURAS-W1 BAJAJ-AUTO BIRET-RR BSE CHOLAFIN
   CHOLAFIN-D1 ELECTCAST ELECTCAST-W1 GODHA-BE GOLDSTAR-SM IMC1-N0 IMC1-N1 IMC1-N2 IMC1-N3 INFY IOC ITC
   M&M M&MFIN M&MFIN-N3 MCX MOTHERSON MOTHERSON-D1 NAM-INDIA NATIONALUM NHPC RACE RADIOCITY-P1 RELIANCE SBIN
   SGBSEP28VI-GB SOLEX-ST TATASTEEL TCS VEDL WIPRO YESBANK HDFCBANK ICICIBANK AXISBANK KOTAKBANK LT 656MH32-SG
   656KA30-SG 364D040925-TB`.split(/\s+/),
);
/** Kite NFO/BFO rows the tests name that the chain rules below do not already keep. */
const KITE_FO_NAMED = new Set(['ASHOKLEY26AUG172.5CE', 'NIFTY29DEC24000CE']);

/** A Kite NSE symbol without its series suffix (`CHOLAFIN-D1` → `CHOLAFIN`). */
const kiteBase = (symbol: string) => symbol.replace(/-[A-Z0-9]{2}$/, '');

/** Cuts the Kite files; gives back the base symbols of the NSE rows kept (Upstox keeps the same). */
function cutKite(): Set<string> {
  // NSE: every index, the named stocks, every security whose symbol collides with another's once
  // the series suffix is dropped (the importer's suffix rule), and every 20th other row.
  const nse = lines(read('zerodha', 'kite_instruments_NSE_2025-10-06.csv'));
  const bases = new Map<string, number>();
  for (const row of nse.slice(1)) {
    const f = row.split(',');
    if (f[10] === 'NSE') bases.set(kiteBase(f[2]!), (bases.get(kiteBase(f[2]!)) ?? 0) + 1);
  }
  const keepNse = (row: string, i: number) => {
    const f = row.split(',');
    return (
      f[10] === 'INDICES' ||
      KITE_NSE_NAMED.has(f[2]!) ||
      (f[10] === 'NSE' && bases.get(kiteBase(f[2]!))! > 1) ||
      everyNth(20)(row, i)
    );
  };
  const keptNse = nse.slice(1).filter(keepNse);
  write('zerodha/kite_instruments_NSE_2025-10-06.csv', [nse[0], ...keptNse].join('\n') + '\n');

  // NFO/BFO: every future; whole chains of the two nearest expiries of NIFTY, BANKNIFTY, SENSEX;
  // the nearest expiry of the other index underlyings and of SBIN, RELIANCE, ASHOKLEY; named rows.
  const fo = lines(read('zerodha', 'kite_instruments_NFO_BFO_2026-08-18.csv'));
  const expiries = new Map<string, string[]>();
  for (const row of fo.slice(1)) {
    const f = row.split(',');
    if (f[9] === 'FUT') continue;
    const list = expiries.get(f[3]!) ?? [];
    if (!list.includes(f[5]!)) list.push(f[5]!);
    expiries.set(f[3]!, list);
  }
  for (const list of expiries.values()) list.sort();
  const nearest = (name: string, n: number) => (expiries.get(name) ?? []).slice(0, n);
  const chains = new Map<string, string[]>();
  for (const name of ['NIFTY', 'BANKNIFTY', 'SENSEX']) chains.set(name, nearest(name, 2));
  for (const name of [
    'FINNIFTY',
    'MIDCPNIFTY',
    'NIFTYNXT50',
    'BANKEX',
    'SENSEX50',
    'FOCIT',
    'SBIN',
    'RELIANCE',
  ])
    chains.set(name, nearest(name, 1));
  const keepFo = (row: string) => {
    const f = row.split(',');
    return f[9] === 'FUT' || KITE_FO_NAMED.has(f[2]!) || (chains.get(f[3]!) ?? []).includes(f[5]!);
  };
  write(
    'zerodha/kite_instruments_NFO_BFO_2026-08-18.csv',
    [fo[0], ...fo.slice(1).filter(keepFo)].join('\n') + '\n',
  );
  return new Set(keptNse.map((row) => kiteBase(row.split(',')[2]!)));
}

/** Upstox rows the tests name, by the first (instrument_key) field without its quotes. */
const UPSTOX_NAMED = new Set(
  `BCD_FO|1027212 BCD_FO|2104132 BSE_EQ|INE053F08270 BSE_EQ|INE062A01020 BSE_FO|825565 BSE_FO|855001
   MCX_FO|472789 MCX_FO|527038 NCD_FO|10692 NCD_FO|12136 NCD_FO|2264 NSE_COM|159066 NSE_EQ|INE062A01020
   NSE_EQ|INE121A01024 NSE_EQ|INE848E01016 NSE_FO|42522 NSE_FO|42546 NSE_FO|51701 NSE_FO|59175
   NSE_FO|64852`.split(/\s+/),
);
const UPSTOX_TRADINGSYMBOLS = new Set([
  'SBIN',
  'NHPC',
  'INFY',
  'RELIANCE',
  'BANKNIFTY24FEB26FUT',
  'NATIONALUM26FEB355PE',
  'GOLDM26FEB154400CE',
  'GOLDM26FEB154400PE',
  '679GS203426JUN103.5PE',
  '775IRFC33',
  'COPPER26FEB985CE', // an MCX option whose tick is 1 paisa
]);

/**
 * Cuts the Upstox file: the named rows, every index, every NSE/BSE security whose symbol another
 * security of the segment shares (the importer's ambiguity rule), the NSE_COM rows without a type,
 * the NSE equities whose symbol the Kite cut holds (the cross-broker symbol test), futures, the
 * nearest NIFTY, BANKNIFTY and SENSEX option chains, and every 200th other row.
 */
function cutUpstox(kiteBases: Set<string>): void {
  const all = lines(
    gunzipSync(readFileSync(join(SHARED, 'upstox', 'upstox_complete_2026-02-05.csv.gz'))).toString(),
  );
  const unq = (s: string | undefined) => (s ?? '').replace(/^"|"$/g, '');
  // Columns: instrument_key,exchange_token,tradingsymbol,name,last_price,expiry,strike,tick_size,
  // lot_size,instrument_type,option_type,exchange
  const rows = all.slice(1).map((r) => r.split(',').map(unq));
  const optExpiries = new Map<string, string[]>();
  for (const f of rows) {
    if (!['OPTIDX'].includes(f[9]!)) continue;
    const k = `${f[11]} ${f[3]}`;
    const list = optExpiries.get(k) ?? [];
    if (!list.includes(f[5]!)) list.push(f[5]!);
    optExpiries.set(k, list);
  }
  for (const list of optExpiries.values()) list.sort();
  const chain = (segment: string, name: string, n: number) =>
    optExpiries.get(`${segment} ${name}`)?.slice(0, n) ?? [];
  const chains = new Map<string, string[]>([
    ['NSE_FO NIFTY', chain('NSE_FO', 'NIFTY', 1)],
    ['NSE_FO BANKNIFTY', chain('NSE_FO', 'BANKNIFTY', 1)],
    ['BSE_FO SENSEX', chain('BSE_FO', 'SENSEX', 1)],
  ]);
  const shared = new Map<string, number>();
  for (const f of rows)
    if (f[11] === 'NSE_EQ' || f[11] === 'BSE_EQ')
      shared.set(`${f[11]} ${f[2]}`, (shared.get(`${f[11]} ${f[2]}`) ?? 0) + 1);
  const keep = (f: string[], i: number) => {
    const seg = f[11]!;
    const type = f[9]!;
    if (UPSTOX_NAMED.has(f[0]!) || UPSTOX_TRADINGSYMBOLS.has(f[2]!)) return true;
    if (seg === 'NSE_INDEX' || seg === 'BSE_INDEX') return true;
    if (shared.get(`${seg} ${f[2]}`)! > 1) return true;
    if (seg === 'NSE_COM' && type === '') return true;
    if (seg === 'NSE_EQ' && kiteBases.has(f[2]!)) return true;
    if (type.startsWith('FUT')) return seg !== 'MCX_FO' && seg !== 'NSE_COM' ? true : i % 4 === 0;
    if (type === 'OPTIDX' && (chains.get(`${seg} ${f[3]}`) ?? []).includes(f[5]!)) return true;
    return i % 200 === 0;
  };
  const kept = all.slice(1).filter((_r, i) => keep(rows[i]!, i));
  write('upstox/upstox_complete_2026-02-05.csv.gz', gzipSync([all[0], ...kept].join('\n') + '\n'));
}

/** Fyers tickers the tests name. */
const FYERS_NAMED = new Set(
  `NSE:SBIN-EQ NSE:BAJAJ-AUTO-EQ NSE:CHOLAFIN-EQ NSE:CHOLAFIN-D1 NSE:GOLDSTAR-SM NSE:656MH32-SG NSE:NIFTY50-INDEX
   NSE:NIFTYBANK-INDEX NSE:BHARATBOND-APR30-INDEX BSE:100-INDEX BSE:150MIDCAP-INDEX BSE:ABB-A BSE:HC-INDEX
   BSE:RAMAPPR-B-Z BSE:SENSEX-INDEX BSE:SENSEX25N1374700CE BSE:SNSX50-INDEX MCX:SILVER25SEPFUT
   NSE:EURINR25N14110.25CE BSE:875PFL26-F`.split(/\s+/),
);

function cutFyers(): void {
  for (const name of ['NSE_CM', 'BSE_CM', 'BSE_FO', 'NSE_CD', 'MCX_COM']) {
    // Headerless; field 10 (index 9) is the ticker.
    const rows = lines(read('fyers', `${name}.csv`));
    const kept = rows.filter((row, i) => {
      const f = row.split(',');
      return FYERS_NAMED.has(f[9]!) || f[9]!.endsWith('-INDEX') || f[9]!.endsWith('FUT') || i % 40 === 0;
    });
    write(`fyers/${name}.csv`, kept.join('\n') + '\n');
  }
}

function copySmall(): void {
  for (const rel of [
    'freeze_qty/nse_qtyfreeze_2025-12.csv',
    'holidays/nse_holiday_master_2025.json',
    'holidays/nse_fo_holidays_2024.csv',
    'holidays/nse_fo_holidays_2025.csv',
    'holidays/nse_fo_holidays_2026.csv',
    'holidays/nse_holidays_2024H2-2026_with_descriptions.csv',
  ]) {
    mkdirSync(dirname(join(OUT, rel)), { recursive: true });
    copyFileSync(join(SHARED, rel), join(OUT, rel));
    console.log(`${rel}: copied whole`);
  }
}

cutUpstox(cutKite());
cutFyers();
copySmall();
