import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../platform/clock.js';
import { seedOf } from '../../../platform/seeded-random.js';
import { istInstant } from '../../market/timings.service.js';
import type { PricedInstrument } from './price-source.js';
import {
  RandomWalk,
  SIMULATED_BAND_PERCENT,
  SIMULATED_STEP_MS,
  SimulatedPriceSource,
  onTickGrid,
  referenceLookup,
  tickOf,
} from './simulated-price-source.js';
import type { Quote } from '../core/types.js';

const SBIN: PricedInstrument = {
  symbol: 'SBIN',
  exchange: 'NSE',
  brsymbol: 'SBIN',
  brexchange: 'NSE',
  token: '779521',
  tickSize: 0.05,
};
const USDINR: PricedInstrument = {
  symbol: 'USDINR28NOV25FUT',
  exchange: 'CDS',
  brsymbol: 'USDINR25NOVFUT',
  brexchange: 'CDS',
  token: '1',
  tickSize: 0.0025,
};
const T0 = istInstant('2026-01-05', '10:00');
const logger = pino({ level: 'silent' });

function source(refs: Record<string, number | undefined>, clock = new FakeClock(T0), seed?: number) {
  const asked: string[] = [];
  const s = new SimulatedPriceSource({
    clock,
    logger,
    pollMs: 1000,
    seed,
    reference: (i) => {
      asked.push(i.symbol);
      const r = refs[`${i.exchange}:${i.symbol}`];
      return Promise.resolve(r === undefined ? undefined : Math.round(r * 10_000));
    },
  });
  return { s, clock, asked };
}

/** The money units of a rupee price, to check it against the tick grid exactly. */
const units = (rupees: number) => Math.round(rupees * 10_000);

