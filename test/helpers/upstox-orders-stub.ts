/**
 * Upstox's Portfolio Stream Feed (order updates) on loopback, written from Upstox's documentation
 * (upstox.com/developer/api-documentation/get-portfolio-stream-feed-authorize, webhook):
 *
 * - `GET /v2/feed/portfolio-stream-feed/authorize`, added to an Upstox REST stub (a
 *   {@link BrokerStub} that checks `Authorization: Bearer <token>`, as the feed stub's does): it
 *   answers `{status: "success", data: {authorized_redirect_uri, authorizedRedirectUri}}`, a
 *   `ws://` URL on this stub's port whose `code` is single-use (a reuse is refused, 403).
 * - The stream: a `ws` server that sends the order updates a test gives it as JSON text, in the
 *   webhook's documented shape ({@link upstoxOrderMessage}); the client sends nothing.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { BrokerStub } from './broker-stub.js';

export const PORTFOLIO_AUTHORIZE_PATH = '/v2/feed/portfolio-stream-feed/authorize';
export const PORTFOLIO_STREAM_PATH = '/upstox-developer-api/order-updates/feed';

/** An order update as Upstox documents it (the webhook payload, identical on the socket). */
export function upstoxOrderMessage(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    update_type: 'order',
    user_id: 'AB1234',
    userId: 'AB1234',
    exchange: 'NSE',
    instrument_token: 'NSE_EQ|INE062A01020',
    instrument_key: 'NSE_EQ|INE062A01020',
    trading_symbol: 'SBIN-EQ',
    tradingsymbol: 'SBIN-EQ',
    product: 'D',
    order_type: 'LIMIT',
    average_price: 0,
    price: 790.5,
    trigger_price: 0,
    quantity: 5,
    disclosed_quantity: 0,
    pending_quantity: 5,
    transaction_type: 'BUY',
    order_ref_id: '57744821658411',
    exchange_order_id: '',
    parent_order_id: null,
    validity: 'DAY',
    status: 'put order req received',
    is_amo: false,
    variety: 'SIMPLE',
    tag: null,
    exchange_timestamp: null,
    status_message: '',
    order_id: '240221025997024',
    order_request_id: '1',
    order_timestamp: '2026-01-05 10:00:02',
    filled_quantity: 0,
    guid: null,
    placed_by: 'AB1234',
    status_message_raw: null,
    ...fields,
  };
}

export class UpstoxOrdersStub {
  /** Connections accepted so far. */
  accepted = 0;
  /** Upgrades refused (unknown or reused code, wrong path). */
  refusedUpgrades = 0;
  /** The `update_types` of each authorize call. */
  readonly updateTypes: (string | null)[] = [];
  /** Every `code` handed out (to check nothing logged one). */
  readonly issuedCodes: string[] = [];
  private readonly unused = new Set<string>();
  private readonly open = new Set<WebSocket>();
  private wss: WebSocketServer | undefined;
  private port = 0;

  constructor(http: BrokerStub) {
    http.route('GET', PORTFOLIO_AUTHORIZE_PATH, (req) => {
      this.updateTypes.push(req.query.get('update_types'));
      const code = randomUUID();
      this.issuedCodes.push(code);
      this.unused.add(code);
      const uri = `ws://127.0.0.1:${this.port}${PORTFOLIO_STREAM_PATH}?requestId=${randomUUID()}&code=${code}`;
      return {
        status: 200,
        body: { status: 'success', data: { authorized_redirect_uri: uri, authorizedRedirectUri: uri } },
      };
    });
  }

  /** Connections open now. */
  get openConnections(): number {
    return this.open.size;
  }

  async start(): Promise<this> {
    const wss = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      verifyClient: ({ req }, done) => {
        const u = new URL(req.url ?? '/', 'ws://stub');
        if (u.pathname !== PORTFOLIO_STREAM_PATH || !this.unused.delete(u.searchParams.get('code') ?? '')) {
          this.refusedUpgrades++;
          return done(false, 403, 'Forbidden');
        }
        done(true);
      },
    });
    await new Promise<void>((resolve) => wss.once('listening', resolve));
    this.port = (wss.address() as AddressInfo).port;
    wss.on('connection', (ws) => {
      this.accepted++;
      this.open.add(ws);
      ws.on('close', () => this.open.delete(ws));
    });
    this.wss = wss;
    return this;
  }

  /** Sends `message` as JSON text to every open connection; returns how many got it. */
  send(message: unknown): number {
    for (const ws of this.open) ws.send(JSON.stringify(message));
    return this.open.size;
  }

  /** Cuts every connection without a close frame (a network drop). */
  drop(): void {
    for (const ws of this.open) ws.terminate();
  }

  async close(): Promise<void> {
    for (const ws of this.open) ws.terminate();
    const wss = this.wss;
    this.wss = undefined;
    if (wss) await new Promise<void>((resolve) => wss.close(() => resolve()));
  }
}

/** Adds the portfolio stream to an Upstox REST stub (`http`) and starts its socket. */
export function startUpstoxOrdersStub(http: BrokerStub): Promise<UpstoxOrdersStub> {
  return new UpstoxOrdersStub(http).start();
}
