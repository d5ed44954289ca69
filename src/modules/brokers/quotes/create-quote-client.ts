/** The quote client of a broker by name (kept apart from quote-client.ts: the clients import it). */
import type { MarketDataClient, QuoteClient, QuoteClientOptions } from './quote-client.js';
import { AngelQuoteClient } from './angel-quotes.js';
import { DhanQuoteClient } from './dhan-quotes.js';
import { FyersQuoteClient } from './fyers-quotes.js';
import { NorenQuoteClient } from './noren-quotes.js';
import { FLATTRADE, SHOONYA } from '../noren/noren.mapping.js';
import { UpstoxQuoteClient } from './upstox-quotes.js';
import { ZerodhaQuoteClient } from './zerodha-quotes.js';
import type { Broker } from '../../../domain/brokers.js';

/** Brokers with a quote client: every broker. */
export type QuoteBroker = Broker;

/** The quote client of `broker`. */
export function createQuoteClient(broker: QuoteBroker, opts: QuoteClientOptions): QuoteClient {
  return createMarketDataClient(broker, opts);
}

/** The market-data client of `broker` (full quotes, depth and candles besides quotes). */
export function createMarketDataClient(broker: QuoteBroker, opts: QuoteClientOptions): MarketDataClient {
  switch (broker) {
    case 'zerodha':
      return new ZerodhaQuoteClient(opts);
    case 'upstox':
      return new UpstoxQuoteClient(opts);
    case 'dhan':
      return new DhanQuoteClient({ ...opts, clientId: () => opts.brokerUserId?.() });
    case 'fyers':
      return new FyersQuoteClient(opts);
    case 'shoonya':
      return new NorenQuoteClient({ ...opts, variant: SHOONYA });
    case 'flattrade':
      return new NorenQuoteClient({ ...opts, variant: FLATTRADE });
    case 'angel':
      return new AngelQuoteClient({ ...opts, apiKey: opts.apiKey ?? '' });
    default:
      throw new Error(`no quote client for broker ${String(broker)}`);
  }
}
