/**
 * Which market data a user's `/api/v1` data call is answered from (docs/rules/market-data.md#data-source):
 * the user's own broker session, through a market-data client kept per user (one keep-alive pool
 * each, the session's token read on every call); in analyzer mode without a session, the sandbox's
 * price source; otherwise a refusal that names what is missing. Broker failures become answers
 * here: the broker's HTTP status passes through, a timeout is 504.
 */
import type { Logger } from 'pino';
import { isBroker } from '../../domain/brokers.js';
import {
  badRequest,
  brokerHttpError,
  brokerTimeout,
  brokerUnreachable,
  forbidden,
  type AppError,
} from '../../platform/errors.js';
import { UnreadableSessionError, type BrokerSessionsService } from '../brokers/broker-sessions.service.js';
import { createMarketDataClient } from '../brokers/quotes/create-quote-client.js';
import { QuoteError, type MarketDataClient } from '../brokers/quotes/quote-client.js';

/** Where one call's data comes from. */
export type DataSource = { kind: 'broker'; client: MarketDataClient } | { kind: 'sandbox' };

export interface BrokerDataSourceOptions {
  sessions: Pick<BrokerSessionsService, 'get'>;
  /** Whether the service is in analyzer mode now. */
  analyze: () => boolean;
  /** The API key of a session's broker app (`BROKER_API_KEY` for the bootstrap app, id 0). */
  apiKey: (appId: number) => string | undefined;
  /** The connection settings (`BROKER_API_BASE_URL`, `BROKER_TIMEOUT_MS`). */
  baseUrl: string | undefined;
  timeoutMs: number;
  logger?: Logger;
}

interface Entry {
  broker: string;
  /** The broker app and its API key the client was built with. */
  app: string;
  token: string | undefined;
  /** The session's broker user id (Dhan's client id). */
  brokerUserId: string | undefined;
  client: MarketDataClient;
}

/** The refusal when market data needs a broker session and the user has none. */
export function needsBrokerSession(what: string): AppError {
  return forbidden(
    `${what} needs a broker session: log in to your broker (no broker session is connected for this user)`,
  );
}

export class BrokerDataSource {
  private readonly clients = new Map<number, Entry>();

  constructor(private readonly opts: BrokerDataSourceOptions) {}

  /**
   * The user's broker client when the user has a live session; else the sandbox in analyzer mode
   * when `sandboxOk`; else a 403 naming what is missing (`what`: the data asked for).
   */
  async forUser(userId: number, what: string, sandboxOk: boolean): Promise<DataSource> {
    const client = await this.brokerClient(userId);
    if (client) return { kind: 'broker', client };
    if (sandboxOk && this.opts.analyze()) return { kind: 'sandbox' };
    throw needsBrokerSession(what);
  }

  private async brokerClient(userId: number): Promise<MarketDataClient | undefined> {
    let session;
    try {
      session = await this.opts.sessions.get(userId);
    } catch (err) {
      if (err instanceof UnreadableSessionError)
        throw forbidden(`${err.message}; log in to the broker again`);
      throw err;
    }
    if (!session) return undefined;
    if (!isBroker(session.broker)) throw forbidden(`no market data client for broker ${session.broker}`);
    let entry = this.clients.get(userId);
    const apiKey = this.opts.apiKey(session.appId);
    const app = `${session.appId}:${apiKey ?? ''}`;
    if (entry && (entry.broker !== session.broker || entry.app !== app)) {
      void entry.client.close();
      entry = undefined;
    }
    if (!entry) {
      const created: Entry = {
        broker: session.broker,
        app,
        token: undefined,
        brokerUserId: undefined,
        client: undefined as never,
      };
      created.client = createMarketDataClient(session.broker, {
        ...(this.opts.baseUrl ? { baseUrl: this.opts.baseUrl } : {}),
        ...(apiKey ? { apiKey } : {}),
        accessToken: () => created.token,
        brokerUserId: () => created.brokerUserId,
        timeoutMs: this.opts.timeoutMs,
        ...(this.opts.logger ? { logger: this.opts.logger } : {}),
      });
      entry = created;
      this.clients.set(userId, entry);
    }
    entry.token = session.session.accessToken;
    entry.brokerUserId = session.session.brokerUserId;
    return entry.client;
  }

  /** Closes every client (shutdown). */
  async close(): Promise<void> {
    const all = [...this.clients.values()];
    this.clients.clear();
    await Promise.allSettled(all.map((e) => e.client.close()));
  }
}

/**
 * A broker call's failure as the answer (docs/rules/market-data.md#broker-failures): a timeout is
 * 504, a broker HTTP error keeps its status, a network failure or an answer that is not a success
 * is 502, a local refusal is 400 (bad input) or 403 (no token). Messages are the quote client's,
 * which never carry a credential. Anything else is rethrown.
 */
export function brokerFailure(err: unknown): AppError {
  if (!(err instanceof QuoteError)) throw err;
  if (err.code === 'timeout') return brokerTimeout(err.message);
  if (err.code === 'no_token') return forbidden(err.message);
  if (err.code === 'bad_request') return badRequest(err.message);
  if (err.status !== undefined && err.status >= 400 && err.status <= 599)
    return brokerHttpError(err.status, err.message);
  return brokerUnreachable(err.message);
}
