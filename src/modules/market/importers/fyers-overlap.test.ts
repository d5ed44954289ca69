/**
 * The Fyers masters give the contracts they share with Kite's the service symbols the Zerodha
 * import gives them (docs/rules/market.md#broker-instrument-files). Fyers' snapshot is of
 * 2025-11-10; Kite's NSE file of 2025-10-06 and its NFO/BFO file of 2026-08-18. The cuts read
 * here are the Fyers and Kite fixtures plus the `*_overlap.csv` rows beside them
 * (test/fixtures/market/README.md); the counts in comments are of the full files in the shared
 * data folder.
 *
 * - NSE equities (Fyers NSE_CM, Kite NSE): joined by the exchange token (the `scrip` column of
 *   Fyers, the tail of its Fytoken; Kite's `exchange_token`). Full files: 7,674 shared tokens, 12
 *   of them renamed by NSE between the snapshots, the other 7,662 under the same symbol.
 * - NSE indices: no shared key (Kite numbers them 1001…, Fyers 26000…): joined by name.
 * - BSE equities and indices: the Kite NSE file holds no BSE row (its segments are NSE and
 *   INDICES), so there is nothing to compare.
 * - BFO (Fyers BSE_FO, Kite BFO): joined by underlying, expiry, strike and type, since BSE gives an
 *   expired contract's token to a new one. Full files: 192 SENSEX options of the 9 expiries both list.
 * - NSE_CD and MCX_COM: no Kite CDS or MCX snapshot exists.
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { marketFixture } from '../../../../test/helpers/market-fixtures.js';
import { collect, FO_FILE, NSE_FILE } from '../../../../test/helpers/kite-instruments.js';
import type { Instrument } from '../instrument.js';
import { parseFyers } from './fyers.js';
import { parseZerodha } from './zerodha.js';

const FYERS_NSE = [marketFixture('fyers', 'NSE_CM.csv'), marketFixture('fyers', 'NSE_CM_overlap.csv')];
const FYERS_BFO = [marketFixture('fyers', 'BSE_FO.csv'), marketFixture('fyers', 'BSE_FO_overlap.csv')];
const KITE_NSE = [NSE_FILE, marketFixture('zerodha', 'kite_instruments_NSE_2025-10-06_fyers_overlap.csv')];
const KITE_FO = [FO_FILE, marketFixture('zerodha', 'kite_instruments_NFO_BFO_2026-08-18_fyers_overlap.csv')];

const dataRows = (file: string) =>
  readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .filter((l) => !l.startsWith('instrument_token,'));

/** Both files of one side as one stream: Fyers' are headerless, Kite's keep the first header. */
const joined = (files: string[], header?: string) =>
  Readable.from([[...(header === undefined ? [] : [header]), ...files.flatMap(dataRows)].join('\n') + '\n']);

const KITE_HEADER = readFileSync(NSE_FILE, 'utf8').split('\n', 1)[0]!;

/** Each side's parse, deduplicated by broker token, and broker token → exchange token. */
interface Side {
  rows: Instrument[];
  exchangeToken: Map<string, string>;
}

async function side(files: string[], broker: 'fyers' | 'kite'): Promise<Side> {
  const parsed =
    broker === 'fyers'
      ? await collect(parseFyers(joined(files)))
      : await collect(parseZerodha(joined(files, KITE_HEADER)));
  expect(parsed.skips).toEqual([]);
  const exchangeToken = new Map<string, string>();
  for (const line of files.flatMap(dataRows)) {
    const f = line.split(',');
    // Fyers: Fytoken, …, scrip (column 13); Kite: instrument_token, exchange_token.
    exchangeToken.set(f[0]!, broker === 'fyers' ? f[12]! : f[1]!);
  }
  return { rows: parsed.rows, exchangeToken };
}

