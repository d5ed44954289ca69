/**
 * One client socket of the feed (docs/rules/market-data.md#feed-protocol): authenticates with an
 * API key within {@link FeedConnectionLimits.authTimeoutMs} (else close 4401 "auth timeout"),
 * then subscribes and unsubscribes through the hub. Every frame is parsed by protocol.ts; every
 * error is a message with OpenAlgo's code, never a thrown exception or a closed socket, except the
 * closes the rules name: auth timeout (4401), a flood of messages (1008), a reader that cannot keep
 * up (1013). Ticks to a slow reader are conflated: while the socket's send buffer is over the
 * high-water mark only the newest message of each (instrument, mode) waits, so memory is bounded by
 * the subscriptions, not by the tick rate.
 */
import type { FeedHub, FeedClient } from './feed-hub.js';
import type { OrderUpdates } from './order-updates.js';
import { feedError, isFeedError, parseClientMessage, type Command } from './protocol.js';

/** What the connection needs of a `ws` WebSocket (tests may pass their own). */
export interface FeedSocket {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  ping(): void;
  /** The `ws` library's underlying TCP socket (undefined for a test's socket): see `cork`. */
  readonly _socket?: { cork(): void; uncork(): void };
}

export interface FeedPrincipal {
  userId: number;
}

export interface FeedConnectionDeps {
  hub: FeedHub;
  /** The API key's owner, or undefined for an unknown or revoked key. */
  authenticate(apiKey: string): Promise<FeedPrincipal | undefined>;
  /** Told of a refused key (the IP-ban tracker counts them); gets the key, never logs it. */
  onInvalidKey?(ip: string, apiKey: string): void;
  /** Order updates for `subscribe_orders` (docs/rules/market-data.md#order-updates). */
  orders?: OrderUpdates;
  /** Names answered to `get_supported_brokers`. */
  supportedBrokers(): string[];
  now(): number;
  limits: FeedConnectionLimits;
}

export interface FeedConnectionLimits {
  /** A socket not authenticated by then is closed with 4401. */
  authTimeoutMs: number;
  /** Client messages per second before they are refused (RATE_LIMITED); 10 s over it closes with 1008. */
  messagesPerSecond: number;
  /** Send-buffer bytes over which ticks are conflated. */
  highWaterBytes: number;
  /** A reader over the high-water mark this long is closed with 1013. */
  slowCloseMs: number;
}

export const FEED_CLOSE = {
  authTimeout: 4401,
  policy: 1008,
  tooSlow: 1013,
  goingAway: 1001,
} as const;

const OPEN = 1;
/** How often a conflated socket is looked at again. */
const FLUSH_EVERY_MS = 50;
/** Seconds over the message rate before the socket is closed. */
const FLOOD_SECONDS = 10;

export class FeedConnection implements FeedClient {
  private principal: FeedPrincipal | undefined;
  private authTimer: NodeJS.Timeout | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  /** Waiting messages of a slow reader: the newest per (instrument, mode). */
  private readonly pending = new Map<string, string>();
  private slowSince: number | undefined;
  private window = { start: 0, count: 0, warned: false, overSeconds: 0 };
  private closed = false;
  private corked = false;
  /** The client's commands, handled one after another. */
  private queue: Promise<void> = Promise.resolve();
  /** Answered the last keep-alive ping (the server's heartbeat reads and resets it). */
  alive = true;

  constructor(
    private readonly socket: FeedSocket,
    private readonly ip: string,
    private readonly deps: FeedConnectionDeps,
    /** Already authenticated (the console's session socket on `/ws`): no `authenticate` needed. */
    principal?: FeedPrincipal,
  ) {
    this.principal = principal;
    if (principal) return;
    this.authTimer = setTimeout(
      () => this.close(FEED_CLOSE.authTimeout, 'auth timeout'),
      deps.limits.authTimeoutMs,
    );
    this.authTimer.unref();
  }

  get userId(): number | undefined {
    return this.principal?.userId;
  }

  /** One text frame from the client. */
  onMessage(text: string): void {
    if (this.closed || !this.admit()) return;
    const cmd = parseClientMessage(text);
    // In the order sent: a subscribe waiting for its lookups is not overtaken by the unsubscribe
    // that followed it (each answer, error or not, keeps the order of the commands).
    this.queue = this.queue.then(() =>
      isFeedError(cmd)
        ? this.send(cmd)
        : this.handle(cmd).catch(() => {
            // An unexpected failure is this client's error message, never another client's problem.
            this.send(feedError('BROKER_ERROR', 'The feed could not do that now'));
          }),
    );
  }

