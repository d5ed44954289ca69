/**
 * The live socket hub (docs/rules/orders.md#live-socket): order events pushed to the browser
 * sockets of the user they belong to, and only to that user.
 *
 * - **Fan-out across instances** (ARCHITECTURE.md "Scale-out"): the {@link OrderEventBus} is per
 *   process, so the hub's consumer delivers to this instance's sockets and publishes a compact,
 *   already-whitelisted copy on the {@link InvalidationBus} (topic {@link ORDER_EVENT_TOPIC}),
 *   which with Redis reaches every other instance. The copy is tagged with the hub's instance id
 *   and the origin hub ignores its own copy, so each socket receives an event exactly once. On
 *   the in-process bus (one instance) no copy is published, and an event of a user with no
 *   socket here is not even turned into a message.
 * - **Secrets never leave**: the message is built field by field from a whitelist
 *   ({@link toOrderEventMessage}); the event's `request` may carry anything, none of it is copied
 *   wholesale, and the copy sent over Redis is the same whitelisted message.
 * - **Bounds**: sockets per user and in total are capped; a consumer that stops reading
 *   (buffered bytes over the limit) is closed with 1013 instead of buffering without bound.
 * - **Heartbeat**: a ping every 30 s; a socket that did not answer the previous ping is
 *   terminated. The same tick re-checks each socket's session every 5 min (injected clock), so a
 *   logged-out or revoked session loses its socket (close 4401).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../../platform/clock.js';
import type { InvalidationBus } from '../../platform/invalidation.js';
import type { OrderEvent } from './order-events.js';
import {
  isLiveMessage,
  toOrderEventMessage,
  type ActionCenterMessage,
  type LiveMessage,
} from './live-messages.js';

/** Bus topic carrying order events between instances. */
export const ORDER_EVENT_TOPIC = 'order-event';

/** WebSocket close codes the hub uses. */
export const CLOSE_CODES = {
  /** Server shutting down. */
  goingAway: 1001,
  /** Over a bound (per user, total) or too slow to keep up: come back later. */
  tryAgainLater: 1013,
  /** The session behind the socket ended (logout, revocation, expiry). */
  sessionEnded: 4401,
} as const;

/** What the hub needs of a server-side socket (a `ws` WebSocket satisfies it; tests pass fakes). */
export interface LiveSocket {
  /** 1 = OPEN. */
  readonly readyState: number;
  /** Bytes queued but not yet written to the network. */
  readonly bufferedAmount: number;
  send(data: string): void;
  ping(): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  on(event: 'pong' | 'close', listener: () => void): unknown;
}

const OPEN = 1;

export interface LiveSocketHubOptions {
  /** Cross-instance fan-out (Redis pub/sub when configured, in-process otherwise). */
  bus: InvalidationBus;
  logger: Logger;
  /** Times session re-checks (default: system clock). */
  clock?: Clock;
  /** Tags this hub's bus copies (default: random UUID). */
  instanceId?: string;
  /** Open sockets per user (default 10). */
  maxPerUser?: number;
  /** Open sockets on this instance (default 1000). */
  maxTotal?: number;
  /** Buffered bytes above which a socket is closed as a slow consumer (default 1 MiB). */
  maxBufferedBytes?: number;
  /** Ping period (default 30 s). */
  heartbeatMs?: number;
  /** How often a socket's session is re-checked (default 5 min). */
  revalidateMs?: number;
}

/** `ok`, or why a socket cannot be admitted. */
export type Admission = 'ok' | 'user_limit' | 'total_limit' | 'closing';

/** Counters for monitoring. */
export interface LiveSocketStats {
  sockets: number;
  users: number;
  /** Messages written to sockets. */
  sent: number;
  /** Sockets closed because they did not keep up. */
  slowClosed: number;
  /** Sockets terminated for not answering a ping. */
  deadDropped: number;
  /** Sockets closed because their session ended. */
  sessionClosed: number;
}

interface Connection {
  userId: number;
  socket: LiveSocket;
  alive: boolean;
  checkedAt: number;
  checking: boolean;
  check: (() => Promise<boolean>) | undefined;
}

interface BusCopy {
  /** Origin instance. */
  o: string;
  /** User id. */
  u: number;
  m: LiveMessage;
}

