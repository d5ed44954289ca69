/**
 * Fyers' data socket v3 (HSM) on loopback: a `ws` server on port 0 speaking the binary protocol,
 * for the Fyers tick source's tests. Its encoder is written from what fyers-apiv3's
 * `FyersWebsocket/data_ws.py` reads (not from the client's decoder): `__response_msg` (the type at
 * byte 2), `__auth_resp` (field 1 `K`, field 2 the ack count uint32 BE), `__subscribe_resp` (`K`
 * at byte 7), `__datafeed_resp` (`[len][6][message number uint32 BE][count uint16 BE]`, snapshot
 * `83` with the topic name, `n` int32 BE values, two spare bytes, multiplier uint16 BE, precision,
 * exchange / token / symbol strings; update `85` with `n` int32 BE values, -2147483648 where none)
 * and the field order of the SDK's `map.json` (`data_val`, `depthvalue`). The topic id is written
 * little-endian (the SDK reads it in machine order), and numbered from 0x0102 so the byte order shows.
 *
 * - The first request must be authentication (type 1) with the stub's HSM key, else the answer is
 *   `E` (the socket stays open). Requests before it are recorded and ignored.
 * - Subscribe (4) records the topics, answers `K`, and sends one data message with a snapshot of
 *   each topic the stub has a market for ({@link setMarket}); unsubscribe (5) forgets them.
 * - {@link update} sends an update packet with only the changed fields to connections holding the topic.
 * - Acknowledgements (3) and keep-alives (`00 01 0b`) are counted per connection.
 */
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import { WsStubServer } from './ws-stub-server.js';

/** `map.json` `data_val` without `type`, `symbol`. */
const SCRIP = [
  'ltp',
  'vol_traded_today',
  'last_traded_time',
  'exch_feed_time',
  'bid_size',
  'ask_size',
  'bid_price',
  'ask_price',
  'last_traded_qty',
  'tot_buy_qty',
  'tot_sell_qty',
  'avg_trade_price',
  'OI',
  'low_price',
  'high_price',
  'Yhigh',
  'Ylow',
  'lower_ckt',
  'upper_ckt',
  'open_price',
  'prev_close_price',
];
/** `map.json` `depthvalue` without `type`, `symbol`. */
const DEPTH: string[] = [];
for (const what of ['price', 'size', 'order'])
  for (const side of ['bid', 'ask']) for (let i = 1; i <= 5; i++) DEPTH.push(`${side}_${what}${i}`);

const NONE = -2147483648;

/** A topic's market: raw integers by `map.json` name (prices already × 10^precision × multiplier). */
export interface HsmMarket {
  fields: Record<string, number>;
  multiplier: number;
  precision: number;
  symbol: string;
}

interface Connection {
  id: number;
  ws: WebSocket;
  authed: boolean;
  topics: Set<string>;
  messages: number;
  acks: number[];
  pings: number;
  requests: number[];
}

/** One request a client sent: its connection, type and raw bytes. */
export interface HsmReceived {
  connection: number;
  type: number;
  bytes: Buffer;
}

const u16 = (n: number) => Buffer.from([n >> 8, n & 0xff]);
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n, 0);
  return b;
};
const str8 = (s: string) => Buffer.concat([Buffer.from([Buffer.byteLength(s)]), Buffer.from(s)]);
/** `[len][type][count]` then `[id][size uint16][value]` fields. */
function frame(type: number, fields: Buffer[]): Buffer {
  const body = Buffer.concat([
    Buffer.from([type, fields.length]),
    ...fields.map((v, i) => Buffer.concat([Buffer.from([i + 1]), u16(v.length), v])),
  ]);
  return Buffer.concat([u16(body.length), body]);
}

export class FyersStreamStub extends WsStubServer<Connection> {
  readonly received: HsmReceived[] = [];
  accepted = 0;
  private readonly market = new Map<string, HsmMarket>();
  private readonly ids = new Map<string, number>();
  /** The Authorization header of each handshake. */
  readonly authorizations: (string | undefined)[] = [];

  private constructor(private readonly opts: { hsmKey: string; ackCount?: number }) {
    super('fyers stream stub');
  }

  protected override admits(req: IncomingMessage): boolean {
    this.authorizations.push(req.headers.authorization);
    return true;
  }