let fyNse: Side, fyBfo: Side, kiteNse: Side, kiteFo: Side;
beforeAll(async () => {
  [fyNse, fyBfo, kiteNse, kiteFo] = await Promise.all([
    side(FYERS_NSE, 'fyers'),
    side(FYERS_BFO, 'fyers'),
    side(KITE_NSE, 'kite'),
    side(KITE_FO, 'kite'),
  ]);
});

/** What two brokers' imports must agree on for one contract. */
const terms = (r: Instrument) => ({
  symbol: r.symbol,
  exchange: r.exchange,
  expiryDate: r.expiryDate,
  expiry: r.expiry,
  strike: r.strike,
  lotsize: r.lotsize,
  instrumenttype: r.instrumenttype,
  underlying: r.underlying,
});

/** The exchange's own code of an NSE security: Fyers' ticker without exchange and series. */
const code = (ticker: string) => ticker.replace(/^NSE:/, '').replace(/-[A-Z0-9]{2}$/, '');
/** Whether NSE lists the pair's security under one code in both snapshots (Kite omits the EQ series). */
const sameCode = (p: { fyers: Instrument; kite: Instrument }) =>
  [p.kite.brsymbol, p.kite.brsymbol.replace(/-[A-Z0-9]{2}$/, '')].includes(code(p.fyers.brsymbol));

describe('NSE equities: Fyers NSE_CM and Kite NSE, joined by the exchange token', () => {
  const pairs = () => {
    const kite = new Map(
      kiteNse.rows.filter((r) => r.exchange === 'NSE').map((r) => [kiteNse.exchangeToken.get(r.token)!, r]),
    );
    return fyNse.rows
      .filter((r) => r.exchange === 'NSE')
      .flatMap((r) => {
        const k = kite.get(fyNse.exchangeToken.get(r.token)!);
        return k ? [{ fyers: r, kite: k, token: fyNse.exchangeToken.get(r.token)! }] : [];
      });
  };

  it('gives the same service symbol to the 225 shared securities NSE did not rename', () => {
    const all = pairs();
    // Full files: 7,674 shared tokens; the cut keeps every 40th, the renamed and series-named
    // ones, and every row of the same code on either side (the symbol a row gets can depend on them).
    expect(all).toHaveLength(237);
    const same = all.filter(sameCode);
    expect(same).toHaveLength(225);
    for (const { fyers: f, kite: k } of same)
      expect({ ...terms(f), lotsize: 0 }).toEqual({ ...terms(k), lotsize: 0 });
    // The Fytoken of a cash row is 1010000000 + the exchange token.
    for (const { fyers: f, token } of all) expect(f.token).toBe(`1010000000${token}`);
    // Series-named symbols (`SYMBOL-SERIES`) agree too.
    expect(same.filter((p) => p.fyers.symbol.includes('-')).map((p) => p.fyers.symbol)).toEqual(
      expect.arrayContaining(['CHOLAFIN-D1']),
    );
  });

  it('differs only where NSE renamed the security between 2025-10-06 and 2025-11-10 (12, all in the cut)', () => {
    const renamed = pairs()
      .filter((p) => !sameCode(p))
      .map((p) => [p.token, p.kite.brsymbol, p.kite.symbol, p.fyers.brsymbol, p.fyers.symbol]);
    // Not an importer defect: the exchange's own code changed (TATAMOTORS → TMPV at the demerger).
    expect(renamed.sort()).toEqual([
      ['13595', 'HOVS-BE', 'HOVS', 'NSE:HGM-BE', 'HGM'],
      ['13598', 'SELAN', 'SELAN', 'NSE:ANTELOPUS-EQ', 'ANTELOPUS'],
      ['13775', 'AARVEEDEN-BE', 'AARVEEDEN', 'NSE:VGL-BE', 'VGL'],
      ['14339', 'GANESHHOUC', 'GANESHHOUC', 'NSE:GANESHHOU-EQ', 'GANESHHOU'],
      ['16777', 'SILVRETF', 'SILVRETF', 'NSE:SILVERAG-EQ', 'SILVERAG'],
      ['2183', 'SUNDARMHLD', 'SUNDARMHLD', 'NSE:TSFINV-EQ', 'TSFINV'],
      ['22277', 'WORTH', 'WORTH', 'NSE:WORTHPERI-EQ', 'WORTHPERI'],
      ['27095', 'SWANENERGY', 'SWANENERGY', 'NSE:SWANCORP-EQ', 'SWANCORP'],
      ['3127', 'BARBEQUE', 'BARBEQUE', 'NSE:UFBL-EQ', 'UFBL'],
      ['3387', 'SMLISUZU', 'SMLISUZU', 'NSE:SMLMAH-EQ', 'SMLMAH'],
      ['3456', 'TATAMOTORS', 'TATAMOTORS', 'NSE:TMPV-EQ', 'TMPV'],
      ['5622', 'ITDCEM', 'ITDCEM', 'NSE:CEMPRO-EQ', 'CEMPRO'],
    ]);
  });
});