  /** The socket closed (either side): its subscriptions end. */
  onClose(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.authTimer);
    clearInterval(this.flushTimer);
    this.pending.clear();
    this.deps.hub.unsubscribeAll(this);
    if (this.principal) this.deps.orders?.unsubscribe(this, this.principal.userId);
  }

  /** The server's keep-alive tick: drops a socket that did not answer the last ping, else pings. */
  keepAlive(): void {
    if (this.closed) return;
    if (!this.alive) {
      this.socket.terminate();
      this.onClose();
      return;
    }
    this.alive = false;
    this.socket.ping();
  }

  close(code: number, reason: string): void {
    if (this.socket.readyState === OPEN) this.socket.close(code, reason);
    this.onClose();
  }

  deliver(slot: string, message: string): void {
    if (this.closed || this.socket.readyState !== OPEN) return;
    if (this.pending.size === 0 && this.socket.bufferedAmount < this.deps.limits.highWaterBytes) {
      this.cork();
      this.socket.send(message);
      return;
    }
    this.pending.delete(slot); // re-inserted last: waiting messages keep the order they came in
    this.pending.set(slot, message);
    this.slowSince ??= this.deps.now();
    this.flushTimer ??= setInterval(() => this.flush(), FLUSH_EVERY_MS);
  }

  /**
   * Holds this turn's messages in the TCP socket and writes them together once the turn's work is
   * done (an upstream frame of fifty instruments is one write per socket, not fifty): the write
   * system call, not the message, is what a tick burst costs.
   */
  private cork(): void {
    const tcp = this.socket._socket;
    if (this.corked || !tcp) return;
    this.corked = true;
    tcp.cork();
    process.nextTick(() => {
      this.corked = false;
      tcp.uncork();
    });
  }

  private flush(): void {
    if (this.closed) return;
    if (this.socket.bufferedAmount < this.deps.limits.highWaterBytes) {
      for (const m of this.pending.values()) this.socket.send(m);
      this.pending.clear();
      this.slowSince = undefined;
      clearInterval(this.flushTimer);
      this.flushTimer = undefined;
      return;
    }
    if (this.slowSince !== undefined && this.deps.now() - this.slowSince >= this.deps.limits.slowCloseMs)
      this.close(FEED_CLOSE.tooSlow, 'too slow: could not keep up with the feed');
  }

  /** Counts the message against the per-second budget; false when it is refused. */
  private admit(): boolean {
    const now = this.deps.now();
    const w = this.window;
    if (now - w.start >= 1000) {
      w.overSeconds = w.count > this.deps.limits.messagesPerSecond ? w.overSeconds + 1 : 0;
      this.window = { start: now, count: 0, warned: false, overSeconds: w.overSeconds };
    }
    this.window.count++;
    if (this.window.count <= this.deps.limits.messagesPerSecond) return true;
    if (this.window.overSeconds >= FLOOD_SECONDS) {
      this.close(FEED_CLOSE.policy, 'message rate limit');
      return false;
    }
    if (!this.window.warned) {
      this.window.warned = true;
      this.send(
        feedError(
          'RATE_LIMITED',
          `More than ${this.deps.limits.messagesPerSecond} messages a second; slow down`,
        ),
      );
    }
    return false;
  }

  private send(message: object): void {
    if (!this.closed && this.socket.readyState === OPEN) this.socket.send(JSON.stringify(message));
  }

  private async handle(cmd: Command): Promise<void> {
    const { hub } = this.deps;
    switch (cmd.action) {
      case 'authenticate':
        return this.authenticate(cmd.apiKey);
      case 'ping':
        return this.send({
          type: 'pong',
          status: 'success',
          server_timestamp: this.deps.now(),
          ...(cmd.timestamp !== undefined ? { client_timestamp: cmd.timestamp } : {}),
          ...(cmd.pingId !== undefined ? { _pingId: cmd.pingId } : {}),
        });
      case 'get_supported_brokers': {
        const brokers = this.deps.supportedBrokers();
        return this.send({ type: 'supported_brokers', status: 'success', brokers, count: brokers.length });
      }
      default:
        break;
    }
    const principal = this.principal;
    if (!principal) return this.send(feedError('NOT_AUTHENTICATED', 'You must authenticate first'));
    switch (cmd.action) {
      case 'subscribe': {
        const { entries: subscriptions, replay } = await hub.subscribe(
          this,
          cmd.symbols,
          cmd.mode,
          cmd.depth,
        );
        const failed = subscriptions.some((s) => s.status === 'error');
        this.send({
          type: 'subscribe',
          status: failed ? 'partial' : 'success',
          subscriptions,
          message: 'Subscription processing complete',
          broker: hub.broker,
          ...(cmd.requestId !== undefined ? { request_id: cmd.requestId } : {}),
        });
        return replay();
      }
      case 'unsubscribe':
      case 'unsubscribe_all': {
        const entries =
          cmd.action === 'unsubscribe' ? hub.unsubscribe(this, cmd.symbols) : hub.unsubscribeAll(this);
        const successful = entries.filter((e) => e.status === 'success');
        const failed = entries.filter((e) => e.status === 'error');
        const status = failed.length === 0 ? 'success' : successful.length > 0 ? 'partial' : 'error';
        return this.send({
          type: 'unsubscribe',
          status,
          message: 'Unsubscription processing complete',
          successful,
          failed,
          broker: hub.broker,
        });
      }
      case 'get_broker_info':
        return this.send({
          type: 'broker_info',
          status: 'success',
          broker: hub.broker,
          adapter_status: 'connected',
          user_id: principal.userId,
        });
      case 'subscribe_orders': {
        const orders = this.deps.orders;
        if (!orders) return this.send(feedError('INVALID_ACTION', 'Order updates are not served here'));
        orders.subscribe(this, principal.userId);
        return this.send({
          type: 'subscribe_orders',
          status: 'success',
          message: "Subscribed to this account's order updates",
        });
      }
      case 'unsubscribe_orders': {
        const had = this.deps.orders?.unsubscribe(this, principal.userId) ?? false;
        return this.send({
          type: 'unsubscribe_orders',
          status: had ? 'success' : 'error',
          message: had ? 'Unsubscribed from order updates' : 'Not subscribed to order updates',
        });
      }
    }
  }

  private async authenticate(apiKey: string): Promise<void> {
    const principal = await this.deps.authenticate(apiKey);
    if (this.closed) return;
    if (!principal) {
      this.deps.onInvalidKey?.(this.ip, apiKey);
      return this.send(feedError('AUTHENTICATION_ERROR', 'Invalid API key'));
    }
    this.principal = principal;
    clearTimeout(this.authTimer);
    this.send({
      type: 'auth',
      status: 'success',
      message: 'Authentication successful',
      broker: this.deps.hub.broker,
      user_id: principal.userId,
      supported_features: { ltp: true, quote: true, depth: true },
    });
  }
}
