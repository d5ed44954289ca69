/**
 * Kite Ticker (Kite Connect v3 WebSocket streaming, kite.trade/docs/connect/v3/websocket) on
 * loopback: a `ws` server on port 0 that speaks the documented protocol, for the Kite tick source's
 * tests. Its binary encoder is written from the page's tables (message structure, quote packet,
 * index packet, market depth), not from the client's decoder: a test gives each packet's fields as
 * the integers the wire carries (prices in paise, or in the segment's own unit for currencies) and
 * states the decoded rupees itself.
 *
 * - The handshake needs `api_key` and `access_token` in the query, exactly; anything else is an
 *   HTTP 403 with Kite's TokenException body, and no socket.
 * - Every text message a client sends is recorded ({@link messages}); `subscribe`, `unsubscribe`
 *   and `mode` keep each connection's subscriptions as Kite does (a subscribed token streams in
 *   quote mode until a mode is set; a mode on an unsubscribed token does nothing; tokens must be
 *   numbers).
 * - {@link send} delivers packets to each connection that subscribed their token (as Kite only
 *   streams subscribed instruments), in the mode the test gives, several packets in one frame.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { WsStubServer } from './ws-stub-server.js';
import type { KiteCredentials } from './broker-quote-stub-kite.js';

export type KiteMode = 'ltp' | 'quote' | 'full';

/** A market depth entry: quantity, price (wire integer), number of orders. */
export type DepthEntry = readonly [quantity: number, price: number, orders: number];

/** "ltp": the first 8 bytes of the quote packet. */
export interface LtpPacket {
  mode: 'ltp';
  token: number;
  lastPrice: number;
}

/** "quote": bytes 0–44 of the quote packet. */
export interface QuotePacket {
  mode: 'quote';
  token: number;
  lastPrice: number;
  lastQuantity: number;
  averagePrice: number;
  volume: number;
  buyQuantity: number;
  sellQuantity: number;
  open: number;
  high: number;
  low: number;
  close: number;
}

/** "full": the whole 184-byte quote packet; timestamps in epoch seconds. */
export interface FullPacket extends Omit<QuotePacket, 'mode'> {
  mode: 'full';
  lastTradeTime: number;
  oi: number;
  oiDayHigh: number;
  oiDayLow: number;
  exchangeTimestamp: number;
  /** Up to five bid entries, best first (missing ones are sent as zeros). */
  bids: readonly DepthEntry[];
  asks: readonly DepthEntry[];
}

/** The index packet (NIFTY 50, SENSEX): 28 bytes in quote mode, 32 in full (with the timestamp). */
export interface IndexPacket {
  mode: 'index-quote' | 'index-full';
  token: number;
  lastPrice: number;
  high: number;
  low: number;
  open: number;
  close: number;
  change: number;
  /** index-full only, epoch seconds. */
  exchangeTimestamp?: number;
}

export type KitePacket = LtpPacket | QuotePacket | FullPacket | IndexPacket;

/** One text message a client sent, with the connection (1, 2, …) it came on. */
export interface ReceivedMessage {
  connection: number;
  a: unknown;
  v: unknown;
}

// ---- the encoder, from the page's tables ----

/** [start byte, end byte, value]: a row of one of the page's "Bytes / Type" tables. */
type Row = readonly [from: number, to: number, value: number];

/** Writes the rows big-endian: 4-byte rows as int32 (two's complement), 2-byte rows as int16. */
function pack(size: number, rows: readonly Row[]): Buffer {
  const out = Buffer.alloc(size);
  for (const [from, to, value] of rows) {
    if (to - from === 4) out.writeUInt32BE(value >>> 0, from);
    else if (to - from === 2) out.writeUInt16BE(value & 0xffff, from);
    else throw new Error(`stub: no ${to - from}-byte field`);
  }
  return out;
}

/** "Market depth structure": ten 12-byte entries from byte 64, bids then offers, 2 bytes padding each. */
function depthRows(bids: readonly DepthEntry[], asks: readonly DepthEntry[]): Row[] {
  const rows: Row[] = [];
  const side = (entries: readonly DepthEntry[], first: number) =>
    entries.slice(0, 5).forEach(([quantity, price, orders], n) => {
      const base = first + 12 * n;
      rows.push([base, base + 4, quantity], [base + 4, base + 8, price], [base + 8, base + 10, orders]);
    });
  side(bids, 64);
  side(asks, 124);
  return rows;
}

/** One packet's bytes, per "Quote packet structure" and "Index packet structure". */
export function encodePacket(p: KitePacket): Buffer {
  switch (p.mode) {
    case 'ltp':
      return pack(8, [
        [0, 4, p.token],
        [4, 8, p.lastPrice],
      ]);
    case 'index-quote':
    case 'index-full': {
      const rows: Row[] = [
        [0, 4, p.token],
        [4, 8, p.lastPrice],
        [8, 12, p.high],
        [12, 16, p.low],
        [16, 20, p.open],
        [20, 24, p.close],
        [24, 28, p.change],
      ];
      if (p.mode === 'index-quote') return pack(28, rows);
      return pack(32, [...rows, [28, 32, p.exchangeTimestamp ?? 0]]);
    }
    case 'quote':
    case 'full': {
      const rows: Row[] = [
        [0, 4, p.token],
        [4, 8, p.lastPrice],
        [8, 12, p.lastQuantity],
        [12, 16, p.averagePrice],
        [16, 20, p.volume],
        [20, 24, p.buyQuantity],
        [24, 28, p.sellQuantity],
        [28, 32, p.open],
        [32, 36, p.high],
        [36, 40, p.low],
        [40, 44, p.close],
      ];
      if (p.mode === 'quote') return pack(44, rows);
      return pack(184, [
        ...rows,
        [44, 48, p.lastTradeTime],
        [48, 52, p.oi],
        [52, 56, p.oiDayHigh],
        [56, 60, p.oiDayLow],
        [60, 64, p.exchangeTimestamp],
        ...depthRows(p.bids, p.asks),
      ]);
    }
  }
}

