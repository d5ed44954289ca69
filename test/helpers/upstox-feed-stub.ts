/**
 * Upstox's Market Data Feed V3 on loopback, written from Upstox's documentation
 * (upstox.com/developer/api-documentation/v3/get-market-data-feed and get-market-data-feed-authorize):
 *
 * - `GET /v3/feed/market-data-feed/authorize` (on {@link BrokerStub}) needs `Authorization:
 *   Bearer <token>` exactly, else 401 UDAPI100050 in Upstox's error shape; it answers
 *   `{status: "success", data: {authorized_redirect_uri, authorizedRedirectUri}}`, a `ws://` URL on
 *   the stub's feed port whose `code` is single-use (a second upgrade with it is refused, 403).
 * - The feed: a `ws` server that records each client message (JSON in a frame, and whether the frame
 *   was binary, as Upstox requires), sends `market_info` on connect as Upstox does, and sends the
 *   `FeedResponse`s a test gives it, protobuf-encoded by an encoder of its own built from the same
 *   published schema text. It can drop every connection and close.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  UPSTOX_FEED_V3_PACKAGE,
  UPSTOX_FEED_V3_PROTO,
} from '../../src/modules/feed/sources/upstox-feed-v3-proto.js';
import { BrokerStub } from './broker-stub.js';
import { upstoxError } from './broker-quote-stub-upstox.js';

export const FEED_PATH = '/market-data-feeder/v3/upstox-developer-api/feeds';

/** A client message as the stub received it. */
export interface ClientFeedMessage {
  guid?: unknown;
  method?: unknown;
  data?: { mode?: unknown; instrumentKeys?: unknown };
  /** Whether it came in a binary frame. */
  binary: boolean;
  /** Which connection (0-based, in accept order) sent it. */
  connection: number;
}

/** The plain-object shapes the encoder takes (`FeedResponse` of MarketDataFeedV3.proto). */
export interface LtpcInit {
  ltp?: number;
  ltt?: number;
  ltq?: number;
  cp?: number;
}
export interface OhlcInit {
  interval: string;
  open?: number;
  high?: number;
  low?: number;
  close?: number;
  vol?: number;
  ts?: number;
}
export interface FeedResponseInit {
  type?: 'initial_feed' | 'live_feed' | 'market_info';
  feeds?: Record<string, Record<string, unknown>>;
  currentTs?: number;
  marketInfo?: { segmentStatus: Record<string, string> };
}

/** A feed in mode ltpc. */
export const ltpcFeed = (ltpc: LtpcInit): Record<string, unknown> => ({ ltpc, requestMode: 'ltpc' });

/** A feed in mode full for a tradable instrument (`marketFF`); `levels` are [bidQ, bidP, askQ, askP]. */
export function marketFullFeed(f: {
  ltpc: LtpcInit;
  levels?: readonly (readonly [bidQ: number, bidP: number, askQ: number, askP: number])[];
  ohlc?: OhlcInit[];
  atp?: number;
  vtt?: number;
  oi?: number;
  iv?: number;
  tbq?: number;
  tsq?: number;
  greeks?: { delta?: number; theta?: number; gamma?: number; vega?: number; rho?: number };
}): Record<string, unknown> {
  const marketFF: Record<string, unknown> = { ltpc: f.ltpc };
  if (f.levels)
    marketFF.marketLevel = {
      bidAskQuote: f.levels.map(([bidQ, bidP, askQ, askP]) => ({ bidQ, bidP, askQ, askP })),
    };
  if (f.greeks) marketFF.optionGreeks = f.greeks;
  if (f.ohlc) marketFF.marketOHLC = { ohlc: f.ohlc };
  for (const k of ['atp', 'vtt', 'oi', 'iv', 'tbq', 'tsq'] as const)
    if (f[k] !== undefined) marketFF[k] = f[k];
  return { fullFeed: { marketFF }, requestMode: 'full_d5' };
}

/** A feed in mode full for an index (`indexFF`). */
export const indexFullFeed = (f: { ltpc: LtpcInit; ohlc?: OhlcInit[] }): Record<string, unknown> => ({
  fullFeed: { indexFF: { ltpc: f.ltpc, ...(f.ohlc ? { marketOHLC: { ohlc: f.ohlc } } : {}) } },
  requestMode: 'full_d5',
});

export class UpstoxFeedStub {
  readonly http: BrokerStub;
  /** Every client message, in order. */
  readonly messages: ClientFeedMessage[] = [];
  /** Every `code` handed out (to check nothing logged one). */
  readonly issuedCodes: string[] = [];
  /** Upgrades refused (unknown or reused code, wrong path). */
  refusedUpgrades = 0;
  /** Feed connections accepted so far. */
  accepted = 0;
  /** Sends `market_info` to each new connection (Upstox does). */
  marketInfoOnConnect = true;
  private readonly unused = new Set<string>();
  private readonly open = new Set<WebSocket>();
  private readonly encoder: protobuf.Type;
  private wss: WebSocketServer | undefined;
  private feedPort = 0;
  private readonly token: { value: string };

