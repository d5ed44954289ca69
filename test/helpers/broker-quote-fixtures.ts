/**
 * Fixtures of the broker quote tests: the credentials the stubs accept, real instruments read
 * from the shared masters by the real importers, the brokers' documented example quotes, and a
 * stub + client pair per test.
 */
import { createReadStream } from 'node:fs';
import { Writable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { afterEach, expect } from 'vitest';
import { createQuoteClient } from '../../src/modules/brokers/quotes/create-quote-client.js';
import {
  QuoteError,
  type QuoteClientOptions,
  type QuoteInstrument,
} from '../../src/modules/brokers/quotes/quote-client.js';
import type { Instrument, ParsedItem } from '../../src/modules/market/instrument.js';
import { parseUpstox } from '../../src/modules/market/importers/upstox.js';
import { parseZerodha } from '../../src/modules/market/importers/zerodha.js';
import { createLogger } from '../../src/platform/logger.js';
import {
  depth,
  KiteQuoteStub,
  kiteQuote,
  startKiteQuoteStub,
  startUpstoxQuoteStub,
  upstoxQuote,
  UpstoxQuoteStub,
  type BrokerStub,
} from './broker-quote-stubs.js';
import { marketFixture } from './market-fixtures.js';

// Credentials the stubs accept; distinctive so any leak into a message or a log is caught.
export const KITE = { apiKey: 'kiteKEY7w3q9', accessToken: 'kiteTOKENx81Lm2Pz' };
export const UPSTOX_TOKEN = 'eyJ0eXAiOiJKV1QupstoxTOKEN4Qz';

// ---- real instruments, through the real master-contract parsers (test/fixtures/market) -------------

export async function rows(items: AsyncIterable<ParsedItem>): Promise<QuoteInstrument[]> {
  const out: QuoteInstrument[] = [];
  for await (const item of items)
    if (item.kind === 'row') {
      const { symbol, exchange, brsymbol, brexchange, token }: Instrument = item.row;
      out.push({ symbol, exchange, brsymbol, brexchange, token });
    }
  return out;
}

export function named(
  list: QuoteInstrument[],
  names: Record<string, string>,
): Record<string, QuoteInstrument> {
  return Object.fromEntries(
    Object.entries(names).map(([k, key]) => {
      const row = list.find((r) => `${r.exchange}:${r.symbol}` === key);
      if (!row) throw new Error(`no ${key} in the master`);
      return [k, row];
    }),
  );
}

/** Kite: NSE 2025-10-06 and NFO/BFO 2026-08-18 masters; Upstox: complete.csv of 2026-02-05. */
export type KiteSet = Record<'sbin' | 'infy' | 'nifty' | 'ce' | 'fut', QuoteInstrument> & {
  nfo: QuoteInstrument[];
};
export type UpstoxSet = Record<'sbin' | 'nhpc' | 'nifty' | 'ce' | 'fut', QuoteInstrument> & {
  nseFo: QuoteInstrument[];
};
/** Reads the real masters through the real importers (call from `beforeAll`). */
export async function loadQuoteInstruments(): Promise<{ K: KiteSet; U: UpstoxSet }> {
  const kite = [
    ...(await rows(
      parseZerodha(createReadStream(marketFixture('zerodha', 'kite_instruments_NSE_2025-10-06.csv'))),
    )),
    ...(await rows(
      parseZerodha(createReadStream(marketFixture('zerodha', 'kite_instruments_NFO_BFO_2026-08-18.csv'))),
    )),
  ];
  const upstox = await rows(
    parseUpstox(
      createReadStream(marketFixture('upstox', 'upstox_complete_2026-02-05.csv.gz')).pipe(createGunzip()),
    ),
  );
  const K: KiteSet = {
    ...(named(kite, {
      sbin: 'NSE:SBIN',
      infy: 'NSE:INFY',
      nifty: 'NSE_INDEX:NIFTY',
      ce: 'NFO:NIFTY18AUG2626000CE',
      fut: 'NFO:BANKNIFTY25AUG26FUT',
    }) as KiteSet),
    nfo: kite.filter((r) => r.exchange === 'NFO'),
  };
  const U: UpstoxSet = {
    ...(named(upstox, {
      sbin: 'NSE:SBIN',
      nhpc: 'NSE:NHPC',
      nifty: 'NSE_INDEX:NIFTY',
      ce: 'NFO:NIFTY10FEB2626000CE',
      fut: 'NFO:BANKNIFTY24FEB26FUT',
    }) as UpstoxSet),
    nseFo: upstox.filter((r) => r.brexchange === 'NSE_FO'),
  };
  return { K, U };
}

// ---- fixtures and plumbing -----------------------------------------------------------------------

/** Kite's documented `/quote` example (market-quotes page), verbatim: INFY, no bids, one ask. */
export const KITE_DOC_INFY: Record<string, unknown> =
  JSON.parse(`{"instrument_token":408065,"timestamp":"2021-06-08 15:45:56",
  "last_trade_time":"2021-06-08 15:45:52","last_price":1412.95,"last_quantity":5,"buy_quantity":0,
  "sell_quantity":5191,"volume":7360198,"average_price":1412.47,"oi":0,"oi_day_high":0,"oi_day_low":0,
  "net_change":0,"lower_circuit_limit":1250.7,"upper_circuit_limit":1528.6,
  "ohlc":{"open":1396,"high":1421.75,"low":1395.55,"close":1389.65},
  "depth":{"buy":${JSON.stringify(depth([]))},"sell":${JSON.stringify(depth([[1412.95, 5191, 13]]))}}}`);

/** Upstox's documented full-quote example (get-full-market-quote), verbatim: NHPC, one bid. */
export const UPSTOX_DOC_NHPC: Record<string, unknown> =
  JSON.parse(`{"ohlc":{"open":53.4,"high":53.8,"low":51.75,"close":52.05},
  "depth":{"buy":${JSON.stringify(depth([[52.05, 6917, 20]]))},"sell":${JSON.stringify(depth([]))}},
  "timestamp":"2023-10-19T05:21:51.099+05:30","instrument_token":"NSE_EQ|INE848E01016","symbol":"NHPC",
  "last_price":52.04999923706055,"volume":24123697,"average_price":52.56,"oi":0,"net_change":-1.0500000000000043,
  "total_buy_quantity":6917,"total_sell_quantity":0,"lower_circuit_limit":42.5,"upper_circuit_limit":63.7,
  "last_trade_time":"1697624972130","oi_day_high":0,"oi_day_low":0}`);

const cleanups: (() => Promise<void>)[] = [];
/** Registers something to close after the current test. */
export function closeLater(fn: () => Promise<void>): void {
  cleanups.push(fn);
}

/** Closes every stub and client {@link setup} made, after each test (call once per file). */
export function closeAfterEach(): void {
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });
}

