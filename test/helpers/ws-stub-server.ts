/**
 * What every loopback broker tick-stream stub shares (Kite Ticker, Angel, Dhan, Fyers, Noren): an
 * HTTP server on 127.0.0.1 that answers 426 to plain requests and upgrades the handshakes the stub
 * admits, the open connections, refusals written as the broker's JSON answer, and the test's
 * handles (cut every connection, wait for a condition, close). Each stub adds its protocol.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

export abstract class WsStubServer<C extends { ws: WebSocket }> {
  /** Refusals (a handshake, or a login message, as the stub's protocol refuses them). */
  refusals = 0;
  protected readonly open = new Set<C>();
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly server: Server = createServer((_req, res) => res.writeHead(426).end());

  /** @param name how the stub names itself in its errors (`kite ticker stub`). */
  protected constructor(private readonly name: string) {
    this.server.on('upgrade', (req, socket, head) => {
      if (this.admits(req, socket)) this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
    });
  }

  /** Decides on a handshake: false once the stub has answered it itself (see {@link refuse}). */
  protected admits(_req: IncomingMessage, _socket: Duplex): boolean {
    return true;
  }

  /** Takes an upgraded connection (into {@link open}). */
  protected abstract accept(ws: WebSocket): void;

  /** Answers a handshake with `status` (`401 Unauthorized`) and `body` as JSON, and counts it. */
  protected refuse(socket: Duplex, status: string, body: unknown): false {
    this.refusals++;
    const text = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
    return false;
  }

  /** Listens on 127.0.0.1, a free port. */
  protected listen(): Promise<void> {
    return new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  protected get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Open connections now. */
  get connections(): number {
    return this.open.size;
  }

  /** Cuts every connection without a closing handshake (a network failure). */
  drop(): void {
    for (const c of this.open) c.ws.terminate();
  }

  /** Resolves when `check` holds (polled every 5 ms), or rejects after `timeoutMs`. */
  async until(check: () => boolean, timeoutMs = 3000, what = 'condition'): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > end) throw new Error(`${this.name}: timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  async close(): Promise<void> {
    for (const c of this.open) c.ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