  constructor(accessToken: string) {
    const token = { value: accessToken };
    this.token = token;
    this.http = new BrokerStub({
      check: (h) => h.authorization === `Bearer ${token.value}`,
      refusal: () => ({ status: 401, body: upstoxError('UDAPI100050', 'Invalid token used to access API') }),
    });
    this.http.route('GET', '/v3/feed/market-data-feed/authorize', () => {
      const code = randomUUID();
      this.issuedCodes.push(code);
      this.unused.add(code);
      const uri = `ws://127.0.0.1:${this.feedPort}${FEED_PATH}?requestId=${randomUUID()}&code=${code}`;
      return {
        status: 200,
        body: { status: 'success', data: { authorized_redirect_uri: uri, authorizedRedirectUri: uri } },
      };
    });
    this.encoder = protobuf
      .parse(UPSTOX_FEED_V3_PROTO, { keepCase: true })
      .root.lookupType(`${UPSTOX_FEED_V3_PACKAGE}.FeedResponse`);
  }

  /** The REST base URL (`apiBaseUrl` of the client). */
  get url(): string {
    return this.http.url;
  }

  get accessToken(): string {
    return this.token.value;
  }
  set accessToken(t: string) {
    this.token.value = t;
  }

  /** Authorize calls received (accepted or not). */
  get authorizeCalls(): number {
    return this.http.requests.filter((r) => r.path === '/v3/feed/market-data-feed/authorize').length;
  }

  /** Feed connections open now. */
  get openConnections(): number {
    return this.open.size;
  }

  async start(): Promise<this> {
    await this.http.start();
    const wss = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      verifyClient: ({ req }, done) => {
        const u = new URL(req.url ?? '/', 'ws://stub');
        const code = u.searchParams.get('code') ?? '';
        if (u.pathname !== FEED_PATH || !this.unused.delete(code)) {
          this.refusedUpgrades++;
          return done(false, 403, 'Forbidden');
        }
        done(true);
      },
    });
    await new Promise<void>((resolve) => wss.once('listening', resolve));
    this.feedPort = (wss.address() as AddressInfo).port;
    wss.on('connection', (ws) => {
      const connection = this.accepted++;
      this.open.add(ws);
      ws.on('close', () => this.open.delete(ws));
      ws.on('message', (data, isBinary) => {
        let parsed: Record<string, unknown>;
        try {
          parsed = JSON.parse(Buffer.from(data as Buffer).toString('utf8')) as Record<string, unknown>;
        } catch {
          parsed = { method: '(not JSON)' };
        }
        this.messages.push({ ...parsed, binary: isBinary, connection } as ClientFeedMessage);
      });
      if (this.marketInfoOnConnect)
        ws.send(
          this.encode({
            type: 'market_info',
            currentTs: Date.now(),
            marketInfo: {
              segmentStatus: { NSE_EQ: 'NORMAL_OPEN', NSE_FO: 'NORMAL_OPEN', NSE_INDEX: 'NORMAL_OPEN' },
            },
          }),
        );
    });
    this.wss = wss;
    return this;
  }

  /** `response` as protobuf bytes (throws when it does not fit the schema). */
  encode(response: FeedResponseInit): Uint8Array {
    const message = this.encoder.fromObject(response);
    const problem = this.encoder.verify(message);
    if (problem) throw new Error(`stub: not a FeedResponse: ${problem}`);
    return this.encoder.encode(message).finish();
  }

  /** Sends `response` to every open connection, in a binary frame; returns how many got it. */
  send(response: FeedResponseInit): number {
    return this.sendRaw(this.encode(response));
  }

  /** Sends bytes as they are (a malformed frame). */
  sendRaw(bytes: Uint8Array): number {
    for (const ws of this.open) ws.send(bytes, { binary: true });
    return this.open.size;
  }

  /** Cuts every connection without a close frame (a network drop). */
  drop(): void {
    for (const ws of this.open) ws.terminate();
  }

  /** The messages that match `match` (method, mode, connection). */
  sent(match: { method?: string; mode?: string; connection?: number } = {}): ClientFeedMessage[] {
    return this.messages.filter(
      (m) =>
        (match.method === undefined || m.method === match.method) &&
        (match.mode === undefined || m.data?.mode === match.mode) &&
        (match.connection === undefined || m.connection === match.connection),
    );
  }

  async close(): Promise<void> {
    for (const ws of this.open) ws.terminate();
    const wss = this.wss;
    this.wss = undefined;
    if (wss) await new Promise<void>((resolve) => wss.close(() => resolve()));
    await this.http.close();
  }
}

/** Starts an {@link UpstoxFeedStub} accepting `accessToken`. */
export function startUpstoxFeedStub(accessToken = 'upstox-access-token-9012'): Promise<UpstoxFeedStub> {
  return new UpstoxFeedStub(accessToken).start();
}
