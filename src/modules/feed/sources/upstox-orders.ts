/**
 * Upstox's Portfolio Stream Feed for order updates (docs/rules/market-data.md#order-updates),
 * written from Upstox's documentation (upstox.com/developer/api-documentation/get-portfolio-stream-feed,
 * get-portfolio-stream-feed-authorize, webhook):
 *
 * - `GET /v2/feed/portfolio-stream-feed/authorize?update_types=order` with `Authorization: Bearer
 *   <access token>` answers `{status: "success", data: {authorized_redirect_uri}}`: a `wss://` URL
 *   whose `code` query parameter is a single-use credential. Each connection is authorized afresh.
 * - No client message: the socket carries the user's updates as JSON objects (the same payload as
 *   the order webhook), an order's with `update_type: "order"` and the order book's fields
 *   (order_id, status, status_message, exchange, instrument_key, trading_symbol, transaction_type,
 *   order_type, product, quantity, price, trigger_price, average_price, filled_quantity,
 *   pending_quantity, …).
 *
 * {@link UpstoxOrderLink} is what {@link UpstoxFeedSource} (./upstox-feed.ts) holds: the stream runs
 * while the source runs and someone listens. After a drop it authorizes again (./reconnect.ts's
 * backoff). Neither the access token nor the authorized URL's query is ever logged.
 */
import WebSocket from 'ws';
import { product } from '../../brokers/http/book-fields.js';
import type { BrokerOrderUpdate } from '../feed.types.js';
import { backoffDelay } from './reconnect.js';
import type { UpstoxFeedOptions } from './upstox-options.js';
import { authorizeUpstoxStream, scrub } from './upstox-authorize.js';

export const UPSTOX_PORTFOLIO_AUTHORIZE_PATH = '/v2/feed/portfolio-stream-feed/authorize';

/** What the order stream takes of the feed source's options. */
export type UpstoxOrderStreamOptions = Pick<
  UpstoxFeedOptions,
  'accessToken' | 'apiBaseUrl' | 'logger' | 'backoff' | 'fetch' | 'timeoutMs'
>;

/**
 * Upstox's order statuses (the order book's, lower case) in OpenAlgo's words: the final and
 * trigger states by name; every in-flight one (`put order req received`, `validation pending`,
 * `open pending`, `modify pending`, `modified`, `not modified`, `cancel pending`, `not cancelled`,
 * `after market order req received`, …) is `open`, as the order is still working.
 */
const UPSTOX_STATUS: Readonly<Record<string, string>> = {
  open: 'open',
  complete: 'complete',
  cancelled: 'cancelled',
  'cancelled after market order': 'cancelled',
  rejected: 'rejected',
  'trigger pending': 'trigger pending',
};

/**
 * An order update of the portfolio stream as a {@link BrokerOrderUpdate}, its token the Upstox
 * instrument key; undefined for another update type or when the fields that name the order are
 * missing.
 */
export function upstoxOrderUpdate(message: unknown): BrokerOrderUpdate | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const d = message as Record<string, unknown>;
  const str = (...vs: unknown[]) => {
    for (const v of vs) if (typeof v === 'string' && v !== '') return v;
    return '';
  };
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  if (d.update_type !== undefined && d.update_type !== 'order') return undefined;
  const orderid = str(d.order_id);
  const status = str(d.status).toLowerCase().trim();
  const token = str(d.instrument_key, d.instrument_token);
  const brsymbol = str(d.trading_symbol, d.tradingsymbol);
  if (!orderid || !status || (!token && !brsymbol)) return undefined;
  const orderStatus = UPSTOX_STATUS[status] ?? 'open';
  const brexchange = str(d.exchange);
  return {
    orderid,
    token,
    brsymbol,
    brexchange,
    action: str(d.transaction_type).toUpperCase(),
    quantity: num(d.quantity),
    price: num(d.price),
    trigger_price: num(d.trigger_price),
    pricetype: str(d.order_type),
    product: d.product === undefined || d.product === null ? '' : product(d.product, brexchange),
    order_status: orderStatus,
    filled_quantity: num(d.filled_quantity),
    pending_quantity: num(d.pending_quantity),
    average_price: num(d.average_price),
    rejection_reason: orderStatus === 'rejected' ? str(d.status_message, d.status_message_raw) : '',
  };
}

/** One Upstox portfolio stream: authorize, connect, parse, reconnect after a drop, until stopped. */
export class UpstoxOrderStream {
  private ws: WebSocket | undefined;
  private running = false;
  private generation = 0;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private secrets: string[] = [];

