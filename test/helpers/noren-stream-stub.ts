/**
 * The Noren OMS WebSocket (Shoonya, Flattrade) on loopback: a `ws` server on port 0 that speaks the
 * documented JSON protocol, for the Noren tick source's tests. Written from Noren's pages, not from
 * the client: kambalatech/NorenApi-Py's README ("subscribe": `tk` once with every field at its
 * latest value, then `tf` with only the changed fields), Shoonya's "Web Socket API" page (Connect,
 * Subscribe/Unsubscribe Touchline and Depth with the `dk`/`df` field tables) and Flattrade's Pi
 * Connect pages (Touchline, Heartbeat `{"t":"h"}` acknowledged `hk`, the change log's `t:"a"` connect).
 *
 * - The first message must be the connect request of the stub's dialect (`c` with `susertoken`,
 *   answered `ck`; or `a` with `accesstoken`, answered `ak`), `source` `API`, the right `uid`,
 *   `actid` and token: `s` `OK`, else `Not_Ok` with an `emsg` (the socket stays open, as Flattrade
 *   leaves it per OpenAlgo's client). Anything sent before an OK is recorded and ignored.
 * - `t` / `d` subscribe the `#`-separated scrips of `k` and answer each with a full `tk` / `dk`
 *   snapshot of the stub's market ({@link setMarket}); `u` / `ud` unsubscribe and answer `uk` / `udk`.
 * - {@link update} changes a scrip's market fields and sends only them: `tf` (the touchline fields
 *   among them) to connections holding its touchline, `df` (the depth fields) to those holding its depth.
 */
import type { WebSocket } from 'ws';
import { WsStubServer } from './ws-stub-server.js';

export interface NorenStubCredentials {
  userId: string;
  token: string;
  /** `susertoken` (TP endpoints, `t:"c"`) or `accesstoken` (`…WSAPI`, `t:"a"`). */
  dialect?: 'susertoken' | 'accesstoken';
}

/** The touchline fields of the pages' `tk`/`tf` tables (with `ft`, Flattrade's feed time). */
const TOUCHLINE = new Set('pp ts ti ls lp pc v o h l c ap oi poi toi bq1 bp1 sq1 sp1 ft'.split(' '));
/** The depth fields of Shoonya's `dk`/`df` tables. */
const DEPTH = new Set([
  ...'lp pc v o h l c ap ltt ltq tbq tsq lc uc 52h 52l oi poi toi ft'.split(' '),
  ...[1, 2, 3, 4, 5].flatMap((i) => ['bq', 'bp', 'bo', 'sq', 'sp', 'so'].map((f) => `${f}${i}`)),
]);

const pick = (fields: Record<string, string>, names: ReadonlySet<string>) =>
  Object.fromEntries(Object.entries(fields).filter(([k]) => names.has(k)));

interface Connection {
  id: number;
  ws: WebSocket;
  authed: boolean;
  touchline: Set<string>;
  depth: Set<string>;
  heartbeats: number;
}

/** One message a client sent, parsed (or the raw text), with its connection number. */
export interface NorenReceived {
  connection: number;
  message: Record<string, unknown>;
}

export class NorenStreamStub extends WsStubServer<Connection> {
  readonly received: NorenReceived[] = [];
  /** Connections accepted so far (the newest is number `accepted`). */
  accepted = 0;
  private readonly market = new Map<string, Record<string, string>>();
  private readonly dialect: 'susertoken' | 'accesstoken';

  private constructor(private readonly creds: NorenStubCredentials) {
    super('noren stream stub');
    this.dialect = creds.dialect ?? 'susertoken';
  }

  static async start(creds: NorenStubCredentials): Promise<NorenStreamStub> {
    const stub = new NorenStreamStub(creds);
    await stub.listen();
    return stub;
  }

  get url(): string {
    return `ws://127.0.0.1:${this.port}/NorenWSTP/`;
  }

  /** Sets a scrip's (`EXCH|token`) market fields, as strings: what a `tk`/`dk` snapshot carries. */
  setMarket(scrip: string, fields: Record<string, string>): void {
    this.market.set(scrip, { ...fields });
  }