/**
 * "Message structure": [0–2] the number of packets, then for each the length [2 bytes] and the
 * packet's bytes.
 */
export function encodeMessage(packets: readonly KitePacket[]): Buffer {
  const parts: Buffer[] = [pack(2, [[0, 2, packets.length]])];
  for (const p of packets) {
    const bytes = encodePacket(p);
    parts.push(pack(2, [[0, 2, bytes.length]]), bytes);
  }
  return Buffer.concat(parts);
}

// ---- the server ----

interface Connection {
  id: number;
  ws: WebSocket;
  /** instrument_token → mode, as Kite keeps it for this connection. */
  subs: Map<number, KiteMode>;
}

export class KiteTickerStub extends WsStubServer<Connection> {
  /** Every text message received, in order. */
  readonly messages: ReceivedMessage[] = [];
  /** Connections accepted so far (the next one is number `accepted + 1`). */
  accepted = 0;
  /** Close codes the server saw, by connection number. */
  readonly closeCodes = new Map<number, number>();
  credentials: KiteCredentials;

  private constructor(credentials: KiteCredentials) {
    super('kite ticker stub');
    this.credentials = { ...credentials };
  }

  protected override admits(req: IncomingMessage, socket: Duplex): boolean {
    const q = new URL(req.url ?? '/', 'http://stub').searchParams;
    if (
      q.get('api_key') === this.credentials.apiKey &&
      q.get('access_token') === this.credentials.accessToken
    )
      return true;
    return this.refuse(socket, '403 Forbidden', {
      status: 'error',
      message: 'Incorrect `api_key` or `access_token`.',
      data: null,
      error_type: 'TokenException',
    });
  }

  /** Starts a stub on 127.0.0.1, port 0, accepting `credentials`. */
  static async start(
    credentials: KiteCredentials = { apiKey: 'kite-api-key-1234', accessToken: 'kite-access-token-5678' },
  ): Promise<KiteTickerStub> {
    const stub = new KiteTickerStub(credentials);
    await stub.listen();
    return stub;
  }

  /** The endpoint, without the query (the client adds api_key and access_token). */
  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  /** The subscriptions of connection `id` (the newest when omitted), token → mode. */
  subscriptions(id = this.accepted): Map<number, KiteMode> {
    for (const c of this.open) if (c.id === id) return new Map(c.subs);
    return new Map();
  }

  /** The messages of connection `id`, as `{a, v}`. */
  messagesOf(id: number): { a: unknown; v: unknown }[] {
    return this.messages.filter((m) => m.connection === id).map(({ a, v }) => ({ a, v }));
  }

  /**
   * Sends `packets` in one binary frame to every open connection, each getting those of its
   * subscribed tokens (all of them with `unsolicited`); the number of connections sent to.
   */
  send(packets: readonly KitePacket[], opts: { unsolicited?: boolean } = {}): number {
    let n = 0;
    for (const c of this.open) {
      const mine = opts.unsolicited ? packets : packets.filter((p) => c.subs.has(p.token));
      if (mine.length === 0) continue;
      c.ws.send(encodeMessage(mine), { binary: true });
      n++;
    }
    return n;
  }

  /** The 1-byte heartbeat Kite sends when there is nothing to stream. */
  heartbeat(): void {
    for (const c of this.open) c.ws.send(Buffer.from([0]), { binary: true });
  }

  /** A text update (`{type: "order" | "error" | "message", data}`). */
  text(message: { type: string; data: unknown }): void {
    for (const c of this.open) c.ws.send(JSON.stringify(message));
  }

  /** Any binary frame, as given (a malformed one, say). */
  raw(bytes: Buffer): void {
    for (const c of this.open) c.ws.send(bytes, { binary: true });
  }

  protected accept(ws: WebSocket): void {
    const c: Connection = { id: ++this.accepted, ws, subs: new Map() };
    this.open.add(c);
    ws.on('close', (code) => {
      this.closeCodes.set(c.id, code);
      this.open.delete(c);
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      let msg: { a?: unknown; v?: unknown };
      try {
        msg = JSON.parse(String(data)) as typeof msg;
      } catch {
        return;
      }
      this.messages.push({ connection: c.id, a: msg.a, v: msg.v });
      this.apply(c, msg);
    });
  }

  /** Request structure: subscribe / unsubscribe [tokens], mode [mode, [tokens]]. */
  private apply(c: Connection, msg: { a?: unknown; v?: unknown }): void {
    const tokens = (v: unknown): number[] =>
      Array.isArray(v) ? v.filter((t): t is number => typeof t === 'number' && Number.isInteger(t)) : [];
    if (msg.a === 'subscribe') for (const t of tokens(msg.v)) if (!c.subs.has(t)) c.subs.set(t, 'quote');
    if (msg.a === 'unsubscribe') for (const t of tokens(msg.v)) c.subs.delete(t);
    if (msg.a === 'mode' && Array.isArray(msg.v)) {
      const [mode, list] = msg.v as [unknown, unknown];
      if (mode !== 'ltp' && mode !== 'quote' && mode !== 'full') return;
      for (const t of tokens(list)) if (c.subs.has(t)) c.subs.set(t, mode);
    }
  }
}
