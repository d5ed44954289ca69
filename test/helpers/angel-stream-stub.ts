/**
 * Angel One SmartStream (SmartAPI WebSocket 2.0, smartapi.angelone.in/docs/WebSocket2) on
 * loopback: a `ws` server on port 0 that speaks the documented protocol, for the Angel tick
 * source's tests. Its binary encoder is written from the page's response tables (section "Response
 * contract": LTP, Quote, SnapQuote, Best Five Data), not from the client's decoder: a test gives
 * each packet's fields as the integers the wire carries (prices in paise, or in 1/10^7 rupee on
 * the currency segment) and states the decoded rupees itself.
 *
 * - The handshake needs the four headers (`Authorization` with the JWT, as `Bearer <jwt>` or
 *   bare, `x-api-key`, `x-client-code`, `x-feed-token`) exactly; anything else is an HTTP 401 and
 *   no socket.
 * - A text `ping` is answered `pong`. Every other text message is recorded ({@link messages}); a
 *   valid subscribe or unsubscribe changes that connection's subscriptions, per mode, as Angel
 *   keeps them (an unsubscribe of a token not held is ignored); an invalid one is answered E1001,
 *   one past the session's 1,000 subscriptions E1002, as JSON text.
 * - {@link send} delivers a packet to each connection holding its token in its mode.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { WsStubServer } from './ws-stub-server.js';

export interface AngelStreamCredentials {
  apiKey: string;
  clientCode: string;
  jwt: string;
  feedToken: string;
}

/** "Subscription Mode" of a response packet. */
export const STUB_MODE = { LTP: 1, QUOTE: 2, SNAP_QUOTE: 3 } as const;

/** A "Best Five Data" entry: quantity, price (wire integer), number of orders. */
export type DepthEntry = readonly [quantity: number, price: number, orders: number];

/** The fields every response carries (section "Response contract", bytes 0–51). */
export interface LtpPacket {
  mode: 'LTP';
  exchangeType: number;
  token: string;
  sequenceNumber: number;
  /** Epoch ms. */
  exchangeTimestamp: number;
  lastTradedPrice: number;
}

/** Quote mode: bytes 0–123. */
export interface QuotePacket extends Omit<LtpPacket, 'mode'> {
  mode: 'QUOTE';
  lastTradedQuantity: number;
  averageTradedPrice: number;
  volumeTradedForTheDay: number;
  totalBuyQuantity: number;
  totalSellQuantity: number;
  openPriceOfTheDay: number;
  highPriceOfTheDay: number;
  lowPriceOfTheDay: number;
  closePrice: number;
}

/** SnapQuote mode: bytes 0–379. */
export interface SnapQuotePacket extends Omit<QuotePacket, 'mode'> {
  mode: 'SNAP_QUOTE';
  lastTradedTimestamp: number;
  openInterest: number;
  openInterestChangePercent: number;
  /** Up to five bids and five offers (missing ones are sent as zeros). */
  bids: readonly DepthEntry[];
  asks: readonly DepthEntry[];
  upperCircuitLimit: number;
  lowerCircuitLimit: number;
  fiftyTwoWeekHigh: number;
  fiftyTwoWeekLow: number;
}

export type AngelPacket = LtpPacket | QuotePacket | SnapQuotePacket;

/** One text request a client sent, with the connection (1, 2, …) it came on. */
export interface ReceivedRequest {
  connection: number;
  correlationID: unknown;
  action: unknown;
  mode: unknown;
  tokenList: unknown;
}

// ---- the encoder, from the page's tables ----

type Kind = 'uint8' | 'int16' | 'int64' | 'double' | 'char25';
/** [field, start byte, type, value]: a row of one of the page's response tables (little endian). */
type Row = readonly [field: string, at: number, kind: Kind, value: number | string];

function pack(size: number, rows: readonly Row[]): Buffer {
  const out = Buffer.alloc(size);
  for (const [, at, kind, value] of rows) {
    if (kind === 'char25') out.write(String(value).slice(0, 25), at, 'latin1');
    else if (kind === 'uint8') out.writeUInt8(Number(value), at);
    else if (kind === 'int16') out.writeInt16LE(Number(value), at);
    else if (kind === 'int64') out.writeBigInt64LE(BigInt(value), at);
    else out.writeDoubleLE(Number(value), at);
  }
  return out;
}