  constructor(
    private readonly opts: UpstoxOrderStreamOptions,
    private readonly onUpdate: (u: BrokerOrderUpdate) => void,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.connect();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.generation++;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    const ws = this.ws;
    this.ws = undefined;
    if (ws && ws.readyState !== WebSocket.CLOSED) {
      const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws.close(1000, 'stop');
      const timer = setTimeout(() => ws.terminate(), 2_000);
      await closed;
      clearTimeout(timer);
    }
  }

  private async connect(): Promise<void> {
    const generation = this.generation;
    try {
      const url = await this.authorize();
      if (generation !== this.generation || !this.running) return;
      this.open(url, generation);
    } catch (err) {
      if (generation !== this.generation) return;
      this.opts.logger.warn(
        { error: scrub(err instanceof Error ? err.message : String(err), this.secrets) },
        'feed: upstox order stream connection failed',
      );
      this.scheduleReconnect();
    }
  }

  /** The single-use portfolio stream URL (order updates only). */
  private authorize(): Promise<string> {
    return authorizeUpstoxStream(
      this.opts,
      `${UPSTOX_PORTFOLIO_AUTHORIZE_PATH}?update_types=order`,
      (s) => (this.secrets = s),
    );
  }

  private open(url: string, generation: number): void {
    const u = new URL(url);
    const where = `${u.origin}${u.pathname}`;
    const ws = new WebSocket(url, {
      handshakeTimeout: this.opts.timeoutMs ?? 10_000,
      perMessageDeflate: false,
    });
    this.ws = ws;
    let opened = false;
    ws.once('unexpected-response', (_req, res) => {
      this.opts.logger.warn({ status: res.statusCode }, 'feed: upstox order stream upgrade refused');
      ws.terminate();
    });
    ws.on('error', (err) =>
      this.opts.logger.warn({ error: scrub(err.message, this.secrets) }, 'feed: upstox order stream error'),
    );
    ws.once('open', () => {
      opened = true;
      this.opts.logger.info({ url: where }, 'feed: upstox order stream connected');
    });
    ws.on('message', (data) => {
      this.attempt = 0;
      this.onMessage(data);
    });
    ws.on('close', (code) => {
      if (this.ws !== ws || generation !== this.generation) return;
      this.ws = undefined;
      if (opened) this.opts.logger.warn({ code }, 'feed: upstox order stream dropped');
      this.scheduleReconnect();
    });
  }

  private onMessage(data: WebSocket.RawData): void {
    const text = (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as Buffer)).toString('utf8');
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.opts.logger.warn({ bytes: text.length }, 'feed: upstox order stream message not JSON; ignored');
      return;
    }
    const type = (message as { update_type?: unknown } | null)?.update_type;
    if (type !== undefined && type !== 'order') return;
    const update = upstoxOrderUpdate(message);
    if (!update) this.opts.logger.debug('feed: upstox order update without the fields it needs; ignored');
    else
      try {
        this.onUpdate(update);
      } catch (err) {
        this.opts.logger.error({ err }, 'feed: an order listener failed');
      }
  }

  private scheduleReconnect(): void {
    if (!this.running || this.reconnectTimer) return;
    const b = this.opts.backoff ?? {};
    const wait = backoffDelay(this.attempt++, {
      initialMs: b.initialMs ?? 1_000,
      maxMs: b.maxMs ?? 30_000,
      factor: b.factor ?? 2,
      jitter: b.jitter ?? 0.2,
    });
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      if (this.running) void this.connect();
    }, wait);
    this.reconnectTimer.unref();
  }
}

/**
 * The order side of {@link UpstoxFeedSource}: its listeners, and the stream that runs once the
 * source is started and someone listens, until the source stops.
 */
export class UpstoxOrderLink {
  private readonly listeners = new Set<(u: BrokerOrderUpdate) => void>();
  private stream: UpstoxOrderStream | undefined;
  private running = false;

  constructor(private readonly opts: UpstoxOrderStreamOptions) {}

  add(listener: (u: BrokerOrderUpdate) => void): () => void {
    this.listeners.add(listener);
    this.ensure();
    return () => this.listeners.delete(listener);
  }

  start(): void {
    this.running = true;
    this.ensure();
  }

  async stop(): Promise<void> {
    this.running = false;
    const stream = this.stream;
    this.stream = undefined;
    await stream?.stop();
  }

  private ensure(): void {
    if (!this.running || this.stream || this.listeners.size === 0) return;
    this.stream = new UpstoxOrderStream(this.opts, (u) => {
      for (const l of this.listeners) l(u);
    });
    this.stream.start();
  }
}
