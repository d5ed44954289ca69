/**
 * The sandbox's services as the in-process benches build them (`sandbox-pass`, `day-jobs`): the
 * real engine and service on the bench's database and fake clock, its instruments from a map, its
 * warnings and errors (a refused close, a failed fill or job) on stderr; and what they price their
 * instruments with.
 */
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { zerodhaFormat } from '../../src/modules/market/importers/zerodha.js';
import type { Instrument } from '../../src/modules/market/instrument.js';
import { quoteKey, type Quote } from '../../src/modules/sandbox/core/types.js';
import { buildSandboxServices } from '../../src/modules/sandbox/sandbox.plugin.js';
import { LocalInvalidationBus } from '../../src/platform/invalidation.js';

type SandboxDeps = Parameters<typeof buildSandboxServices>[0];

export function benchSandbox(deps: {
  db: SandboxDeps['db'];
  config: SandboxDeps['config'];
  clock: SandboxDeps['clock'];
  /** Instruments by `EXCHANGE:SYMBOL`. */
  instruments: ReadonlyMap<string, Instrument>;
  sessionOn: SandboxDeps['sessionOn'];
}): ReturnType<typeof buildSandboxServices> {
  const byKey = deps.instruments;
  return buildSandboxServices({
    db: deps.db,
    config: deps.config,
    clock: deps.clock,
    logger: pino({ level: 'warn' }, pino.destination(2)),
    bus: new LocalInvalidationBus(),
    instruments: { get: (symbol, exchange) => Promise.resolve(byKey.get(quoteKey(exchange, symbol))) },
    sessionOn: deps.sessionOn,
  });
}

/** The sandbox's money unit: 1/10,000 of a rupee. */
const MONEY = 10_000;

/** One instrument of a bench with its reference price (Money, on its tick). */
export interface Priced {
  instrument: Instrument;
  key: string;
  /** The tick in Money. */
  tick: number;
  ltp: number;
}

/** `instrument` priced at `rupees`, rounded onto its tick. */
export function priced(instrument: Instrument, rupees: number): Priced {
  const tick = Math.round(instrument.tickSize * MONEY);
  const ltp = Math.round((rupees * MONEY) / tick) * tick;
  return { instrument, key: quoteKey(instrument.exchange, instrument.symbol), tick, ltp };
}

/** A quote of `ltp` (Money) with a one-tick spread and a ±5 % day range, in rupees as feeds send. */
export function quoteAt(p: Priced, ltp: number, now: number): Quote {
  return {
    ltp: ltp / MONEY,
    bid: (ltp - p.tick) / MONEY,
    ask: (ltp + p.tick) / MONEY,
    high: (Math.ceil((ltp * 1.05) / p.tick) * p.tick) / MONEY,
    low: (Math.floor((ltp * 0.95) / p.tick) * p.tick) / MONEY,
    timestamp: now,
  };
}

/** The rows of Kite instrument files (the first's header kept, the others' dropped), by the real importer. */
export async function kiteInstruments(files: readonly string[]): Promise<Instrument[]> {
  const texts = files.map((f) => readFileSync(f, 'utf8'));
  async function* lines(): AsyncGenerator<string> {
    for (const [i, text] of texts.entries()) {
      const body = i === 0 ? text : text.slice(text.indexOf('\n') + 1);
      yield body.endsWith('\n') ? body : body + '\n';
    }
  }
  const all: Instrument[] = [];
  for await (const item of zerodhaFormat.parse(lines())) if (item.kind === 'row') all.push(item.row);
  return all;
}