describe('NSE indices: Fyers NSE_CM and Kite NSE, joined by name', () => {
  const norm = (s: string) => s.toUpperCase().replace(/[^A-Z0-9]/g, '');
  /** Kite's long names of the indices Fyers lists under their short ones. */
  const SHORT: Record<string, string> = {
    'NIFTY FIN SERVICE': 'FINNIFTY',
    'NIFTY NEXT 50': 'NIFTYNXT50',
    'NIFTY MID SELECT': 'MIDCPNIFTY',
  };
  const fyersIndices = () =>
    new Map(
      fyNse.rows
        .filter((r) => r.exchange === 'NSE_INDEX')
        .map((r) => [norm(r.brsymbol.replace(/^NSE:/, '').replace(/-INDEX$/, '')), r]),
    );

  it('gives the 113 indices both list the same symbol', () => {
    const fy = fyersIndices();
    const kite = kiteNse.rows.filter((r) => r.exchange === 'NSE_INDEX');
    expect(kite).toHaveLength(117);
    const pairs = kite.flatMap((k) => {
      const f = fy.get(norm(SHORT[k.brsymbol] ?? k.brsymbol));
      return f ? [{ fyers: f, kite: k }] : [];
    });
    expect(pairs).toHaveLength(113);
    for (const { fyers: f, kite: k } of pairs)
      expect([f.symbol, f.instrumenttype]).toEqual([k.symbol, k.instrumenttype]);
    const matched = new Set(pairs.map((p) => p.kite.brsymbol));
    expect(kite.filter((k) => !matched.has(k.brsymbol)).map((k) => k.symbol)).toEqual([
      'HANGSENGBEESNAV',
      'NIFTY100QUALTY30',
      'NIFTY200ALPHA30',
      'NIFTYM150MOMNTM50',
    ]);
  });

  it('probably names one index otherwise: Fyers’ NIFTYQUALITY30 is likely Kite’s NIFTY100QUALTY30', () => {
    // No shared key proves it: Fyers lists `NIFTYQUALITY30-INDEX` ("NIFTY QUALITY 30", updated
    // 2018-02-05, scrip 999028 — the underlying Fyers gives NIFTY200QUALTY30), the old name of
    // NSE's Nifty100 Quality 30, which Kite, Upstox and Dhan list as NIFTY100 QUALTY30. If it is
    // the same index, that is 1 mismatch: NIFTYQUALITY30 (Fyers) vs NIFTY100QUALTY30 (Kite).
    const f = fyNse.rows.find((r) => r.brsymbol === 'NSE:NIFTYQUALITY30-INDEX');
    const k = kiteNse.rows.find((r) => r.brsymbol === 'NIFTY100 QUALTY30');
    expect([f?.symbol, k?.symbol]).toEqual(['NIFTYQUALITY30', 'NIFTY100QUALTY30']);
    expect(fyNse.exchangeToken.get(f!.token)).toBe('999028');
  });
});