/** Connections per user, fan-out, bounds, heartbeat and the bus bridge. See the file comment. */
export class LiveSocketHub {
  readonly instanceId: string;
  /** {@link instanceId} as JSON, for the bus copies. */
  private readonly instanceJson: string;
  private readonly byUser = new Map<number, Set<Connection>>();
  private total = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly clock: Clock;
  private readonly limits: Required<
    Pick<
      LiveSocketHubOptions,
      'maxPerUser' | 'maxTotal' | 'maxBufferedBytes' | 'heartbeatMs' | 'revalidateMs'
    >
  >;
  private readonly counters = { sent: 0, slowClosed: 0, deadDropped: 0, sessionClosed: 0 };

  constructor(private readonly opts: LiveSocketHubOptions) {
    this.instanceId = opts.instanceId ?? randomUUID();
    this.instanceJson = JSON.stringify(this.instanceId);
    this.clock = opts.clock ?? systemClock;
    this.limits = {
      maxPerUser: opts.maxPerUser ?? 10,
      maxTotal: opts.maxTotal ?? 1000,
      maxBufferedBytes: opts.maxBufferedBytes ?? 1024 * 1024,
      heartbeatMs: opts.heartbeatMs ?? 30_000,
      revalidateMs: opts.revalidateMs ?? 5 * 60_000,
    };
    opts.bus.subscribe(ORDER_EVENT_TOPIC, (key) => this.fromBus(key));
  }

  /** The OrderEventBus consumer: delivers here and publishes the copy for other instances. */
  consumer(): (e: OrderEvent) => void {
    return (e) => {
      if (this.closed || e.userId === null) return;
      // Nobody to tell: no socket of the user here, and no other instance the bus reaches.
      if (!this.opts.bus.reachesOthers && !this.byUser.has(e.userId)) return;
      this.send(e.userId, toOrderEventMessage(e));
    };
  }

  /** Tells the user's sockets, here and on every instance, that their Action Center queue changed. */
  actionCenter(userId: number, event: ActionCenterMessage['event'], id: number): void {
    if (this.closed) return;
    this.send(userId, { type: 'action_center', event, id });
  }

  /** Delivers a message here and publishes its copy for the other instances. */
  private send(userId: number, m: LiveMessage): void {
    // Once per order event: serialised once, and the bus copy ({@link BusCopy}) wraps those bytes.
    const json = JSON.stringify(m);
    this.deliver(userId, json);
    if (!this.opts.bus.reachesOthers) return;
    try {
      this.opts.bus.publish(ORDER_EVENT_TOPIC, `{"o":${this.instanceJson},"u":${userId},"m":${json}}`);
    } catch (err) {
      this.opts.logger.warn({ err }, 'live socket: could not publish a message to other instances');
    }
  }

  /** Whether a new socket of `userId` would be admitted now (checked before the upgrade). */
  capacity(userId: number): Admission {
    if (this.closed) return 'closing';
    if ((this.byUser.get(userId)?.size ?? 0) >= this.limits.maxPerUser) return 'user_limit';
    if (this.total >= this.limits.maxTotal) return 'total_limit';
    return 'ok';
  }

  /**
   * Adds an upgraded socket of `userId`. Over a bound (reached while it upgraded) it is closed
   * with 1013. `check` re-validates its session: false closes it with 4401.
   */
  admit(userId: number, socket: LiveSocket, check?: () => Promise<boolean>): Admission {
    const room = this.capacity(userId);
    if (room !== 'ok') {
      const code = room === 'closing' ? CLOSE_CODES.goingAway : CLOSE_CODES.tryAgainLater;
      socket.close(code, room === 'closing' ? 'server shutting down' : `too many sockets (${room})`);
      return room;
    }
    const conn: Connection = {
      userId,
      socket,
      alive: true,
      checkedAt: this.clock.now(),
      checking: false,
      check,
    };
    let set = this.byUser.get(userId);
    if (!set) this.byUser.set(userId, (set = new Set()));
    set.add(conn);
    this.total++;
    socket.on('pong', () => (conn.alive = true));
    socket.on('close', () => this.remove(conn));
    this.timer ??= setInterval(() => this.heartbeat(), this.limits.heartbeatMs).unref();
    return 'ok';
  }