/** A stub of `broker`, its client (logging at debug into `logs()`), closed after the test. */
export async function setup(broker: 'zerodha' | 'upstox', opts: Partial<QuoteClientOptions> = {}) {
  const stub =
    broker === 'zerodha' ? await startKiteQuoteStub(KITE) : await startUpstoxQuoteStub(UPSTOX_TOKEN);
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  const client = createQuoteClient(broker, {
    baseUrl: stub.url,
    apiKey: KITE.apiKey,
    accessToken: broker === 'zerodha' ? KITE.accessToken : UPSTOX_TOKEN,
    logger: createLogger('debug', sink),
    ...opts,
  });
  cleanups.push(
    () => stub.close(),
    () => client.close(),
  );
  return { stub, client, logs: () => lines.join('') };
}

/** Puts a documented-shape quote for each instrument in the stub, ltp `price + position`. */
export function fill(stub: BrokerStub, list: readonly QuoteInstrument[], price = 100): void {
  list.forEach((i, n) => {
    if (stub instanceof KiteQuoteStub)
      stub.quotes.set(
        `${i.brexchange}:${i.brsymbol}`,
        kiteQuote({ instrumentToken: Number(i.token), lastPrice: price + n }),
      );
    else if (stub instanceof UpstoxQuoteStub)
      stub.quotes.set(
        i.token,
        upstoxQuote({ instrumentKey: i.token, symbol: i.brsymbol, lastPrice: price + n }),
      );
  });
}

/** The QuoteError `promise` rejects with (fails the test when it resolves or rejects otherwise). */
export async function quoteError(promise: Promise<unknown>): Promise<QuoteError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(QuoteError);
  return err as QuoteError;
}

export const kiteKeysAsked = (stub: BrokerStub) => stub.requests.map((r) => r.query.getAll('i'));
export const upstoxKeysAsked = (stub: BrokerStub) =>
  stub.requests.map((r) => (r.query.get('instrument_key') ?? '').split(','));
