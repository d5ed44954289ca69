/**
 * The connected broker's quote API as the sandbox's price source
 * (docs/rules/sandbox.md#price-source): the instruments the engine watches (working orders, open
 * positions) are asked for in one batched call per poll (`SANDBOX_QUOTE_POLL_MS`), and a placement
 * asks for its one instrument when no fresh quote is at hand. A failed poll fills nothing and is
 * retried on the next one; each kind of failure is logged once until a poll succeeds again (the
 * broker's message only: the quote client never puts a credential in it).
 */
import type { Logger } from 'pino';
import type { Clock } from '../../../platform/clock.js';
import type { QuoteClient } from '../../brokers/quotes/quote-client.js';
import { PolledPriceSource, type PricedInstrument } from './price-source.js';
import { quoteKey, type Quote } from '../core/types.js';

export interface BrokerPriceSourceOptions {
  /** The quote client of the current broker session; undefined while there is none. */
  client: () => QuoteClient | undefined;
  pollMs: number;
  /** A quote younger than this is answered from memory at placement. */
  freshMs: number;
  clock: Clock;
  logger: Logger;
}

export class BrokerPriceSource extends PolledPriceSource {
  readonly kind = 'broker' as const;
  private lastFailure: string | undefined;
  /** When the live stream last ticked each instrument (its poll is skipped while it does). */
  private readonly streamed = new Map<string, number>();

  constructor(private readonly opts: BrokerPriceSourceOptions) {
    super(opts.pollMs);
  }

  /** The newest quote known, without a broker call. */
  peek(instrument: PricedInstrument): Promise<Quote | undefined> {
    return Promise.resolve(this.latest(quoteKey(instrument.exchange, instrument.symbol)));
  }

  async quote(instrument: PricedInstrument): Promise<Quote | undefined> {
    const key = quoteKey(instrument.exchange, instrument.symbol);
    const known = this.latest(key);
    if (known && this.opts.clock.now() - known.timestamp < this.opts.freshMs) return known;
    const client = this.opts.client();
    if (!client) return known;
    try {
      const got = await client.quotes([instrument]);
      this.fanout.emit(got);
      this.succeeded();
    } catch (err) {
      this.failed(err);
    }
    return this.latest(key);
  }

  /**
   * One batched call for every watched instrument the live stream did not tick within two polls
   * (it is the fallback); nothing while there is no broker session.
   */
  protected fetch(watched: PricedInstrument[]): Promise<void> | undefined {
    const client = this.opts.client();
    if (!client) return undefined;
    const since = this.opts.clock.now() - 2 * this.opts.pollMs;
    const batch = watched.filter(
      (i) => (this.streamed.get(quoteKey(i.exchange, i.symbol)) ?? -Infinity) < since,
    );
    if (batch.length === 0) return undefined;
    return client.quotes(batch).then(
      (quotes) => {
        this.succeeded();
        this.fanout.emit(quotes);
      },
      (err: unknown) => this.failed(err),
    );
  }

  override receive(quotes: ReadonlyMap<string, Quote>): void {
    const now = this.opts.clock.now();
    for (const k of quotes.keys()) this.streamed.set(k, now);
    super.receive(quotes);
  }

  private succeeded(): void {
    if (this.lastFailure !== undefined) this.opts.logger.info('broker quotes recovered');
    this.lastFailure = undefined;
  }

  private failed(err: unknown): void {
    const e = err as { code?: string; status?: number; message?: string };
    const kind = `${e.code ?? 'error'}:${e.status ?? ''}`;
    if (kind === this.lastFailure) return;
    this.lastFailure = kind;
    this.opts.logger.warn(
      { code: e.code, status: e.status, message: e.message },
      'broker quotes failed; nothing fills until they recover',
    );
  }
}
