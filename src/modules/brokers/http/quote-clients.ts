/**
 * The quote clients an adapter hands out (`BrokerAdapter.quoteClient`), tracked so that closing
 * the adapter closes them too; a client closed by its user leaves the set. Broker-neutral.
 */
import type { Quote } from '../../sandbox/core/types.js';
import type { QuoteClient, QuoteInstrument } from '../quotes/quote-client.js';

/** The open quote clients of one adapter. */
export class QuoteClientSet {
  private readonly open = new Set<QuoteClient>();

  /** `client`, wrapped so its `close()` also forgets it. */
  track(client: QuoteClient): QuoteClient {
    const open = this.open;
    open.add(client);
    return {
      broker: client.broker,
      maxBatch: client.maxBatch,
      quotes: (instruments: readonly QuoteInstrument[], signal?: AbortSignal): Promise<Map<string, Quote>> =>
        client.quotes(instruments, signal),
      close: () => {
        open.delete(client);
        return client.close();
      },
    };
  }

  /** Closes every client still open. */
  async closeAll(): Promise<void> {
    const clients = [...this.open];
    this.open.clear();
    await Promise.allSettled(clients.map((c) => c.close()));
  }
}
