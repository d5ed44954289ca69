/**
 * Loopback stand-ins for the brokers' REST APIs (node:http on 127.0.0.1, port 0), speaking their
 * documented wire formats, so broker clients are tested over real HTTP (keep-alive, timeouts,
 * status codes) with no network.
 *
 * - {@link BrokerStub} is the broker-neutral core: routes, exact credential check, a record of
 *   every request (headers without the credential; only whether it matched), scripted failures
 *   and delays, and counts of accepted and open TCP connections. Other endpoints (orders) are
 *   added with {@link BrokerStub.route}.
 * - {@link startKiteQuoteStub}: Kite Connect v3 `GET /quote` and
 *   `GET /instruments/historical/{token}/{interval}`.
 * - {@link startUpstoxQuoteStub}: Upstox v2 `GET /v2/market-quote/quotes` and
 *   `GET /v2/historical-candle/{key}/{interval}/{to}/{from}`.
 *
 * Each lives in its own file (broker-stub.ts, broker-quote-stub-kite.ts,
 * broker-quote-stub-upstox.ts); this one re-exports them.
 */
export {
  BrokerStub,
  depth,
  type DepthLevel,
  type RecordedRequest,
  type StubAnswer,
  type StubAuth,
  type StubHandler,
} from './broker-stub.js';
export {
  KITE_QUOTE_LIMIT,
  KiteQuoteStub,
  kiteError,
  kiteQuote,
  startKiteQuoteStub,
  type KiteCredentials,
} from './broker-quote-stub-kite.js';
export {
  UPSTOX_QUOTE_LIMIT,
  UpstoxQuoteStub,
  startUpstoxQuoteStub,
  upstoxError,
  upstoxQuote,
} from './broker-quote-stub-upstox.js';
