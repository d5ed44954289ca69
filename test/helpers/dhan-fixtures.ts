/**
 * Fixtures of the Dhan adapter tests: real instruments read from the Dhan scrip master fixture
 * (test/fixtures/market/dhan) by the real importer, the credentials the stub accepts, and a stub +
 * adapter pair per test (closed after it through broker-quote-fixtures.ts `closeLater`).
 */
import { createReadStream } from 'node:fs';
import type { QuoteInstrument } from '../../src/modules/brokers/quotes/quote-client.js';
import type { BrokerAdapterOptions } from '../../src/modules/brokers/http/order-transport.js';
import { DhanAdapter } from '../../src/modules/brokers/dhan/dhan.adapter.js';
import { parseDhan } from '../../src/modules/market/importers/dhan.js';
import { closeLater, named, rows } from './broker-quote-fixtures.js';
import { captureLogs } from './broker-order-stubs.js';
import { startDhanStub, type DhanStub } from './broker-order-stub-dhan.js';
import { marketFixture } from './market-fixtures.js';

// Distinctive, so any leak into a message, a raw body or a log line is caught.
export const DHAN = { accessToken: 'eyJhbGciDHANtoken7Qw2Zx9', clientId: '1100063218' };

export type DhanSet = Record<'sbin' | 'infy' | 'nifty' | 'ce' | 'fut' | 'silver', QuoteInstrument> & {
  all: QuoteInstrument[];
};

/** Reads the Dhan master fixture through the real importer (call from `beforeAll`). */
export async function loadDhanInstruments(): Promise<DhanSet> {
  const all = await rows(
    parseDhan(createReadStream(marketFixture('dhan', 'api-scrip-master_2026-02-10.csv'))),
  );
  return {
    ...(named(all, {
      sbin: 'NSE:SBIN',
      infy: 'NSE:INFY',
      nifty: 'NSE_INDEX:NIFTY',
      ce: 'NFO:NIFTY10FEB2625000CE',
      fut: 'NFO:BANKNIFTY30MAR26FUT',
      silver: 'MCX:SILVER05MAR26FUT',
    }) as DhanSet),
    all,
  };
}

/** Tells the stub each instrument's trading symbol (what Dhan's books show for its security id). */
export function teach(stub: DhanStub, list: readonly QuoteInstrument[]): void {
  for (const i of list) stub.instruments.set(`${i.brexchange}|${i.token}`, i.brsymbol);
}

/** A Dhan stub and an adapter on it, logging at debug into `logs()`; closed after the test. */
export async function setupDhan(
  opts: Partial<BrokerAdapterOptions> = {},
  instruments: readonly QuoteInstrument[] = [],
) {
  const stub = await startDhanStub(DHAN);
  teach(stub, instruments);
  const { logger, logs } = captureLogs();
  const adapter = new DhanAdapter({
    apiKey: '',
    apiSecret: '',
    redirectUrl: '',
    baseUrl: stub.baseUrl,
    keepWarmMs: 0,
    logger,
    ...opts,
  });
  closeLater(() => stub.close());
  closeLater(() => adapter.close());
  return { stub, adapter, session: { accessToken: DHAN.accessToken, brokerUserId: DHAN.clientId }, logs };
}
