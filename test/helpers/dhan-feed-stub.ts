/**
 * DhanHQ v2 Live Market Feed (dhanhq.co/docs/v2/live-market-feed, codes from
 * dhanhq.co/docs/v2/annexure) on loopback: a `ws` server on port 0 that speaks the documented
 * protocol, for the Dhan tick source's tests. Its binary encoder is written from the page's byte
 * tables (response header, ticker, quote, OI, prev close, full packet with market depth, feed
 * disconnect), not from the client's decoder: a test gives each packet's fields as the wire carries
 * them (rupees as float32, epoch seconds) and states the decoded tick itself.
 *
 * - The handshake needs `version=2`, `authType=2`, the `clientId` and the `token` in the query:
 *   a wrong token or client id is an HTTP 401, a wrong version or authType an HTTP 400, and no socket.
 * - Every JSON request is recorded ({@link requests}); subscribe (15/17/21) and unsubscribe
 *   (16/18/22) keep each connection's subscriptions, per instrument and request code. A request
 *   whose `InstrumentCount` is not its list's length, or with more than 100 instruments, is
 *   recorded in {@link violations}.
 * - {@link send} delivers packets to each connection subscribed to their instrument (in any mode),
 *   several packets in one frame; {@link disconnect} sends Feed Disconnect (50) with a reason.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { WsStubServer } from './ws-stub-server.js';

/** Annexure "Exchange Segment": the enum each segment is sent as in a response header. */
const SEGMENT_ENUM: Readonly<Record<string, number>> = {
  IDX_I: 0,
  NSE_EQ: 1,
  NSE_FNO: 2,
  NSE_CURRENCY: 3,
  BSE_EQ: 4,
  MCX_COMM: 5,
  BSE_CURRENCY: 7,
  BSE_FNO: 8,
};

/** The instrument a packet is for: Dhan's segment name and security id. */
interface For {
  segment: string;
  securityId: number;
}
/** "Ticker Packet" (response code 2). */
export interface TickerPacket extends For {
  type: 'ticker';
  ltp: number;
  /** Epoch seconds. */
  ltt: number;
}
/** "Quote Packet" (response code 4). */
export interface QuotePacket extends For {
  type: 'quote';
  ltp: number;
  ltq: number;
  ltt: number;
  atp: number;
  volume: number;
  totalSellQty: number;
  totalBuyQty: number;
  open: number;
  close: number;
  high: number;
  low: number;
}
/** "OI Data" (response code 5). */
export interface OiPacket extends For {
  type: 'oi';
  oi: number;
}
/** "Prev Close" (response code 6). */
export interface PrevClosePacket extends For {
  type: 'prevClose';
  prevClose: number;
  prevOi: number;
}
/** One "Market Depth Structure" level. */
export interface DepthRow {
  bidQty: number;
  askQty: number;
  bidOrders: number;
  askOrders: number;
  bidPrice: number;
  askPrice: number;
}
/** "Full Packet" (response code 8). */
export interface FullPacket extends Omit<QuotePacket, 'type'> {
  type: 'full';
  oi: number;
  oiHigh: number;
  oiLow: number;
  /** Up to five levels (missing ones go as zeros). */
  depth: readonly DepthRow[];
}
export type DhanPacket = TickerPacket | QuotePacket | OiPacket | PrevClosePacket | FullPacket;

/** One JSON request a client sent, with the connection (1, 2, …) it came on. */
export interface ReceivedRequest {
  connection: number;
  RequestCode: unknown;
  InstrumentCount?: unknown;
  InstrumentList?: { ExchangeSegment: string; SecurityId: string }[];
}

// ---- the encoder, from the page's tables ----

type Kind = 'byte' | 'int16' | 'int32' | 'float32';
/** [first byte, last byte, type, value]: a row of a "Bytes / Type / Size" table, bytes numbered from 1. */
type Row = readonly [first: number, last: number, kind: Kind, value: number];

const WIDTH: Readonly<Record<Kind, number>> = { byte: 1, int16: 2, int32: 4, float32: 4 };

