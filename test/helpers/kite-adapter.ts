/**
 * The Zerodha adapter's test rig: a loopback Kite stub with an adapter on it, logging at debug into
 * `logs()`, both closed after the test (closeAfterEach); and a Kite GTT to send.
 */
import type { BrokerGtt } from '../../src/modules/brokers/broker-adapter.js';
import type { BrokerAdapterOptions } from '../../src/modules/brokers/http/order-transport.js';
import type { QuoteInstrument } from '../../src/modules/brokers/quotes/quote-client.js';
import { ZerodhaAdapter } from '../../src/modules/brokers/zerodha/zerodha.adapter.js';
import { captureLogs, startKiteOrderStub, type KiteOrderCredentials } from './broker-order-stubs.js';
import { closeLater } from './broker-quote-fixtures.js';

/** A Kite stub knowing `creds` and a Zerodha adapter on it (with `opts`); closed after the test. */
export async function kiteAdapterOn(creds: KiteOrderCredentials, opts: Partial<BrokerAdapterOptions> = {}) {
  const stub = await startKiteOrderStub(creds);
  const { logger, logs } = captureLogs();
  const redirectUrl = 'http://127.0.0.1:5000/zerodha/callback';
  const adapter = new ZerodhaAdapter({ ...creds, redirectUrl, baseUrl: stub.url, logger, ...opts });
  closeLater(() => stub.close());
  closeLater(() => adapter.close());
  return { stub, adapter, session: { accessToken: creds.accessToken }, logs };
}

/** A GTT on `i`: a single LIMIT CNC BUY 1 triggered at 790.5 (limit 790) under a last price of 812.35. */
export function kiteGtt(i: QuoteInstrument, o: Partial<BrokerGtt> = {}): BrokerGtt {
  const { symbol, exchange, brsymbol, brexchange, token } = i;
  return {
    ...{ type: 'single', symbol, exchange, brsymbol, brexchange, token, tickSize: 0.05 },
    ...{ action: 'BUY', product: 'CNC', quantity: 1, priceType: 'LIMIT' },
    ...{ triggers: [790.5], prices: [790], lastPrice: 812.35 },
    ...o,
  };
}