  /**
   * One heartbeat tick (the timer calls it every `heartbeatMs`; tests call it directly): sockets
   * that did not answer the last ping are terminated, the others pinged; sessions due for a
   * re-check are checked.
   */
  heartbeat(): void {
    const now = this.clock.now();
    for (const conn of this.connections()) {
      if (!conn.alive) {
        this.counters.deadDropped++;
        this.remove(conn);
        conn.socket.terminate();
        continue;
      }
      conn.alive = false;
      try {
        conn.socket.ping();
      } catch {
        this.remove(conn);
        conn.socket.terminate();
        continue;
      }
      if (conn.check && !conn.checking && now - conn.checkedAt >= this.limits.revalidateMs) {
        this.revalidate(conn, now);
      }
    }
  }

  /** Closes every socket (1001) and stops the heartbeat; the hub admits nothing afterwards. */
  close(): void {
    this.closed = true;
    for (const conn of this.connections()) {
      this.remove(conn);
      this.closeSocket(conn.socket, CLOSE_CODES.goingAway, 'server shutting down');
    }
    this.stopTimer();
  }

  /** Open sockets of one user on this instance. */
  socketsOf(userId: number): number {
    return this.byUser.get(userId)?.size ?? 0;
  }

  stats(): LiveSocketStats {
    return { sockets: this.total, users: this.byUser.size, ...this.counters };
  }

  private revalidate(conn: Connection, now: number): void {
    conn.checking = true;
    conn.check!().then(
      (ok) => {
        conn.checking = false;
        conn.checkedAt = now;
        if (ok || !this.isOpen(conn)) return;
        this.counters.sessionClosed++;
        this.remove(conn);
        this.closeSocket(conn.socket, CLOSE_CODES.sessionEnded, 'session ended');
      },
      (err: unknown) => {
        // A failing store keeps the socket (the check runs again next tick), as rate limits do.
        conn.checking = false;
        this.opts.logger.warn({ err }, 'live socket: session re-check failed');
      },
    );
  }

  private fromBus(key: string): void {
    if (this.closed || this.total === 0) return;
    let copy: BusCopy;
    try {
      copy = JSON.parse(key) as BusCopy;
    } catch {
      this.opts.logger.warn('live socket: ignored a malformed order event message');
      return;
    }
    if (typeof copy !== 'object' || copy === null || copy.o === this.instanceId) return;
    if (typeof copy.u !== 'number' || !isLiveMessage(copy.m)) return;
    if (this.byUser.has(copy.u)) this.deliver(copy.u, JSON.stringify(copy.m));
  }

  /** Writes one serialised message to every open socket of the user; slow ones are closed. */
  private deliver(userId: number, payload: string): void {
    const set = this.byUser.get(userId);
    if (!set) return;
    for (const conn of [...set]) {
      const s = conn.socket;
      if (s.readyState !== OPEN) continue;
      if (s.bufferedAmount + payload.length > this.limits.maxBufferedBytes) {
        this.counters.slowClosed++;
        this.opts.logger.warn({ userId }, 'live socket: closed a slow consumer');
        this.remove(conn);
        this.closeSocket(s, CLOSE_CODES.tryAgainLater, 'slow consumer');
        continue;
      }
      s.send(payload);
      this.counters.sent++;
    }
  }

  private isOpen(conn: Connection): boolean {
    return this.byUser.get(conn.userId)?.has(conn) ?? false;
  }

  private remove(conn: Connection): void {
    const set = this.byUser.get(conn.userId);
    if (!set?.delete(conn)) return;
    this.total--;
    if (set.size === 0) this.byUser.delete(conn.userId);
    if (this.total === 0) this.stopTimer();
  }

  private closeSocket(s: LiveSocket, code: number, reason: string): void {
    try {
      s.close(code, reason);
    } catch {
      s.terminate();
    }
  }

  private connections(): Connection[] {
    return [...this.byUser.values()].flatMap((set) => [...set]);
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** Builds the hub; subscribe `hub.consumer()` on the OrderEventBus. */
export function createLiveSocketHub(opts: LiveSocketHubOptions): LiveSocketHub {
  return new LiveSocketHub(opts);
}
