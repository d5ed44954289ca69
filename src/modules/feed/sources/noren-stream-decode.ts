/**
 * The Noren OMS WebSocket (Shoonya, Flattrade) as JSON (docs/rules/market-data.md#feed-sources):
 * the requests a connection sends, the frames it reads, and a tick made of an instrument's kept
 * snapshot. Pure (no socket, no logger), apart from the connection in ./noren-stream.ts.
 *
 * Read from Noren's own pages: kambalatech/NorenApi-Py README ("start_websocket", "subscribe":
 * `tk` once with every field, then `tf` with only the fields that changed), Shoonya's "Web Socket
 * API" page (shoonya.com/api-documentation: Connect, Subscribe/Unsubscribe Touchline and Depth,
 * the depth tables and a sample `df`), Flattrade's Pi Connect pages (WebSocket Touchline, Heartbeat,
 * and its change log), and OpenAlgo's broker/shoonya and broker/flattrade streaming clients.
 *
 * - Connect: `{"t":"c","uid","actid","source":"API","susertoken"}` answered `{"t":"ck","s":"OK"}`
 *   (the `…WSTP`/`…WSTp` endpoints, NorenApi-Py and OpenAlgo's Shoonya client); the newer
 *   `…WSAPI` endpoints take `{"t":"a",…,"accesstoken"}` answered `ak` (Flattrade's change log,
 *   Shoonya's page): {@link NorenDialect}. `s` is `Ok`/`OK` or `Not_Ok` (compared ignoring case).
 * - Touchline: `{"t":"t","k":"NSE|22#NFO|43651"}` → `tk` per scrip, then `tf`; unsubscribe `u`
 *   (ack `uk`). Depth: `d` → `dk`, then `df`; unsubscribe `ud` (ack `udk`).
 * - Fields (all strings): `e` exchange, `tk` token, `lp` LTP, `pc` % change, `o` `h` `l` `c` (the
 *   close), `v` volume, `ap` average price, `oi`, `ltq`, `ltt`, `tbq`, `tsq`, `ft` feed time,
 *   `bp1..5`/`sp1..5` prices, `bq1..5`/`sq1..5` quantities, `bo1..5`/`so1..5` orders.
 * - Heartbeat: `{"t":"h"}` every 30 s (Flattrade's Heartbeat page; OpenAlgo's clients), acked `hk`.
 */
import type { DepthLevel, Tick } from '../feed.types.js';

/** The connect request and its answer: `c`/`susertoken`/`ck` (TP endpoints) or `a`/`accesstoken`/`ak`. */
export type NorenDialect = 'susertoken' | 'accesstoken';

/** A Noren subscription kind: touchline (LTP and Quote) or depth. */
export type NorenKind = 't' | 'd';

/** The request `t` of each kind, to subscribe and to unsubscribe. */
export const NOREN_REQUEST: Readonly<Record<NorenKind, { subscribe: string; unsubscribe: string }>> = {
  t: { subscribe: 't', unsubscribe: 'u' },
  d: { subscribe: 'd', unsubscribe: 'ud' },
};

/** The text of the connect request. */
export function norenConnect(dialect: NorenDialect, uid: string, actid: string, token: string): string {
  return dialect === 'susertoken'
    ? JSON.stringify({ t: 'c', uid, actid, source: 'API', susertoken: token })
    : JSON.stringify({ t: 'a', uid, actid, source: 'API', accesstoken: token });
}

/** The `t` of the connect acknowledgement in a dialect. */
export const connectAck = (dialect: NorenDialect): string => (dialect === 'susertoken' ? 'ck' : 'ak');

/** A (un)subscribe request: `{"t":…,"k":"EXCH|token#EXCH|token"}`. */
export function norenRequest(t: string, scrips: readonly string[]): string {
  return JSON.stringify({ t, k: scrips.join('#') });
}

/** The heartbeat request. */
export const NOREN_HEARTBEAT = JSON.stringify({ t: 'h' });

