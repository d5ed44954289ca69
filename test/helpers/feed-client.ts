/**
 * A client of the live feed written from OpenAlgo's WebSocket protocol (docs/rules/market-data.md
 * #feed-protocol), for tests: JSON messages in and out, every message received kept in order, and
 * a wait for the next one that matches. Built on the `ws` library's client, nothing of ours.
 */
import WebSocket from 'ws';

export type FeedMessage = Record<string, unknown>;

export class FeedTestClient {
  readonly received: FeedMessage[] = [];
  /** How the socket ended: its close code and reason. */
  readonly closed: Promise<{ code: number; reason: string }>;
  private waiters: { match: (m: FeedMessage) => boolean; resolve: (m: FeedMessage) => void }[] = [];
  /** Indexes of received messages a `next` already returned. */
  private readonly taken = new Set<number>();

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const m = JSON.parse(data.toString()) as FeedMessage;
      this.received.push(m);
      this.waiters = this.waiters.filter((w) => {
        if (!w.match(m)) return true;
        w.resolve(m);
        return false;
      });
    });
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  /** Opens a socket; rejects with the HTTP status when the upgrade is refused. */
  static open(url: string, headers: Record<string, string> = {}): Promise<FeedTestClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { headers });
      ws.once('open', () => resolve(new FeedTestClient(ws)));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () =>
          reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, body })),
        );
      });
      ws.once('error', reject);
    });
  }

  send(message: FeedMessage | string): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /**
   * The first message not yet taken by `next` that matches (in the order received); waits for one
   * up to `ms`. Messages that do not match stay for a later `next`.
   */
  next(match: (m: FeedMessage) => boolean = () => true, ms = 5000): Promise<FeedMessage> {
    const found = this.received.findIndex((m, i) => !this.taken.has(i) && match(m));
    if (found >= 0) {
      this.taken.add(found);
      return Promise.resolve(this.received[found]!);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const left = this.received.filter((_, i) => !this.taken.has(i));
        reject(new Error(`no matching feed message within ${ms} ms; not taken: ${JSON.stringify(left)}`));
      }, ms);
      this.waiters.push({
        match,
        resolve: (m) => {
          clearTimeout(timer);
          this.taken.add(this.received.lastIndexOf(m));
          resolve(m);
        },
      });
    });
  }

  /** Sends and waits for the reply of that `type` (or an error message). */
  async ask(message: FeedMessage, type: string): Promise<FeedMessage> {
    const reply = this.next((m) => m.type === type || m.status === 'error');
    this.send(message);
    return reply;
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.close(1000);
    await this.closed;
  }
}
