/**
 * Loopback stand-ins for the brokers' order and login endpoints, on {@link BrokerStub} (real
 * HTTP: keep-alive, timeouts, status codes), speaking the documented formats:
 *
 * - {@link KiteOrderStub}: Kite Connect v3 `POST /orders/regular`, `PUT|DELETE
 *   /orders/regular/:id`, `GET /orders/:id` (history), `GET /orders` (the day's order book, each
 *   order's current record), `POST /session/token` (checksum checked).
 * - {@link UpstoxOrderStub}: Upstox v2 `POST /v2/order/place`, `PUT /v2/order/modify`,
 *   `DELETE /v2/order/cancel`, `GET /v2/order/details`, `GET /v2/order/retrieve-all` (the day's
 *   order book), `POST /v2/login/authorization/token` (client_secret and redirect_uri checked).
 *
 * Both keep a day's book: with `fillMarketOrders` on, a MARKET order fills at once at the
 * instrument's price (`prices`, default 100) and shows as complete in the orders list, as one
 * trade and in the net position; other orders (and every order with it off, the default the
 * strategy tests' scripted fills need) stay open until `settle`d or cancelled. Kite also serves `GET /trades`,
 * `/portfolio/positions`, `/portfolio/holdings`, `/user/margins`; Upstox `GET
 * /v2/order/trades/get-trades-for-day`, `/v2/portfolio/short-term-positions`,
 * `/v2/portfolio/long-term-holdings`, `/v2/user/get-funds-and-margin` (documented shapes;
 * holdings from `holdingRows`, cash from `cash`). Both serve their margin calculator
 * (Kite `POST /margins/basket`, Upstox `POST /v2/charges/margin`; figures by the rule in
 * broker-margin-stubs.ts).
 *
 * Bodies are parsed (`forms()`/`bodies()`); `failNext`/`delayNext` script answers;
 * `refusePlacement` refuses the n-th placement from now; `omitOrderId` drops the id from
 * successes; `connections` counts TCP connections. Order endpoints need the exact credential,
 * token endpoints none (`credentialOf` tells what a request carried).
 *
 * The shared core is broker-order-stub-base.ts, each broker in its own file
 * (broker-order-stub-kite.ts, broker-order-stub-upstox.ts, their portfolio answers beside them);
 * this one re-exports them and holds the order tests' plumbing (`captureLogs`, `orderFor`).
 */
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { BrokerOrder } from '../../src/modules/brokers/broker-adapter.js';
import type { QuoteInstrument } from '../../src/modules/brokers/quotes/quote-client.js';
import { createLogger } from '../../src/platform/logger.js';

export { DEFAULT_PRICE, positionFigures, type Credential, type StubFill } from './broker-order-stub-base.js';
export { KiteOrderStub, startKiteOrderStub, type KiteOrderCredentials } from './broker-order-stub-kite.js';
export {
  UpstoxOrderStub,
  startUpstoxOrderStub,
  type UpstoxOrderCredentials,
} from './broker-order-stub-upstox.js';

// ---- test plumbing -------------------------------------------------------------------------------

/** A debug logger writing into memory, and the text written so far. */
export function captureLogs(): { logger: Logger; logs: () => string } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { logger: createLogger('debug', sink), logs: () => lines.join('') };
}

/** An algodesk order for instrument `i`: MARKET CNC BUY 1 without prices, unless overridden. */
export function orderFor(i: QuoteInstrument, o: Partial<BrokerOrder> = {}): BrokerOrder {
  const { symbol, exchange, brsymbol, brexchange, token } = i;
  const rest = { side: 'BUY', priceType: 'MARKET', product: 'CNC', price: '0', triggerPrice: '0' } as const;
  return { symbol, exchange, brsymbol, brexchange, token, ...rest, quantity: 1, disclosedQuantity: 0, ...o };
}