/** Writes the rows little-endian into `size` bytes (the page's "Binary … Little Endian"). */
function pack(size: number, rows: readonly Row[]): Buffer {
  const out = Buffer.alloc(size);
  for (const [first, last, kind, value] of rows) {
    const at = first - 1;
    if (last - first + 1 !== WIDTH[kind]) throw new Error(`stub: row ${first}-${last} is no ${kind}`);
    if (kind === 'byte') out.writeUInt8(value, at);
    else if (kind === 'int16') out.writeUInt16LE(value & 0xffff, at);
    else if (kind === 'int32') out.writeUInt32LE(value >>> 0, at);
    else out.writeFloatLE(value, at);
  }
  return out;
}

/** "Response Header": code (1), message length (2-3), exchange segment (4), security id (5-8). */
function header(code: number, length: number, p: For): Row[] {
  const segment = SEGMENT_ENUM[p.segment];
  if (segment === undefined) throw new Error(`stub: no segment ${p.segment}`);
  return [
    [1, 1, 'byte', code],
    [2, 3, 'int16', length],
    [4, 4, 'byte', segment],
    [5, 8, 'int32', p.securityId],
  ];
}

/** Bytes 9-34, common to the quote and full packets: LTP, LTQ, LTT, ATP, volume, sell and buy quantity. */
function tradeRows(p: Omit<QuotePacket, 'type'>): Row[] {
  return [
    [9, 12, 'float32', p.ltp],
    [13, 14, 'int16', p.ltq],
    [15, 18, 'int32', p.ltt],
    [19, 22, 'float32', p.atp],
    [23, 26, 'int32', p.volume],
    [27, 30, 'int32', p.totalSellQty],
    [31, 34, 'int32', p.totalBuyQty],
  ];
}

/** One packet's bytes, per the page's tables. */
export function encodePacket(p: DhanPacket): Buffer {
  switch (p.type) {
    case 'ticker':
      return pack(16, [...header(2, 16, p), [9, 12, 'float32', p.ltp], [13, 16, 'int32', p.ltt]]);
    case 'prevClose':
      return pack(16, [...header(6, 16, p), [9, 12, 'float32', p.prevClose], [13, 16, 'int32', p.prevOi]]);
    case 'oi':
      return pack(12, [...header(5, 12, p), [9, 12, 'int32', p.oi]]);
    case 'quote':
      return pack(50, [
        ...header(4, 50, p),
        ...tradeRows(p),
        [35, 38, 'float32', p.open],
        [39, 42, 'float32', p.close],
        [43, 46, 'float32', p.high],
        [47, 50, 'float32', p.low],
      ]);
    case 'full': {
      const rows: Row[] = [
        ...header(8, 162, p),
        ...tradeRows(p),
        [35, 38, 'int32', p.oi],
        [39, 42, 'int32', p.oiHigh],
        [43, 46, 'int32', p.oiLow],
        [47, 50, 'float32', p.open],
        [51, 54, 'float32', p.close],
        [55, 58, 'float32', p.high],
        [59, 62, 'float32', p.low],
      ];
      // Bytes 63-162: five 20-byte "Market Depth Structure" entries.
      p.depth.slice(0, 5).forEach((d, n) => {
        const b = 62 + 20 * n;
        rows.push(
          [b + 1, b + 4, 'int32', d.bidQty],
          [b + 5, b + 8, 'int32', d.askQty],
          [b + 9, b + 10, 'int16', d.bidOrders],
          [b + 11, b + 12, 'int16', d.askOrders],
          [b + 13, b + 16, 'float32', d.bidPrice],
          [b + 17, b + 20, 'float32', d.askPrice],
        );
      });
      return pack(162, rows);
    }
  }
}

/** "Feed Disconnect" (response code 50): the header, then the reason code (9-10). */
export function encodeDisconnect(reason: number): Buffer {
  return pack(10, [...header(50, 10, { segment: 'IDX_I', securityId: 0 }), [9, 10, 'int16', reason]]);
}

// ---- the server ----

export interface DhanFeedCredentials {
  clientId: string;
  accessToken: string;
}

interface Connection {
  id: number;
  ws: WebSocket;
  /** `SEGMENT:securityId` → the subscribe codes held (15, 17, 21). */
  subs: Map<string, Set<number>>;
}

const UNSUBSCRIBE_OF: Readonly<Record<number, number>> = { 16: 15, 18: 17, 22: 21 };