  /** Changes some of a scrip's fields and sends only those as `tf` / `df`; returns the frames sent. */
  update(scrip: string, changed: Record<string, string>): number {
    this.market.set(scrip, { ...this.market.get(scrip), ...changed });
    const [e, tk] = scrip.split('|') as [string, string];
    let n = 0;
    for (const c of this.open) {
      if (!c.authed) continue;
      const tl = pick(changed, TOUCHLINE);
      const dp = pick(changed, DEPTH);
      if (c.touchline.has(scrip) && Object.keys(tl).length > 0) {
        c.ws.send(JSON.stringify({ t: 'tf', e, tk, ...tl }));
        n++;
      }
      if (c.depth.has(scrip) && Object.keys(dp).length > 0) {
        c.ws.send(JSON.stringify({ t: 'df', e, tk, ...dp }));
        n++;
      }
    }
    return n;
  }

  /** What connection `id` (the newest when omitted) holds: `t:EXCH|token` and `d:EXCH|token`, sorted. */
  subscriptions(id = this.accepted): string[] {
    for (const c of this.open)
      if (c.id === id)
        return [...[...c.touchline].map((s) => `t:${s}`), ...[...c.depth].map((s) => `d:${s}`)].sort();
    return [];
  }

  /** The messages of connection `id`. */
  messagesOf(id: number): Record<string, unknown>[] {
    return this.received.filter((r) => r.connection === id).map((r) => r.message);
  }

  /** Heartbeats connection `id` (the newest when omitted) sent. */
  heartbeats(id = this.accepted): number {
    for (const c of this.open) if (c.id === id) return c.heartbeats;
    return 0;
  }

  protected accept(ws: WebSocket): void {
    const c: Connection = {
      id: ++this.accepted,
      ws,
      authed: false,
      touchline: new Set(),
      depth: new Set(),
      heartbeats: 0,
    };
    this.open.add(c);
    ws.on('close', () => this.open.delete(c));
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(String(data)) as Record<string, unknown>;
      } catch {
        message = { raw: String(data) };
      }
      this.received.push({ connection: c.id, message });
      this.handle(c, message);
    });
  }

  private handle(c: Connection, m: Record<string, unknown>): void {
    const susertoken = this.dialect === 'susertoken';
    const [connectT, ackT, tokenField] = susertoken ? ['c', 'ck', 'susertoken'] : ['a', 'ak', 'accesstoken'];
    if (m.t === 'h') {
      c.heartbeats++;
      c.ws.send(JSON.stringify({ t: 'hk', hk: String(Math.floor(Date.now() / 1000)) }));
      return;
    }
    if (m.t === connectT) {
      const ok =
        m.uid === this.creds.userId &&
        m.actid === this.creds.userId &&
        m.source === 'API' &&
        m[tokenField] === this.creds.token;
      c.authed = ok;
      if (!ok) this.refusals++;
      c.ws.send(
        JSON.stringify(
          ok ? { t: ackT, uid: m.uid, s: 'OK' } : { t: ackT, s: 'Not_Ok', emsg: 'Invalid Session Key' },
        ),
      );
      return;
    }
    if (!c.authed || typeof m.k !== 'string') return;
    const scrips = m.k.split('#').filter((s) => s !== '');
    if (m.t === 't' || m.t === 'd') {
      const held = m.t === 't' ? c.touchline : c.depth;
      for (const scrip of scrips) {
        held.add(scrip);
        const [e, tk] = scrip.split('|') as [string, string];
        const fields = pick(this.market.get(scrip) ?? {}, m.t === 't' ? TOUCHLINE : DEPTH);
        c.ws.send(JSON.stringify({ t: `${m.t}k`, e, tk, ...fields }));
      }
    } else if (m.t === 'u' || m.t === 'ud') {
      const held = m.t === 'u' ? c.touchline : c.depth;
      for (const scrip of scrips) held.delete(scrip);
      c.ws.send(JSON.stringify({ t: `${m.t}k`, k: m.k }));
    }
  }
}