describe('the random walk', () => {
  it('is deterministic: the same reference, tick and seed walk the same path; another seed another', () => {
    const path = (seed: number) => {
      const w = new RandomWalk(8_000_000, 500, seed);
      const out: number[] = [];
      for (let k = 1; k <= 500; k++) {
        w.advanceTo(k);
        out.push(w.offset);
      }
      return out;
    };
    expect(path(seedOf('NSE:SBIN|2026-01-05'))).toEqual(path(seedOf('NSE:SBIN|2026-01-05')));
    expect(path(seedOf('NSE:SBIN|2026-01-06'))).not.toEqual(path(seedOf('NSE:SBIN|2026-01-05')));
    // It moves: a path that never left the reference would fill every order at one price.
    expect(new Set(path(7)).size).toBeGreaterThan(5);
  });

  it('walking in one go or step by step reaches the same place', () => {
    const a = new RandomWalk(8_000_000, 500, 42);
    a.advanceTo(10_000);
    const b = new RandomWalk(8_000_000, 500, 42);
    for (let k = 0; k <= 10_000; k += 7) b.advanceTo(k);
    b.advanceTo(10_000);
    expect([b.offset, b.high, b.low]).toEqual([a.offset, a.high, a.low]);
  });

  it('moves at most two ticks a step and stays within ±5% of the reference, reaching the band', () => {
    // ₹10 at a 1-paisa tick: 50 ticks either way, reached within a day's steps.
    const w = new RandomWalk(100_000, 100, 3);
    expect(w.band).toBe(50);
    let prev = 0;
    let biggestMove = 0;
    let farthest = 0;
    for (let k = 1; k <= 86_400; k++) {
      w.advanceTo(k);
      biggestMove = Math.max(biggestMove, Math.abs(w.offset - prev));
      farthest = Math.max(farthest, Math.abs(w.offset));
      prev = w.offset;
    }
    expect([biggestMove, farthest]).toEqual([2, w.band]);
    const lowest = w.price(-w.band);
    expect(lowest).toBe(100_000 * (1 - SIMULATED_BAND_PERCENT / 100));
    expect([w.high <= w.band, w.low >= -w.band, w.high >= w.offset, w.low <= w.offset]).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it('tick sizes and grid: the row’s tick (₹0.0025 on CDS), ₹0.05 when the row has none; prices rounded to it', () => {
    expect(tickOf(USDINR)).toBe(25);
    expect(tickOf({})).toBe(500);
    expect(tickOf({ tickSize: 0 })).toBe(500);
    expect(onTickGrid(8_001_234, 500)).toBe(8_001_000);
    expect(onTickGrid(100, 500)).toBe(500);
  });
});

describe('SimulatedPriceSource', () => {
  it('quotes on the tick grid: bid and ask one tick either side of the LTP, inside the day’s low–high, stamped with the step', async () => {
    const { s, clock } = source({ 'NSE:SBIN': 800, 'CDS:USDINR28NOV25FUT': 88.5 });
    for (let i = 0; i < 30; i++) {
      clock.advance(1_700);
      for (const [inst, tick] of [
        [SBIN, 500],
        [USDINR, 25],
      ] as const) {
        const q = (await s.quote(inst))!;
        for (const p of [q.ltp, q.bid!, q.ask!, q.high, q.low]) expect(units(p) % tick).toBe(0);
        expect(units(q.ask!) - units(q.ltp)).toBe(tick);
        expect(units(q.ltp) - units(q.bid!)).toBe(tick);
        expect(q.low).toBeLessThanOrEqual(q.ltp);
        expect(q.high).toBeGreaterThanOrEqual(q.ltp);
        expect(q.timestamp % SIMULATED_STEP_MS).toBe(0);
        expect(clock.now() - q.timestamp).toBeLessThan(SIMULATED_STEP_MS);
        expect(s.latest(`${inst.exchange}:${inst.symbol}`)).toEqual(q);
      }
    }
  });

  it('two sources (instances, restarts) give the same quote at the same instant; another seed does not', async () => {
    const at = T0 + 3_600_000;
    const a = source({ 'NSE:SBIN': 800 }, new FakeClock(at));
    const b = source({ 'NSE:SBIN': 800 }, new FakeClock(T0));
    await b.s.quote(SBIN); // b walked part of the way already
    b.clock.set(at);
    const c = source({ 'NSE:SBIN': 800 }, new FakeClock(at), 99);
    const [qa, qb, qc] = await Promise.all([a.s.quote(SBIN), b.s.quote(SBIN), c.s.quote(SBIN)]);
    expect(qb).toEqual(qa);
    expect(qc!.ltp).not.toBe(qa!.ltp);
  });

  it('the day restarts at the reference: the first step of a day is within two ticks of it', async () => {
    const { s, clock } = source({ 'NSE:SBIN': 800 });
    clock.set(istInstant('2026-01-06', '00:00'));
    const q = (await s.quote(SBIN))!;
    expect(q.ltp).toBe(800);
    expect([q.high, q.low]).toEqual([800, 800]);
    clock.advance(SIMULATED_STEP_MS);
    expect(Math.abs(units((await s.quote(SBIN))!.ltp) - 8_000_000)).toBeLessThanOrEqual(1_000);
  });

  it('with sessions kept, the walk moves only inside the session: the reference before the open, the close’s price after it, the reference on a closed day', async () => {
    const clock = new FakeClock(istInstant('2026-01-05', '08:00'));
    const s = new SimulatedPriceSource({
      clock,
      logger,
      pollMs: 1000,
      reference: () => Promise.resolve(8_000_000),
      // NSE's regular hours on the Monday; closed on the Sunday.
      session: (_exchange, date) =>
        date === '2026-01-04'
          ? null
          : { startMs: istInstant(date, '09:15'), endMs: istInstant(date, '15:30') },
    });
    const at = async (date: string, hhmm: string) => {
      clock.set(istInstant(date, hhmm));
      return (await s.quote(SBIN))!;
    };
    const early = await at('2026-01-05', '08:00');
    expect([early.ltp, early.high, early.low]).toEqual([800, 800, 800]);
    expect((await at('2026-01-05', '09:15')).ltp).toBe(800);
    const midday = await at('2026-01-05', '12:00');
    const close = await at('2026-01-05', '15:30');
    // Three hours of steps move it; after the close it stands still.
    expect(midday.high - midday.low).toBeGreaterThan(0);
    expect((await at('2026-01-05', '20:00')).ltp).toBe(close.ltp);
    expect((await at('2026-01-05', '23:59')).ltp).toBe(close.ltp);
    const sunday = await at('2026-01-04', '12:00');
    expect([sunday.ltp, sunday.high, sunday.low]).toEqual([800, 800, 800]);
  });

  it('an off-grid reference is put on the grid', async () => {
    const { s, clock } = source({ 'NSE:SBIN': 800.02 });
    clock.set(istInstant('2026-01-06', '00:00'));
    expect((await s.quote(SBIN))!.ltp).toBe(800);
  });

  it('without a reference: no quote, the reason says how to give one, and the lookup is not repeated every poll', async () => {
    const refs: Record<string, number | undefined> = {};
    const { s, clock, asked } = source(refs);
    expect(await s.quote(SBIN)).toBeUndefined();
    expect(s.noPriceReason(SBIN)).toMatch(
      /^No price for NSE:SBIN: the simulated price source has no reference price for it yet \(the instrument file states none\)\. Place a LIMIT order for it first .*SANDBOX_PRICE_SOURCE=scripted/,
    );
    expect(await s.quote(SBIN)).toBeUndefined();
    expect(asked).toEqual(['SBIN']);
    // A LIMIT placed: the next quote looks again and finds its price.
    refs['NSE:SBIN'] = 812.5;
    s.orderPlaced(SBIN);
    const q = await s.quote(SBIN);
    expect(asked).toEqual(['SBIN', 'SBIN']);
    expect(q).toBeDefined();
    expect(Math.abs(q!.ltp - 812.5)).toBeLessThanOrEqual(812.5 * 0.05);
    // Known from then on: no more lookups.
    clock.advance(60_000);
    await s.quote(SBIN);
    expect(asked).toHaveLength(2);
  });

  it('a missing reference is asked for again after a while (a LIMIT placed on another instance)', async () => {
    const refs: Record<string, number | undefined> = {};
    const { s, clock, asked } = source(refs);
    await s.quote(SBIN);
    refs['NSE:SBIN'] = 800;
    clock.advance(5_000);
    expect(await s.quote(SBIN)).toBeUndefined();
    clock.advance(5_000);
    expect(await s.quote(SBIN)).toBeDefined();
    expect(asked).toHaveLength(2);
  });

  it('a new instrument file: every reference is looked up again, and a changed one starts the walk afresh', async () => {
    const refs: Record<string, number | undefined> = { 'NSE:SBIN': 800 };
    const { s, clock, asked } = source(refs);
    clock.set(istInstant('2026-01-06', '00:00'));
    expect((await s.quote(SBIN))!.ltp).toBe(800);
    refs['NSE:SBIN'] = 1064.2;
    expect((await s.quote(SBIN))!.ltp).toBe(800); // known: not asked again
    s.forgetReferences();
    expect((await s.quote(SBIN))!.ltp).toBe(1064.2);
    expect(asked).toEqual(['SBIN', 'SBIN']);
  });

  it('poll quotes every watched instrument that has a reference, in one update to the listeners', async () => {
    const { s, clock } = source({ 'NSE:SBIN': 800, 'CDS:USDINR28NOV25FUT': 88.5 });
    const got: ReadonlyMap<string, Quote>[] = [];
    s.onQuotes((q) => got.push(q));
    await s.poll();
    expect(got).toEqual([]);
    s.watch([SBIN, USDINR, { ...SBIN, symbol: 'INFY', token: '2' }]);
    clock.advance(2_000);
    await s.poll();
    expect(got).toHaveLength(1);
    expect([...got[0]!.keys()]).toEqual(['NSE:SBIN', 'CDS:USDINR28NOV25FUT']);
    expect(got[0]!.get('NSE:SBIN')).toEqual(await s.quoteAt(SBIN, clock.now()));
    expect(s.demo).toBe(true);
  });
});

describe('referenceLookup: the instrument file’s price first, then the first LIMIT or SL price', () => {
  const lookup = (file: number | undefined, orders: number | undefined) => {
    const asked: string[] = [];
    const fn = referenceLookup(
      (i) => {
        asked.push(`file ${i.symbol}`);
        return Promise.resolve(file);
      },
      (i) => {
        asked.push(`orders ${i.symbol}`);
        return Promise.resolve(orders);
      },
    );
    return { fn, asked };
  };

  it('takes the file’s price (rupees → money) without asking the orders', async () => {
    const { fn, asked } = lookup(1064.2, 8_000_000);
    expect(await fn(SBIN)).toBe(10_642_000);
    expect(asked).toEqual(['file SBIN']);
    expect(await lookup(90.345, undefined).fn(USDINR)).toBe(903_450);
  });

  it('falls back to the first LIMIT price when the file states none (or nothing usable)', async () => {
    for (const file of [undefined, 0, -3, Number.NaN, Number.POSITIVE_INFINITY, 0.00001]) {
      const { fn, asked } = lookup(file, 8_125_000);
      expect(await fn(SBIN)).toBe(8_125_000);
      expect(asked).toEqual(['file SBIN', 'orders SBIN']);
    }
    expect(await lookup(undefined, undefined).fn(SBIN)).toBeUndefined();
  });
});