/** "Best Five Data": ten 20-byte packets from byte 147 — buy/sell flag, quantity, price, orders. */
function bestFive(bids: readonly DepthEntry[], asks: readonly DepthEntry[]): Row[] {
  const rows: Row[] = [];
  const side = (entries: readonly DepthEntry[], flag: number, first: number) =>
    entries.slice(0, 5).forEach(([quantity, price, orders], n) => {
      const at = first + 20 * n;
      rows.push(
        ['flag', at, 'int16', flag],
        ['quantity', at + 2, 'int64', quantity],
        ['price', at + 10, 'int64', price],
        ['orders', at + 18, 'int16', orders],
      );
    });
  side(bids, 0, 147);
  side(asks, 1, 247);
  return rows;
}

/** One response packet's bytes. */
export function encodePacket(p: AngelPacket): Buffer {
  const head: Row[] = [
    ['Subscription Mode', 0, 'uint8', STUB_MODE[p.mode]],
    ['Exchange Type', 1, 'uint8', p.exchangeType],
    ['Token', 2, 'char25', p.token],
    ['Sequence Number', 27, 'int64', p.sequenceNumber],
    ['Exchange Timestamp', 35, 'int64', p.exchangeTimestamp],
    ['Last Traded Price', 43, 'int64', p.lastTradedPrice],
  ];
  if (p.mode === 'LTP') return pack(51, head);
  const quote: Row[] = [
    ...head,
    ['Last traded quantity', 51, 'int64', p.lastTradedQuantity],
    ['Average traded price', 59, 'int64', p.averageTradedPrice],
    ['Volume traded for the day', 67, 'int64', p.volumeTradedForTheDay],
    ['Total buy quantity', 75, 'double', p.totalBuyQuantity],
    ['Total sell quantity', 83, 'double', p.totalSellQuantity],
    ['Open price of the day', 91, 'int64', p.openPriceOfTheDay],
    ['High price of the day', 99, 'int64', p.highPriceOfTheDay],
    ['Low price of the day', 107, 'int64', p.lowPriceOfTheDay],
    ['Close price', 115, 'int64', p.closePrice],
  ];
  if (p.mode === 'QUOTE') return pack(123, quote);
  return pack(379, [
    ...quote,
    ['Last traded timestamp', 123, 'int64', p.lastTradedTimestamp],
    ['Open Interest', 131, 'int64', p.openInterest],
    ['Open Interest change %', 139, 'double', p.openInterestChangePercent],
    ...bestFive(p.bids, p.asks),
    ['Upper circuit limit', 347, 'int64', p.upperCircuitLimit],
    ['Lower circuit limit', 355, 'int64', p.lowerCircuitLimit],
    ['52 week high price', 363, 'int64', p.fiftyTwoWeekHigh],
    ['52 week low price', 371, 'int64', p.fiftyTwoWeekLow],
  ]);
}

// ---- the server ----

/** Token subscriptions one session may hold. */
const QUOTA = 1000;

interface Connection {
  id: number;
  ws: WebSocket;
  /** mode → `exchangeType|token` held in it. */
  subs: Map<number, Set<string>>;
  pings: number;
}

export class AngelStreamStub extends WsStubServer<Connection> {
  readonly requests: ReceivedRequest[] = [];
  /** The `Authorization` header of each accepted handshake, in order. */
  readonly authorizations: string[] = [];
  /** Connections accepted so far (the next one is number `accepted + 1`). */
  accepted = 0;
  credentials: AngelStreamCredentials;

  private constructor(credentials: AngelStreamCredentials) {
    super('angel stream stub');
    this.credentials = { ...credentials };
  }

  protected override admits(req: IncomingMessage, socket: Duplex): boolean {
    if (!this.accepts(req))
      return this.refuse(socket, '401 Unauthorized', {
        success: false,
        message: 'Unauthorized',
        errorCode: 'AG8001',
        data: '',
      });
    this.authorizations.push(String(req.headers.authorization));
    return true;
  }