describe('BSE, CDS and MCX: no Kite snapshot to compare with', () => {
  it('the Kite NSE file holds NSE and NSE_INDEX rows only; the NFO/BFO file no CDS or MCX', () => {
    expect(new Set(kiteNse.rows.map((r) => r.exchange))).toEqual(new Set(['NSE', 'NSE_INDEX']));
    expect(new Set(kiteFo.rows.map((r) => r.exchange))).toEqual(new Set(['NFO', 'BFO']));
  });
});

describe('BFO: Fyers BSE_FO and Kite BFO, joined by underlying, expiry, strike and type', () => {
  const key = (r: Instrument) => `${r.underlying!}|${r.expiryDate!}|${r.strike ?? ''}|${r.instrumenttype}`;
  const pairs = () => {
    const kite = new Map(kiteFo.rows.filter((r) => r.exchange === 'BFO').map((r) => [key(r), r]));
    return fyBfo.rows.flatMap((r) => {
      const k = kite.get(key(r));
      return k ? [{ fyers: r, kite: k }] : [];
    });
  };

  it('agrees on all 192 SENSEX options both list (Sep 2026 … Jun 2030)', () => {
    const all = pairs();
    expect(all).toHaveLength(192);
    const counts: Record<string, number> = {};
    for (const { fyers: f } of all) {
      const k = `${f.underlying!} ${f.expiryDate!}`;
      counts[k] = (counts[k] ?? 0) + 1;
    }
    expect(counts).toEqual({
      'SENSEX 2026-09-24': 32,
      'SENSEX 2026-12-31': 20,
      'SENSEX 2027-06-24': 20,
      'SENSEX 2027-12-30': 20,
      'SENSEX 2028-06-29': 20,
      'SENSEX 2028-12-28': 20,
      'SENSEX 2029-06-28': 20,
      'SENSEX 2029-12-27': 20,
      'SENSEX 2030-06-27': 20,
    });
    for (const { fyers: f, kite: k } of all) {
      expect(terms(f)).toEqual(terms(k));
      expect(f.tickSize).toBe(k.tickSize);
    }
  });

  it('cannot join by the exchange token: BSE reissued it for 122 of the 192, and reuses old ones', () => {
    const all = pairs();
    const fyTok = (r: Instrument) => fyBfo.exchangeToken.get(r.token)!;
    // The Fytoken of a BSE derivative is 1211 + the expiry as YYMMDD + the exchange token.
    for (const { fyers: f } of all) expect(f.token).toMatch(new RegExp(`^1211\\d{6}${fyTok(f)}$`));
    const differ = all.filter((p) => fyTok(p.fyers) !== kiteFo.exchangeToken.get(p.kite.token));
    expect(differ).toHaveLength(122);
    // A token of one contract in Fyers' file names another in Kite's (102 such in the full files).
    const kiteByToken = new Map(
      kiteFo.rows.filter((r) => r.exchange === 'BFO').map((r) => [kiteFo.exchangeToken.get(r.token)!, r]),
    );
    const reused = fyBfo.rows.filter((r) => {
      const k = kiteByToken.get(fyTok(r));
      return k !== undefined && key(k) !== key(r);
    });
    expect(reused.length).toBeGreaterThan(0);
  });

  it('shares no future, nor BANKEX or stock options: Fyers lists them to 2026-01-29, Kite from 2026-08-20', () => {
    const last = fyBfo.rows
      .filter((r) => r.underlying !== 'SENSEX' || r.instrumenttype === 'FUT')
      .map((r) => r.expiryDate!)
      .sort()
      .at(-1);
    const first = kiteFo.rows
      .filter((r) => r.exchange === 'BFO')
      .map((r) => r.expiryDate!)
      .sort()[0];
    expect([last, first]).toEqual(['2026-01-29', '2026-08-20']);
    expect(
      pairs().filter((p) => p.fyers.underlying !== 'SENSEX' || p.fyers.instrumenttype === 'FUT'),
    ).toEqual([]);
  });
});