export class DhanFeedStub extends WsStubServer<Connection> {
  readonly requests: ReceivedRequest[] = [];
  /** Requests breaking the page's rules (count mismatch, more than 100 instruments). */
  readonly violations: string[] = [];
  accepted = 0;
  readonly closeCodes = new Map<number, number>();

  private constructor(readonly credentials: DhanFeedCredentials) {
    super('dhan feed stub');
  }

  protected override admits(req: IncomingMessage, socket: Duplex): boolean {
    const q = new URL(req.url ?? '/', 'http://stub').searchParams;
    if (q.get('version') !== '2' || q.get('authType') !== '2')
      return this.refuse(socket, '400 Bad Request', {
        status: 'error',
        message: 'version and authType must be 2',
      });
    if (q.get('token') !== this.credentials.accessToken || q.get('clientId') !== this.credentials.clientId)
      return this.refuse(socket, '401 Unauthorized', {
        status: 'error',
        message: 'Authentication Failed - Client ID or Access Token invalid',
      });
    return true;
  }

  static async start(credentials: DhanFeedCredentials): Promise<DhanFeedStub> {
    const stub = new DhanFeedStub({ ...credentials });
    await stub.listen();
    return stub;
  }

  /** The endpoint, without the query (the client adds version, token, clientId, authType). */
  get url(): string {
    return `ws://127.0.0.1:${this.port}`;
  }

  /** Connection `id`'s subscriptions (the newest when omitted), `SEGMENT:securityId` → codes held. */
  subscriptions(id = this.accepted): Map<string, number[]> {
    for (const c of this.open)
      if (c.id === id) return new Map([...c.subs].map(([k, codes]) => [k, [...codes].sort()]));
    return new Map();
  }

  /** The requests of connection `id`, without the connection number. */
  requestsOf(id: number): Omit<ReceivedRequest, 'connection'>[] {
    return this.requests.filter((r) => r.connection === id).map(({ connection: _c, ...rest }) => rest);
  }

  /** Sends `packets` in one frame to every connection subscribed to their instruments; the count sent to. */
  send(packets: readonly DhanPacket[]): number {
    let n = 0;
    for (const c of this.open) {
      const mine = packets.filter((p) => c.subs.has(`${p.segment}:${p.securityId}`));
      if (mine.length === 0) continue;
      c.ws.send(Buffer.concat(mine.map(encodePacket)), { binary: true });
      n++;
    }
    return n;
  }

  /** Sends Feed Disconnect with `reason` to every open connection (the socket is left to the client). */
  disconnect(reason: number): void {
    for (const c of this.open) c.ws.send(encodeDisconnect(reason), { binary: true });
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
      let msg: Omit<ReceivedRequest, 'connection'>;
      try {
        msg = JSON.parse(String(data)) as typeof msg;
      } catch {
        this.violations.push(`not JSON: ${String(data).slice(0, 40)}`);
        return;
      }
      this.requests.push({ connection: c.id, ...msg });
      this.apply(c, msg);
    });
  }

  /** "Adding Instruments" / "Unsubscribing": codes 15/17/21 add, 16/18/22 remove that code. */
  private apply(c: Connection, msg: Omit<ReceivedRequest, 'connection'>): void {
    const code = Number(msg.RequestCode);
    if (code === 12) return;
    const list = Array.isArray(msg.InstrumentList) ? msg.InstrumentList : [];
    if (msg.InstrumentCount !== list.length)
      this.violations.push(`InstrumentCount ${String(msg.InstrumentCount)}`);
    if (list.length > 100) this.violations.push(`${list.length} instruments in one message`);
    for (const i of list) {
      const key = `${i.ExchangeSegment}:${i.SecurityId}`;
      if (code === 15 || code === 17 || code === 21) {
        const codes = c.subs.get(key) ?? new Set<number>();
        c.subs.set(key, codes.add(code));
      } else if (UNSUBSCRIBE_OF[code] !== undefined) {
        const codes = c.subs.get(key);
        codes?.delete(UNSUBSCRIBE_OF[code]);
        if (codes?.size === 0) c.subs.delete(key);
      } else this.violations.push(`unknown RequestCode ${code}`);
    }
  }
}