  static async start(opts: { hsmKey: string; ackCount?: number }): Promise<FyersStreamStub> {
    const stub = new FyersStreamStub(opts);
    await stub.listen();
    return stub;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}/hsm/v1-5/prod`;
  }

  setMarket(topic: string, market: HsmMarket): void {
    this.market.set(topic, { ...market, fields: { ...market.fields } });
  }

  /** Changes some fields of a topic and sends an update (85) of only those; returns the frames sent. */
  update(topic: string, changed: Record<string, number>): number {
    const m = this.market.get(topic);
    if (m) Object.assign(m.fields, changed);
    const names = topic.startsWith('dp|') ? DEPTH : SCRIP;
    const values = names.map((n) => changed[n] ?? NONE);
    let n = 0;
    for (const c of this.open)
      if (c.authed && c.topics.has(topic)) {
        const packet = Buffer.concat([Buffer.from([85]), this.idBytes(topic), Buffer.from([values.length])]);
        this.sendData(c, [Buffer.concat([packet, ...values.map(int32)])]);
        n++;
      }
    return n;
  }

  /** The topics connection `id` (the newest when omitted) holds, sorted. */
  topics(id = this.accepted): string[] {
    for (const c of this.open) if (c.id === id) return [...c.topics].sort();
    return [];
  }

  /** What connection `id` (the newest when omitted) was sent and sent back. */
  stats(id = this.accepted): { messages: number; acks: number[]; pings: number; requests: number[] } {
    for (const c of this.open)
      if (c.id === id)
        return { messages: c.messages, acks: [...c.acks], pings: c.pings, requests: [...c.requests] };
    return { messages: 0, acks: [], pings: 0, requests: [] };
  }

  private idBytes(topic: string): Buffer {
    let id = this.ids.get(topic);
    if (id === undefined) this.ids.set(topic, (id = 0x0102 + this.ids.size));
    const b = Buffer.alloc(2);
    b.writeUInt16LE(id, 0);
    return b;
  }

  private snapshot(topic: string, m: HsmMarket): Buffer {
    const names = topic.startsWith('dp|') ? DEPTH : SCRIP;
    const [, segment, token] = topic.split('|') as [string, string, string];
    const mp = Buffer.alloc(2);
    mp.writeUInt16BE(m.multiplier, 0);
    return Buffer.concat([
      Buffer.from([83]),
      this.idBytes(topic),
      str8(topic),
      Buffer.from([names.length]),
      ...names.map((n) => int32(m.fields[n] ?? NONE)),
      Buffer.from([0, 0]),
      mp,
      Buffer.from([m.precision]),
      str8(segment),
      str8(token),
      str8(m.symbol),
    ]);
  }

  private sendData(c: Connection, packets: Buffer[]): void {
    c.messages++;
    const body = Buffer.concat([Buffer.from([6]), u32(c.messages), u16(packets.length), ...packets]);
    c.ws.send(Buffer.concat([u16(body.length), body]));
  }

  protected accept(ws: WebSocket): void {
    const c: Connection = {
      id: ++this.accepted,
      ws,
      authed: false,
      topics: new Set(),
      messages: 0,
      acks: [],
      pings: 0,
      requests: [],
    };
    this.open.add(c);
    ws.on('close', () => this.open.delete(c));
    ws.on('message', (data, isBinary) => {
      if (!isBinary) return;
      const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(data as Buffer[]);
      if (bytes.length === 3 && bytes[2] === 11) {
        c.pings++;
        return;
      }
      const type = bytes[2] ?? -1;
      this.received.push({ connection: c.id, type, bytes });
      c.requests.push(type);
      this.handle(c, type, fieldsOf(bytes));
    });
  }

  private handle(c: Connection, type: number, fields: Buffer[]): void {
    if (type === 1) {
      c.authed = fields[0]?.toString('utf8') === this.opts.hsmKey;
      if (!c.authed) this.refusals++;
      c.ws.send(frame(1, [Buffer.from(c.authed ? 'K' : 'E'), u32(this.opts.ackCount ?? 0)]));
      return;
    }
    if (!c.authed) return;
    if (type === 12) c.ws.send(frame(12, [Buffer.from('K')]));
    else if (type === 3) c.acks.push(fields[0]?.readUInt32BE(0) ?? -1);
    else if (type === 4 || type === 5) {
      const topics = topicsOf(fields[0] ?? Buffer.alloc(2));
      for (const t of topics) {
        if (type === 4) c.topics.add(t);
        else c.topics.delete(t);
      }
      c.ws.send(frame(type, [Buffer.from('K')]));
      if (type === 4) {
        const snaps = topics.flatMap((t) => {
          const m = this.market.get(t);
          return m ? [this.snapshot(t, m)] : [];
        });
        if (snaps.length > 0) this.sendData(c, snaps);
      }
    }
  }
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n, 0);
  return b;
}

/** A request's field values, in order. */
function fieldsOf(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let at = 4;
  for (let i = 0; i < (bytes[3] ?? 0) && at + 3 <= bytes.length; i++) {
    const size = bytes.readUInt16BE(at + 1);
    out.push(bytes.subarray(at + 3, at + 3 + size));
    at += 3 + size;
  }
  return out;
}

/** `[count uint16][len u8][ASCII]…` */
function topicsOf(v: Buffer): string[] {
  const out: string[] = [];
  let at = 2;
  for (let i = 0; i < v.readUInt16BE(0); i++) {
    const len = v[at]!;
    out.push(v.toString('ascii', at + 1, at + 1 + len));
    at += 1 + len;
  }
  return out;
}