/** A scrip key `EXCH|token`, or undefined when either part could break the `k` list. */
export function scripKey(brexchange: string, token: string): string | undefined {
  const bad = (s: string) => s === '' || /[|#\s]/.test(s);
  return bad(brexchange) || bad(token) ? undefined : `${brexchange}|${token}`;
}

/** One text frame read. */
export type NorenFrame =
  | { kind: 'connect'; t: string; ok: boolean; reason: string | undefined }
  | { kind: 'feed'; t: 'tk' | 'tf' | 'dk' | 'df'; scrip: string; fields: Record<string, string> }
  | { kind: 'other'; t: string | undefined };

/** Reads a text frame (not JSON, or not an object: `other`). */
export function readNorenFrame(text: string, dialect: NorenDialect): NorenFrame {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'other', t: undefined };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return { kind: 'other', t: undefined };
  const o = json as Record<string, unknown>;
  const t = typeof o.t === 'string' ? o.t : undefined;
  if (t === connectAck(dialect)) {
    const s = typeof o.s === 'string' ? o.s : '';
    const reason = typeof o.emsg === 'string' ? o.emsg : s || undefined;
    return { kind: 'connect', t, ok: s.toUpperCase() === 'OK', reason };
  }
  if (
    (t === 'tk' || t === 'tf' || t === 'dk' || t === 'df') &&
    typeof o.e === 'string' &&
    typeof o.tk === 'string'
  ) {
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(o))
      if (typeof v === 'string') fields[k] = v;
      else if (typeof v === 'number') fields[k] = String(v);
    return { kind: 'feed', t, scrip: `${o.e}|${o.tk}`, fields };
  }
  return { kind: 'other', t };
}

/**
 * The snapshot after a frame: an acknowledgement (`tk`, `dk`) replaces it, a feed frame (`tf`, `df`)
 * is merged into it (it carries only the fields that changed).
 */
export function mergeSnapshot(
  snapshot: Readonly<Record<string, string>> | undefined,
  t: 'tk' | 'tf' | 'dk' | 'df',
  fields: Readonly<Record<string, string>>,
): Record<string, string> {
  return t === 'tk' || t === 'dk' ? { ...fields } : { ...snapshot, ...fields };
}

/** A field as a finite number, or null when absent, empty, `-` or not a number. */
function num(fields: Readonly<Record<string, string>>, name: string): number | null {
  const raw = fields[name];
  if (raw === undefined || raw.trim() === '' || raw === '-') return null;
  const n = Number(raw);
  return Number.isFinite(n) ? n : null;
}

/** Epoch ms of a numeric epoch-seconds (below 10^11) or epoch-ms field; null otherwise. */
function epochMs(fields: Readonly<Record<string, string>>, name: string): number | null {
  const raw = fields[name];
  if (raw === undefined || !/^\d+$/.test(raw.trim())) return null;
  const n = Number(raw);
  return n <= 0 ? null : n < 1e11 ? n * 1000 : n;
}

/** The five levels of one side; a level whose price is absent or zero with no quantity is left out. */
function side(fields: Readonly<Record<string, string>>, p: string, q: string, o: string): DepthLevel[] {
  const out: DepthLevel[] = [];
  for (let i = 1; i <= 5; i++) {
    const price = num(fields, `${p}${i}`);
    const quantity = num(fields, `${q}${i}`);
    if (price === null || (price === 0 && !quantity)) continue;
    out.push({ price, quantity, orders: num(fields, `${o}${i}`) });
  }
  return out;
}

/**
 * The tick of a snapshot, or undefined before its LTP is known. `timestamp` is the feed time `ft`
 * (epoch seconds) when numeric, else `now`; `ltt` is read only when it is numeric epoch time (the
 * pages do not give its format). The quote fields come with a touchline or depth snapshot; the
 * book with a depth one.
 */
export function norenTick(
  snapshot: Readonly<Record<string, string>>,
  depth: boolean,
  now: number,
): Tick | undefined {
  const ltp = num(snapshot, 'lp');
  if (ltp === null) return undefined;
  const tick: Tick = {
    ltp,
    ltt: epochMs(snapshot, 'ltt'),
    timestamp: epochMs(snapshot, 'ft') ?? now,
    open: num(snapshot, 'o'),
    high: num(snapshot, 'h'),
    low: num(snapshot, 'l'),
    close: num(snapshot, 'c'),
    volume: num(snapshot, 'v'),
    average_price: num(snapshot, 'ap'),
    last_quantity: num(snapshot, 'ltq'),
    total_buy_quantity: num(snapshot, 'tbq'),
    total_sell_quantity: num(snapshot, 'tsq'),
    oi: num(snapshot, 'oi'),
  };
  if (depth) tick.depth = { buy: side(snapshot, 'bp', 'bq', 'bo'), sell: side(snapshot, 'sp', 'sq', 'so') };
  return tick;
}
