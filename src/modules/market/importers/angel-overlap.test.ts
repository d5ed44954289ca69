/**
 * The Angel One importer against Zerodha's: the same contract gets the same service symbol. The
 * fixture rows and their provenance are described in angel.test.ts.
 */
import { createReadStream } from 'node:fs';

import { beforeAll, describe, expect, it } from 'vitest';
import {
  bySymbol,
  collect,
  FO_FILE,
  NSE_FILE,
  type Parsed,
} from '../../../../test/helpers/kite-instruments.js';
import { marketFixture } from '../../../../test/helpers/market-fixtures.js';
import type { Instrument } from '../instrument.js';
import { parseAngel } from './angel.js';
import { parseZerodha } from './zerodha.js';

const FILE = marketFixture('angel', 'OpenAPIScripMaster_documented_rows.json');

let all: Parsed;
beforeAll(async () => {
  all = await collect(parseAngel(createReadStream(FILE)));
});

const find = (exchange: string, symbol: string) => bySymbol(all, exchange, symbol);

describe('the same contract gets the same service symbol from Angel and from Kite', () => {
  let kiteFo: Parsed;
  let kiteNse: Parsed;
  beforeAll(async () => {
    [kiteFo, kiteNse] = await Promise.all([
      collect(parseZerodha(createReadStream(FO_FILE))),
      collect(parseZerodha(createReadStream(NSE_FILE))),
    ]);
  });

  it('maps NIFTY 18 AUG 2026 26000 CE (lot 65) to NIFTY18AUG2626000CE, as Kite’s NIFTY2681826000CE', () => {
    const angel = find('NFO', 'NIFTY18AUG2626000CE')!;
    const kite = kiteFo.rows.find((r) => r.brsymbol === 'NIFTY2681826000CE')!;
    expect(kite.symbol).toBe('NIFTY18AUG2626000CE');
    expect(angel.symbol).toBe(kite.symbol);
    const terms = ({
      exchange,
      expiry,
      expiryDate,
      strike,
      lotsize,
      instrumenttype,
      tickSize,
      underlying,
    }: Instrument) => ({
      exchange,
      expiry,
      expiryDate,
      strike,
      lotsize,
      instrumenttype,
      tickSize,
      underlying,
    });
    expect(terms(angel)).toEqual(terms(kite));
  });

  it('finds every NFO/BFO contract of the Aug-2026 rows (NIFTY, BANKNIFTY, SENSEX, SBIN, ASHOKLEY 172.5) under the same symbol and terms in Kite', () => {
    const overlap = all.rows.filter(
      (r) => (r.exchange === 'NFO' || r.exchange === 'BFO') && r.expiryDate!.startsWith('2026-08'),
    );
    expect(overlap.map((r) => r.symbol).sort()).toEqual([
      'ASHOKLEY25AUG26172.5CE',
      'BANKNIFTY25AUG2657500CE',
      'BANKNIFTY25AUG26FUT',
      'NIFTY18AUG2626000CE',
      'NIFTY18AUG2626000PE',
      'NIFTY25AUG26FUT',
      'SBIN25AUG261000CE',
      'SBIN25AUG26FUT',
      'SENSEX20AUG2678000CE',
      'SENSEX27AUG26FUT',
    ]);
    for (const a of overlap) {
      const k = bySymbol(kiteFo, a.exchange, a.symbol);
      expect({ symbol: a.symbol, found: k !== undefined }).toEqual({ symbol: a.symbol, found: true });
      expect(a).toMatchObject({
        expiryDate: k!.expiryDate,
        strike: k!.strike,
        lotsize: k!.lotsize,
        tickSize: k!.tickSize,
        instrumenttype: k!.instrumenttype,
        underlying: k!.underlying,
      });
    }
  });

  it('maps NSE equity and the NIFTY, BANKNIFTY and INDIAVIX indices to symbols Kite’s NSE file has', () => {
    for (const [exchange, symbol] of [
      ['NSE', 'SBIN'],
      ['NSE_INDEX', 'NIFTY'],
      ['NSE_INDEX', 'BANKNIFTY'],
      ['NSE_INDEX', 'INDIAVIX'],
    ] as const) {
      expect(find(exchange, symbol)).toBeDefined();
      expect(bySymbol(kiteNse, exchange, symbol)).toBeDefined();
    }
  });
});
