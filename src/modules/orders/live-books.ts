/**
 * The user's broker books in live mode (docs/rules/orders.md#live-order-management): the user's
 * broker adapter and session (or the refusal to answer), one book read through the adapter (the
 * broker's status passed through), and book rows mapped back to algodesk's symbol through the
 * master contract (by token, else the broker's symbol is kept). live-orders.service.ts answers
 * with them.
 */
import type {
  BookInstrument,
  BookResult,
  BrokerAdapter,
  BrokerBooks,
  BrokerChoice,
  BrokerSession,
} from '../brokers/broker-adapter.js';
import type { Mapped } from '../brokers/live-book-format.js';
import type { Instrument } from '../market/instrument.js';
import { UnreadableSessionError } from '../brokers/broker-sessions.service.js';
import type { LiveCallAnswer, RefusedBody } from './order-pipeline.types.js';
import { brokerLabel as label } from './live-margin.js';

/** What the books are read with (part of `LiveOrdersDeps`). */
export interface LiveBooksDeps {
  brokerSession: (userId: number) => Promise<(BrokerChoice & { session: BrokerSession }) | undefined>;
  adapter: (session: BrokerChoice) => BrokerAdapter | undefined;
  /** The master contract's instruments with the broker's `token` (reverse lookup), on `exchange`. */
  /** Instruments by token: of `broker`'s instrument file when given and not the live contract's. */
  instrumentsByToken?(token: string, exchange?: string, broker?: string): Promise<Instrument[]>;
  /** The instrument by the broker's symbol and exchange code (rows that carry no token: Angel's trades). */
  instrumentByBrSymbol?(
    brsymbol: string,
    brexchange: string,
    broker?: string,
  ): Promise<Instrument | undefined>;
}

/** What each book operation is called in a refusal. */
const BOOK_NAMES: Record<keyof BrokerBooks, string> = {
  orderBook: 'the order book',
  tradeBook: 'the trade book',
  positions: 'positions',
  holdings: 'holdings',
  funds: 'funds',
};

/** The user's broker adapter and session, or the refusal to answer. */
export type LiveBroker =
  { adapter: BrokerAdapter; session: BrokerSession } | { status: number; body: RefusedBody };

/** The user's broker and its books, for the live order operations. */
export class LiveBooks {
  constructor(private readonly deps: LiveBooksDeps) {}

  async broker(userId: number): Promise<LiveBroker> {
    const s = await this.deps.brokerSession(userId).catch((err: unknown) => {
      if (err instanceof UnreadableSessionError) return 'unreadable' as const;
      throw err;
    });
    if (s === 'unreadable')
      return {
        status: 403,
        body: {
          status: 'error',
          message: 'Your stored broker session cannot be read by this install: log in to your broker again',
        },
      };
    if (!s)
      return {
        status: 403,
        body: { status: 'error', message: 'No broker session: log in to your broker first' },
      };
    const adapter = this.deps.adapter(s);
    if (!adapter)
      return { status: 404, body: { status: 'error', message: 'Broker-specific module not found' } };
    return { adapter, session: s.session };
  }

  /**
   * One book of the user's broker: the adapter's operation, or 400 naming the broker when its
   * adapter does not offer it; the broker's refusal with its own status (504 on a timeout).
   */
  async read<K extends keyof BrokerBooks>(
    userId: number,
    op: K,
  ): Promise<
    | {
        ok: true;
        data: Awaited<ReturnType<BrokerBooks[K]>> extends BookResult<infer T> ? T : never;
        /** The broker that answered (its instrument file maps the rows back). */
        broker: string;
      }
    | { ok: false; answer: LiveCallAnswer }
  > {
    const b = await this.broker(userId);
    if ('status' in b) return { ok: false, answer: b };
    const fn = b.adapter[op] as ((session: BrokerSession) => Promise<BookResult<unknown>>) | undefined;
    if (!fn)
      return {
        ok: false,
        answer: {
          status: 400,
          body: {
            status: 'error',
            message: `${label(b.adapter.name)} does not offer ${BOOK_NAMES[op]} through algodesk's broker adapter`,
          },
        },
      };
    const r = await fn.call(b.adapter, b.session).catch((): BookResult<never> => ({
      ok: false,
      httpStatus: 500,
      message: `${label(b.adapter.name)}: the broker call failed`,
      roundTripMs: 0,
    }));
    if (!r.ok)
      return {
        ok: false,
        answer: {
          status: r.httpStatus >= 400 ? r.httpStatus : 500,
          body: { status: 'error', message: r.message },
        },
      };
    return { ok: true, data: r.data as never, broker: b.adapter.name };
  }

  /**
   * Each row with algodesk's symbol and exchange: the master contract's instrument with the
   * row's token (on its exchange when several), else with its broker symbol and exchange code,
   * else the broker's symbol as it is.
   */
  async mapped<T extends BookInstrument>(rows: readonly T[], broker?: string): Promise<Mapped<T>[]> {
    const cache = new Map<string, Instrument | undefined>();
    const out: Mapped<T>[] = [];
    for (const r of rows) {
      const key = `${r.token}|${r.exchange}|${r.brsymbol}|${r.brexchange}`;
      if (!cache.has(key)) {
        const found =
          r.token !== '' && this.deps.instrumentsByToken
            ? await this.deps.instrumentsByToken(r.token, r.exchange || undefined, broker)
            : [];
        const byToken = found.find((i) => i.brexchange === r.brexchange) ?? found[0];
        cache.set(key, byToken ?? (await this.deps.instrumentByBrSymbol?.(r.brsymbol, r.brexchange, broker)));
      }
      const inst = cache.get(key);
      out.push({ ...r, symbol: inst?.symbol ?? r.brsymbol, exchange: inst?.exchange ?? r.exchange });
    }
    return out;
  }
}