  /** Starts a stub on 127.0.0.1, port 0, accepting `credentials`. */
  static async start(credentials: AngelStreamCredentials): Promise<AngelStreamStub> {
    const stub = new AngelStreamStub(credentials);
    await stub.listen();
    return stub;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}/smart-stream`;
  }

  /** What connection `id` (the newest when omitted) holds: `mode:exchangeType|token`, sorted. */
  subscriptions(id = this.accepted): string[] {
    for (const c of this.open)
      if (c.id === id) return [...c.subs].flatMap(([m, set]) => [...set].map((k) => `${m}:${k}`)).sort();
    return [];
  }

  /** The requests of connection `id`, without the connection number. */
  requestsOf(id: number): Omit<ReceivedRequest, 'connection'>[] {
    return this.requests.filter((r) => r.connection === id).map(({ connection: _c, ...r }) => r);
  }

  /** Text `ping`s connection `id` (the newest when omitted) has sent. */
  pings(id = this.accepted): number {
    for (const c of this.open) if (c.id === id) return c.pings;
    return 0;
  }

  /** Sends `packet` to each connection holding its token in its mode (all with `unsolicited`). */
  send(packet: AngelPacket, opts: { unsolicited?: boolean } = {}): number {
    const key = `${packet.exchangeType}|${packet.token}`;
    let n = 0;
    for (const c of this.open) {
      if (!opts.unsolicited && !c.subs.get(STUB_MODE[packet.mode])?.has(key)) continue;
      c.ws.send(encodePacket(packet), { binary: true });
      n++;
    }
    return n;
  }

  /** Any text frame to every connection (an error answer, say). */
  text(message: string): void {
    for (const c of this.open) c.ws.send(message);
  }

  /** Any binary frame, as given. */
  raw(bytes: Buffer): void {
    for (const c of this.open) c.ws.send(bytes, { binary: true });
  }

  /** "Request headers for authentication": all four, exactly. */
  private accepts(req: IncomingMessage): boolean {
    const h = req.headers;
    const { jwt, apiKey, clientCode, feedToken } = this.credentials;
    return (
      (h.authorization === `Bearer ${jwt}` || h.authorization === jwt) &&
      h['x-api-key'] === apiKey &&
      h['x-client-code'] === clientCode &&
      h['x-feed-token'] === feedToken
    );
  }

  protected accept(ws: WebSocket): void {
    const c: Connection = { id: ++this.accepted, ws, subs: new Map(), pings: 0 };
    this.open.add(c);
    ws.on('close', () => this.open.delete(c));
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const text = String(data);
      if (text === 'ping') {
        c.pings++;
        ws.send('pong');
        return;
      }
      this.request(c, text);
    });
  }

  /** Request contract: `{correlationID, action: 1|0, params: {mode, tokenList: [{exchangeType, tokens}]}}`. */
  private request(c: Connection, text: string): void {
    let msg: { correlationID?: unknown; action?: unknown; params?: { mode?: unknown; tokenList?: unknown } };
    try {
      msg = JSON.parse(text) as typeof msg;
    } catch {
      return this.error(c, undefined, 'E1001', 'Invalid Request Payload.');
    }
    const { correlationID, action } = msg;
    const mode = msg.params?.mode;
    const tokenList = msg.params?.tokenList;
    this.requests.push({ connection: c.id, correlationID, action, mode, tokenList });
    const entries = Array.isArray(tokenList)
      ? (tokenList as { exchangeType?: unknown; tokens?: unknown }[])
      : [];
    const valid =
      (action === 0 || action === 1) &&
      (mode === 1 || mode === 2 || mode === 3) &&
      Array.isArray(tokenList) &&
      entries.every(
        (e) =>
          [1, 2, 3, 4, 5, 7, 13].includes(e.exchangeType as number) &&
          Array.isArray(e.tokens) &&
          (e.tokens as unknown[]).every((t) => typeof t === 'string' && t !== ''),
      );
    if (!valid) return this.error(c, correlationID, 'E1001', 'Invalid Request Payload.');
    const keys = entries.flatMap((e) => (e.tokens as string[]).map((t) => `${String(e.exchangeType)}|${t}`));
    const held = c.subs.get(mode) ?? new Set<string>();
    if (action === 0) {
      for (const k of keys) held.delete(k);
    } else {
      const total = [...c.subs.values()].reduce((n, s) => n + s.size, 0);
      const fresh = new Set(keys.filter((k) => !held.has(k)));
      if (total + fresh.size > QUOTA)
        return this.error(c, correlationID, 'E1002', 'Invalid Request. Subscription Limit Exceeded.');
      for (const k of fresh) held.add(k);
    }
    c.subs.set(mode, held);
  }

  private error(c: Connection, correlationID: unknown, errorCode: string, errorMessage: string): void {
    c.ws.send(JSON.stringify({ correlationID: correlationID ?? '', errorCode, errorMessage }));
  }
}
