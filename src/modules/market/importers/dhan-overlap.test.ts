/**
 * The Dhan importer against Zerodha's: the same contracts get the same service symbols. The
 * fixture rows and their provenance are described in dhan.test.ts.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { marketFixture } from '../../../../test/helpers/market-fixtures.js';
import {
  collect,
  countBy,
  FO_FILE,
  NSE_FILE,
  type Parsed,
} from '../../../../test/helpers/kite-instruments.js';
import type { Instrument } from '../instrument.js';
import { parseDhan } from './dhan.js';
import { parseZerodha } from './zerodha.js';

const FILE = marketFixture('dhan', 'api-scrip-master_2026-02-10.csv');
/** Kite rows of the NIFTY/BANKNIFTY/SENSEX contracts the Dhan cut lists and the Kite fixture lacks. */
const KITE_OVERLAP_FILE = marketFixture('dhan', 'kite_instruments_NFO_BFO_2026-08-18_dhan-overlap.csv');

let dhan: Parsed;
beforeAll(async () => {
  dhan = await collect(parseDhan(createReadStream(FILE)));
});

const find = (exchange: string, symbol: string) =>
  dhan.rows.find((r) => r.exchange === exchange && r.symbol === symbol);

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

describe('the Dhan and Zerodha imports give the same contracts the same service symbols', () => {
  // Kite NFO/BFO of 2026-08-18 (the fixture, and the overlap cut beside the Dhan fixture) and Kite
  // NSE of 2025-10-06, against Dhan's 2026-02-10 master.
  let kite: Map<string, Instrument>;
  /** Kite instrument_token → exchange_token (the exchange's own contract id). */
  const exchangeTokens = new Map<string, string>();
  beforeAll(async () => {
    const files = [FO_FILE, KITE_OVERLAP_FILE, NSE_FILE];
    const parsed = await Promise.all(files.map((f) => collect(parseZerodha(createReadStream(f)))));
    for (const p of parsed) expect(p.skips).toEqual([]);
    kite = new Map(parsed.flatMap((p) => p.rows).map((r) => [`${r.exchange}:${r.symbol}`, r]));
    for (const f of files)
      for (const line of readFileSync(f, 'utf8').trimEnd().split('\n').slice(1)) {
        const [instrumentToken, exchangeToken] = line.split(',');
        exchangeTokens.set(instrumentToken!, exchangeToken!);
      }
  });
  const overlap = (pick: (r: Instrument) => boolean) =>
    dhan.rows.filter(pick).flatMap((r) => {
      const k = kite.get(`${r.exchange}:${r.symbol}`);
      return k ? [{ dhan: r, kite: k }] : [];
    });

  it('agrees on all 553 NIFTY, BANKNIFTY and SENSEX options both snapshots list (Sep 2026 … Dec 2030)', () => {
    const pairs = overlap((r) => ['NIFTY', 'BANKNIFTY', 'SENSEX'].includes(r.underlying ?? ''));
    expect(
      countBy(pairs.map((p) => ({ ...p.dhan, exchange: `${p.dhan.exchange} ${p.dhan.underlying!}` }))),
    ).toEqual({
      'NFO NIFTY CE': 138,
      'NFO NIFTY PE': 159,
      'NFO BANKNIFTY CE': 30,
      'NFO BANKNIFTY PE': 32,
      'BFO SENSEX CE': 97,
      'BFO SENSEX PE': 97,
    });
    for (const { dhan: d, kite: k } of pairs) expect(terms(d)).toEqual(terms(k));
    const expiries = [...new Set(pairs.map((p) => `${p.dhan.underlying!} ${p.dhan.expiryDate!}`))].sort();
    expect(expiries).toEqual([
      'BANKNIFTY 2026-09-29',
      'BANKNIFTY 2026-12-29',
      'NIFTY 2026-09-29',
      'NIFTY 2026-12-29',
      'NIFTY 2027-06-29',
      'NIFTY 2027-12-28',
      'NIFTY 2028-06-27',
      'NIFTY 2028-12-26',
      'NIFTY 2029-06-26',
      'NIFTY 2029-12-24',
      'NIFTY 2030-06-25',
      'NIFTY 2030-12-31',
      'SENSEX 2026-09-24',
      'SENSEX 2026-12-31',
      'SENSEX 2027-06-24',
      'SENSEX 2027-12-30',
      'SENSEX 2028-06-29',
      'SENSEX 2028-12-28',
      'SENSEX 2029-06-28',
      'SENSEX 2029-12-27',
      'SENSEX 2030-06-27',
      'SENSEX 2030-12-26',
    ]);
  });

  it('matches the same NSE contracts: the Dhan security id is the Kite exchange token of every shared NFO option', () => {
    const pairs = overlap((r) => r.exchange === 'NFO');
    expect(pairs).toHaveLength(359);
    for (const { dhan: d, kite: k } of pairs)
      expect([d.symbol, d.token]).toEqual([k.symbol, exchangeTokens.get(k.token)]);
  });

  it('shares no future: Dhan lists index futures to 2026-04-30, Kite from 2026-08-25', () => {
    const futures = (rows: Iterable<Instrument>) =>
      [...rows].filter(
        (r) => r.instrumenttype === 'FUT' && ['NIFTY', 'BANKNIFTY', 'SENSEX'].includes(r.underlying!),
      );
    const last = futures(dhan.rows)
      .map((r) => r.expiryDate!)
      .sort()
      .at(-1);
    const first = futures(kite.values())
      .map((r) => r.expiryDate!)
      .sort()[0];
    expect([last, first]).toEqual(['2026-04-30', '2026-08-25']);
    expect(overlap((r) => r.instrumenttype === 'FUT')).toEqual([]);
    // Both name them base + DDMMMYY + FUT with the same lots.
    expect(find('NFO', 'NIFTY24FEB26FUT')).toMatchObject({
      lotsize: kite.get('NFO:NIFTY25AUG26FUT')!.lotsize,
    });
    expect(find('NFO', 'BANKNIFTY24FEB26FUT')).toMatchObject({
      lotsize: kite.get('NFO:BANKNIFTY25AUG26FUT')!.lotsize,
    });
    expect(find('BFO', 'SENSEX26FEB26FUT')).toMatchObject({
      lotsize: kite.get('BFO:SENSEX27AUG26FUT')!.lotsize,
    });
  });

  it('agrees on the 445 NSE equities both list, but the SME lots NSE revised between the snapshots', () => {
    const pairs = overlap((r) => r.exchange === 'NSE');
    expect(pairs).toHaveLength(445);
    const lotChanged = pairs.filter((p) => p.dhan.lotsize !== p.kite.lotsize);
    // SME market lots are reset by price; SOLEX also moved to the main board (lot 1).
    expect(lotChanged.map((p) => [p.kite.brsymbol, p.kite.lotsize, p.dhan.lotsize])).toEqual([
      ['VINSYS-SM', 500, 250],
      ['AKIKO-ST', 1600, 800],
      ['SHUBHSHREE-SM', 600, 300],
      ['SOLEX-ST', 125, 1],
      ['COOLCAPS-SM', 2500, 1250],
    ]);
    for (const { dhan: d, kite: k } of pairs)
      expect({ ...terms(d), lotsize: 0 }).toEqual({ ...terms(k), lotsize: 0 });
    // Kite's symbols carry the series (`GOLDSTAR-SM`), which the service symbol drops.
    expect(pairs.filter((p) => p.dhan.symbol !== p.kite.brsymbol)).toHaveLength(303);
    expect(pairs.map((p) => p.dhan.symbol)).toEqual(
      expect.arrayContaining(['SBIN', 'BAJAJ-AUTO', 'M&M', 'GOLDSTAR', 'CHOLAFIN', 'CHOLAFIN-D1', 'IMC1-N1']),
    );
  });
});
