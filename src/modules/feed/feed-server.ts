/**
 * The feed's WebSocket server (docs/rules/market-data.md#feed-protocol): a `ws` server without a
 * listener of its own, handed upgrades by the standalone listener on `WEBSOCKET_HOST`:
 * `WEBSOCKET_PORT` (OpenAlgo's default 127.0.0.1:8765, where the SDK connects) and, later, by the
 * HTTP port's `/ws`. Before an upgrade: the IP-ban check, the connection rate limit per address
 * and the capacity bound, each refused as a plain HTTP answer. Frames over 64 KiB close the
 * socket with 1009 (the `ws` library's own check). A keep-alive ping every 20 s; a socket that did
 * not answer the previous one is dropped.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { resolveClientIp } from '../../platform/client-ip.js';
import type { RateLimiter } from '../../platform/rate-limiter.js';
import type { RateRule } from '../../platform/rate-rule.js';
import {
  FEED_CLOSE,
  FeedConnection,
  type FeedConnectionDeps,
  type FeedPrincipal,
} from './feed-connection.js';
import { feedError } from './protocol.js';

/** Largest client frame: a subscribe of a thousand symbols fits; more closes with 1009. */
export const MAX_FRAME_BYTES = 64 * 1024;
/** Keep-alive ping interval. */
export const PING_EVERY_MS = 20_000;

export interface FeedServerDeps extends FeedConnectionDeps {
  isBanned(ip: string): boolean | Promise<boolean>;
  limiter: RateLimiter;
  /** Upgrades per client address (FEED_CONNECT_RATE_LIMIT). */
  connectRate: readonly RateRule[];
  /** Sockets open at once on this instance (FEED_MAX_CONNECTIONS). */
  maxConnections: number;
  trustProxyHeaders: boolean;
  logger: Logger;
}

export class FeedServer {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  private readonly connections = new Set<FeedConnection>();
  private readonly heartbeat: NodeJS.Timeout;
  private listener: Server | undefined;

  constructor(private readonly deps: FeedServerDeps) {
    this.heartbeat = setInterval(() => this.beat(), PING_EVERY_MS);
    this.heartbeat.unref();
  }

  get size(): number {
    return this.connections.size;
  }

  /** Handles one HTTP upgrade request: refuse it with an HTTP answer, or open a feed socket. */
  async handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    const ip = resolveClientIp(req.socket.remoteAddress, req.headers, this.deps.trustProxyHeaders);
    try {
      if (await this.deps.isBanned(ip)) return refuse(socket, 403, 'Forbidden', 'This address is banned');
      const admitted = await this.admit(ip);
      if (!admitted.ok)
        return refuse(
          socket,
          admitted.status,
          admitted.status === 503 ? 'Service Unavailable' : 'Too Many Requests',
          admitted.message,
          admitted.retryAfterMs,
        );
    } catch (err) {
      this.deps.logger.error({ err }, 'feed upgrade check failed');
      return refuse(socket, 503, 'Service Unavailable', 'The feed cannot take connections now');
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, ip));
  }

  /** Serves the feed on its own port (OpenAlgo's WEBSOCKET_HOST:WEBSOCKET_PORT). */
  async listen(host: string, port: number): Promise<AddressInfo> {
    const server = createServer((_req, res) => {
      res.writeHead(426, { 'content-type': 'application/json', connection: 'close', upgrade: 'websocket' });
      res.end(
        JSON.stringify({
          status: 'error',
          message: 'This port speaks WebSocket: connect with a WebSocket client',
        }),
      );
    });
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      void this.handleUpgrade(req, socket, head);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.listener = server;
    return server.address() as AddressInfo;
  }

  /** Closes every socket with 1001 and stops listening. */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    for (const c of this.connections) c.close(FEED_CLOSE.goingAway, 'server shutting down');
    this.connections.clear();
    const listener = this.listener;
    this.listener = undefined;
    if (listener) {
      listener.closeAllConnections();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  /** Whether another socket fits (FEED_MAX_CONNECTIONS). */
  hasRoom(): boolean {
    return this.connections.size < this.deps.maxConnections;
  }

  /**
   * The capacity and the per-address connection rate (FEED_CONNECT_RATE_LIMIT) of a new feed socket,
   * on either listener (the ban check is each listener's own, before this).
   */
  async admit(
    ip: string,
  ): Promise<{ ok: true } | { ok: false; status: 429 | 503; message: string; retryAfterMs?: number }> {
    if (!this.hasRoom())
      return { ok: false, status: 503, message: 'The feed has the most sockets it takes; retry later' };
    const rate = await this.deps.limiter.hit(`feed-connect:${ip}`, this.deps.connectRate);
    if (!rate.allowed)
      return {
        ok: false,
        status: 429,
        message: 'Too many feed connections from this address',
        retryAfterMs: rate.retryAfterMs,
      };
    return { ok: true };
  }

  /**
   * Serves the feed on a socket another route upgraded (the HTTP port's `/ws`, which checked the
   * ban and the rate before the upgrade): with `principal`, a session already authenticated.
   */
  adopt(ws: WebSocket, ip: string, principal?: FeedPrincipal): void {
    this.accept(ws, ip, principal);
  }

  private accept(ws: WebSocket, ip: string, principal?: FeedPrincipal): void {
    const conn = new FeedConnection(ws, ip, this.deps, principal);
    this.connections.add(conn);
    ws.on('message', (data, isBinary) => {
      if (isBinary)
        ws.send(JSON.stringify(feedError('INVALID_JSON', 'Send text frames of JSON, not binary')));
      else conn.onMessage(data.toString());
    });
    ws.on('pong', () => {
      conn.alive = true;
    });
    ws.on('close', () => {
      conn.onClose();
      this.connections.delete(conn);
    });
    ws.on('error', (err) => this.deps.logger.debug({ err: err.message }, 'feed socket error'));
  }

  private beat(): void {
    for (const c of this.connections) c.keepAlive();
  }
}

function refuse(socket: Duplex, status: number, text: string, message: string, retryAfterMs?: number): void {
  const body = JSON.stringify({ status: 'error', message });
  const retry =
    retryAfterMs !== undefined ? `Retry-After: ${Math.max(1, Math.ceil(retryAfterMs / 1000))}\r\n` : '';
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `${retry}Connection: close\r\n\r\n${body}`,
  );
}
