/**
 * A loopback Kite Ticker (Kite Connect v3 WebSocket streaming, kite.trade/docs/connect/v3/websocket)
 * as the tick source of the feed benches (`ws-fanout`, `ws-orders-under-ticks`). The quote packet's
 * layout is the one `test/helpers/kite-ticker-stub.ts` writes from Kite's page ("Quote packet
 * structure", "Message structure"), copied here in its smallest form because no bench imports from
 * `test/`: quote mode only (44-byte packets), which is what a Quote subscriber makes the feed ask for.
 *
 * - The handshake needs `api_key` and one of the access tokens given to {@link KiteTickerStub.start}
 *   in the query; the token names the connection (`server`, `baseline`), so one stub feeds each side
 *   of a bench on its own connection. Anything else is Kite's HTTP 403 TokenException.
 * - `subscribe`, `unsubscribe` and `mode` requests are kept per connection as Kite keeps them.
 * - {@link KiteTickerStub.send} writes one binary frame to the named connection; frames are built
 *   by the bench ({@link QuoteFrames}), which stamps each packet with its send time.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

/** Bytes of a quote-mode packet. */
export const QUOTE_PACKET_BYTES = 44;
/** Bytes one packet takes in a frame: its int16 length, then the packet. */
export const QUOTE_ENTRY_BYTES = 2 + QUOTE_PACKET_BYTES;

/** The quote packet's fields (int32 big-endian each), by byte offset: the page's table. */
export const QUOTE_OFFSETS = {
  token: 0,
  lastPrice: 4,
  lastQuantity: 8,
  averagePrice: 12,
  volume: 16,
  buyQuantity: 20,
  sellQuantity: 24,
  open: 28,
  high: 32,
  low: 36,
  close: 40,
} as const;

/** A quote packet's fields as the wire carries them (prices in paise). */
export type QuoteFields = Record<keyof typeof QUOTE_OFFSETS, number>;

/** One frame entry: the packet's length, then the quote packet (44 bytes). */
export function encodeQuoteEntry(fields: QuoteFields): Buffer {
  const out = Buffer.alloc(QUOTE_ENTRY_BYTES);
  out.writeUInt16BE(QUOTE_PACKET_BYTES, 0);
  for (const [name, at] of Object.entries(QUOTE_OFFSETS))
    out.writeUInt32BE(fields[name as keyof QuoteFields] >>> 0, 2 + at);
  return out;
}

interface Connection {
  label: string;
  ws: WebSocket;
  /** instrument_token → mode, as Kite keeps it for this connection. */
  subs: Map<number, string>;
}

export class KiteTickerStub {
  /** Handshakes refused (wrong or missing credentials). */
  refusals = 0;
  /** Connections accepted, by label (a reconnecting upstream shows here). */
  readonly accepted = new Map<string, number>();
  private readonly open = new Map<string, Connection>();
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  private readonly server: Server;

  private constructor(
    private readonly apiKey: string,
    /** access token → the label of the connection that uses it. */
    private readonly tokens: ReadonlyMap<string, string>,
  ) {
    this.server = createServer((_req, res) => res.writeHead(426).end());
    this.server.on('upgrade', (req, socket, head) => {
      const q = new URL(req.url ?? '/', 'http://stub').searchParams;
      const label = this.tokens.get(q.get('access_token') ?? '');
      if (q.get('api_key') !== this.apiKey || label === undefined) {
        this.refusals++;
        const body = JSON.stringify({
          status: 'error',
          message: 'Incorrect `api_key` or `access_token`.',
          data: null,
          error_type: 'TokenException',
        });
        socket.end(
          'HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\n' +
            `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, label));
    });
  }

  /** Starts a stub on 127.0.0.1, port 0, accepting `apiKey` with each of `tokens` (label → access token). */
  static async start(apiKey: string, tokens: Record<string, string>): Promise<KiteTickerStub> {
    const byToken = new Map(Object.entries(tokens).map(([label, token]) => [token, label] as const));
    const stub = new KiteTickerStub(apiKey, byToken);
    await new Promise<void>((resolve) => stub.server.listen(0, '127.0.0.1', resolve));
    return stub;
  }

  /** The endpoint, without the query (the client adds api_key and access_token). */
  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The open connection's subscriptions (token → mode), empty when `label` is not connected. */
  subscriptions(label: string): ReadonlyMap<number, string> {
    return this.open.get(label)?.subs ?? new Map();
  }

  /** Bytes the connection holds that the kernel has not taken yet (0 when not connected). */
  buffered(label: string): number {
    return this.open.get(label)?.ws.bufferedAmount ?? 0;
  }

  /** Sends one binary frame to `label`'s connection; false when it is not connected. */
  send(label: string, frame: Buffer): boolean {
    const c = this.open.get(label);
    if (!c || c.ws.readyState !== c.ws.OPEN) return false;
    c.ws.send(frame, { binary: true });
    return true;
  }

  async close(): Promise<void> {
    for (const c of this.open.values()) c.ws.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(ws: WebSocket, label: string): void {
    const c: Connection = { label, ws, subs: new Map() };
    this.open.get(label)?.ws.terminate();
    this.open.set(label, c);
    this.accepted.set(label, (this.accepted.get(label) ?? 0) + 1);
    ws.on('close', () => {
      if (this.open.get(label) === c) this.open.delete(label);
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      let msg: { a?: unknown; v?: unknown };
      try {
        msg = JSON.parse(String(data)) as typeof msg;
      } catch {
        return;
      }
      apply(c, msg);
    });
  }
}

/** Request structure: subscribe / unsubscribe [tokens], mode [mode, [tokens]]. */
function apply(c: Connection, msg: { a?: unknown; v?: unknown }): void {
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
