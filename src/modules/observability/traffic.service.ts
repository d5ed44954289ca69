import ipaddr from 'ipaddr.js';
import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import { Columns } from '../../platform/columns.js';
import { maskUrl } from '../../platform/logger.js';
import type { NewTrafficRow, TrafficGroupStats, TrafficRepository } from './traffic.repository.js';

/**
 * Buffered requests are written at least this often, off the request path. A flush normalises
 * and copies its entries to the writer thread on the event loop: ten small flushes a second stall
 * a request in flight far less than one of a whole second's requests (ping p99 7.6 ms against
 * 9.6 on average over four alternating runs).
 */
export const TRAFFIC_FLUSH_MS = 100;
/**
 * A flush also starts, on the next turn of the event loop, once this many requests wait: at 40,000
 * requests a second a 100 ms buffer is 4,000 entries, whose normalising and copying held the event
 * loop for ~2 ms in one piece, so every request in flight then waited that long (a ping's p99).
 * 250, not 1,000: the shorter stalls, four times as often, touch fewer requests past the 99th
 * percentile (ping p99 1.57–1.60× the bare baseline's against 2.06–2.27× in alternated runs; 100
 * rows gave 1.63–1.70×).
 */
export const TRAFFIC_FLUSH_ROWS = 250;
/** Default bound on buffered requests: a flood cannot grow memory, it loses the oldest entries. */
export const TRAFFIC_BUFFER_MAX = 50_000;
/** Default retention of stored requests. */
export const TRAFFIC_RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;
/** URLs longer than this are cut when recorded; the stored path keeps 512 characters anyway. */
const MAX_URL = 1_024;
/** Longest Host header that can still normalise: 253-character name + `.` + `:65535`. */
const MAX_HOST_HEADER = 260;

/** What the response hook knows about a request. Normalised at flush time, not on the request. */
export interface TrafficEntry {
  ip: string;
  method: string;
  /** The raw request URL; masked before it is stored. */
  url: string;
  /** The matched route's pattern (`req.routeOptions.url`), undefined when no route matched. */
  routeUrl: string | undefined;
  status: number;
  durationMs: number;
  /** The raw Host header; validated before it is stored. */
  host: string | undefined;
  userId?: number | null | undefined;
}

/** The fields of an entry that are not numbers (buffered as references). */
type EntryRefs = Pick<TrafficEntry, 'ip' | 'method' | 'url' | 'routeUrl' | 'host'>;
const NUMBERS = ['status', 'durationMs', 'userId', 'ts'] as const;
const REFS = ['ip', 'method', 'url', 'routeUrl', 'host'] as const;

/** The traffic dashboard's numbers; `totals` are derived from the groups. */
export interface TrafficStats {
  since: number;
  totals: { requests: number; errors: number; server_errors: number; avg_ms: number };
  groups: TrafficGroupStats[];
}

/**
 * The dashboard group of a request: the matched route's pattern, parameters kept as written
 * (`/strategy/webhook/:token`), so a token in the path never reaches the group; `(unmatched)`
 * when no route matched. The group depends only on the route table, never on client text:
 * `method` and `path` are accepted so the caller passes the request as it is, and ignored.
 */
export function endpointGroup(_method: string, routeUrl: string | undefined, _path: string): string {
  if (routeUrl === undefined || routeUrl === '') return '(unmatched)';
  return routeUrl.length <= 64 ? routeUrl : routeUrl.slice(0, 64);
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const DOTTED_QUAD = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const PORT = /^\d{0,5}$/;
const IPV6_CHARS = /^[0-9a-f:.]*:[0-9a-f:.]*$/;

/**
 * The Host header as stored and matched by host bans: lower-case, port dropped, one trailing dot
 * dropped, and only an RFC 1123 host name, a dotted-quad IPv4 or a bracketed IPv6 address (in
 * canonical form) passes; anything else is undefined. Never longer than 255 characters.
 */
export function normaliseHost(hostHeader: string | undefined): string | undefined {
  if (hostHeader === undefined || hostHeader.length === 0 || hostHeader.length > MAX_HOST_HEADER)
    return undefined;
  const h = hostHeader.toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    const port = h.slice(end + 1);
    if (end < 0 || (port !== '' && !(port.startsWith(':') && validPort(port.slice(1))))) return undefined;
    const inner = h.slice(1, end);
    // Zone ids (`%eth0`) are local to the client and not valid in a Host header.
    if (!IPV6_CHARS.test(inner) || !ipaddr.IPv6.isValid(inner)) return undefined;
    return `[${ipaddr.IPv6.parse(inner).toString()}]`;
  }
  const colon = h.indexOf(':');
  if (colon >= 0 && !validPort(h.slice(colon + 1))) return undefined;
  let name = colon >= 0 ? h.slice(0, colon) : h;
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name.length === 0 || name.length > 253) return undefined;
  const labels = name.split('.');
  if (!labels.every((l) => LABEL.test(l))) return undefined;
  // A top-level label is never all digits, so such a name must be a valid IPv4 address.
  if (/^\d+$/.test(labels[labels.length - 1]!) && !DOTTED_QUAD.test(name)) return undefined;
  return name;
}

function validPort(p: string): boolean {
  return PORT.test(p) && (p === '' || Number(p) <= 65_535);
}

/**
 * The path as stored: {@link maskUrl} (query dropped, the segment after any spelling of a webhook
 * segment masked), control characters as `?` (PostgreSQL text cannot hold NUL), at most 512
 * characters.
 */
export function trafficPath(url: string): string {
  const path = maskUrl(url);
  // eslint-disable-next-line no-control-regex
  return path.replace(/[\u0000-\u001f\u007f]/g, '?').slice(0, 512);
}

/** A fresh copy of a long string: a slice would keep the whole original alive in the buffer. */
function capped(s: string, max: number): string {
  return s.length <= max ? s : Buffer.from(s.slice(0, max), 'utf8').toString('utf8');
}

/**
 * The traffic log: one row per request. `record` only pushes into a bounded in-memory ring; a
 * timer normalises and writes the buffer in multi-row inserts, so no request waits for the
 * database. When the buffer is full the oldest entries are dropped and counted.
 */
export class TrafficLogService {
  /**
   * The ring, column by column (platform/columns.ts: an entry held until the next flush is no
   * object for the young-generation GC to copy); a null or absent user is NaN.
   */
  private ring: Columns<(typeof NUMBERS)[number], EntryRefs>;
  private head = 0;
  private size = 0;
  private droppedTotal = 0;
  private droppedSinceFlush = 0;
  private failedTotal = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly max: number;
  private readonly retentionMs: number;

  constructor(
    private readonly repo: TrafficRepository,
    private readonly clock: Clock,
    private readonly log: Pick<Logger, 'warn'>,
    opts: { retentionDays?: number; maxBuffer?: number } = {},
  ) {
    this.max = Math.max(1, opts.maxBuffer ?? TRAFFIC_BUFFER_MAX);
    this.ring = new Columns(NUMBERS, REFS, this.max, 1_024);
    this.retentionMs = (opts.retentionDays ?? TRAFFIC_RETENTION_DAYS) * DAY_MS;
  }

  /** Buffers one request (no I/O). Called from the response hook of every request. */
  record(entry: TrafficEntry): void {
    const host = entry.host !== undefined && entry.host.length > MAX_HOST_HEADER ? undefined : entry.host;
    let i: number;
    if (this.size < this.max) {
      // The ring wraps only once full at its maximum, so below it the rows start at `head`, in order.
      if (this.size === this.ring.capacity && this.ring.grow(this.head, this.size)) this.head = 0;
      i = (this.head + this.size) % this.ring.capacity;
      this.size++;
      if (this.size === TRAFFIC_FLUSH_ROWS && this.timer !== undefined) setImmediate(this.flushSoon);
    } else {
      i = this.head;
      this.head = (this.head + 1) % this.max;
      this.droppedTotal++;
      this.droppedSinceFlush++;
    }
    const r = this.ring;
    r.num('status')[i] = entry.status;
    r.num('durationMs')[i] = entry.durationMs;
    r.num('userId')[i] = entry.userId ?? NaN;
    r.num('ts')[i] = this.clock.now();
    r.ref('ip')[i] = entry.ip;
    r.ref('method')[i] = entry.method;
    r.ref('url')[i] = capped(entry.url, MAX_URL);
    r.ref('routeUrl')[i] = entry.routeUrl;
    r.ref('host')[i] = host;
  }

  private readonly flushSoon = () => void this.flush();

  /** Entries waiting for the next flush. */
  get pending(): number {
    return this.size;
  }

  /** Entries lost because the buffer was full, since start. */
  get dropped(): number {
    return this.droppedTotal;
  }

  /** Entries lost because a write failed, since start. */
  get failed(): number {
    return this.failedTotal;
  }

  /** Starts the flush timer (unref'd: it never keeps the process alive). */
  start(): void {
    clearInterval(this.timer);
    this.timer = setInterval(this.flushSoon, TRAFFIC_FLUSH_MS);
    this.timer.unref();
  }

  /** Stops the timer and writes what is buffered (graceful shutdown). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** Writes the buffer. Serialised: concurrent calls run one after the other. Never rejects. */
  flush(): Promise<void> {
    // The catch keeps the chain alive: one rejected flush must not stop every later one.
    this.flushing = this.flushing
      .then(() => this.flushOnce())
      .catch((err: unknown) => this.log.warn({ err }, 'traffic log flush failed'));
    return this.flushing;
  }

  /** The buffer as rows to store, emptied (its entries are garbage as soon as this returns). */
  private drain(): NewTrafficRow[] {
    const r = this.ring;
    const out = new Array<NewTrafficRow>(this.size);
    for (let k = 0; k < this.size; k++) {
      const j = (this.head + k) % r.capacity;
      out[k] = toRow(r, j);
      r.release(j);
    }
    this.head = 0;
    this.size = 0;
    return out;
  }

  private async flushOnce(): Promise<void> {
    if (this.droppedSinceFlush > 0) {
      this.log.warn({ dropped: this.droppedSinceFlush }, 'traffic log buffer full: oldest entries dropped');
      this.droppedSinceFlush = 0;
    }
    if (this.size === 0) return;
    const count = this.size;
    try {
      // Nothing of the batch is held while the write is in flight but its count.
      await this.repo.insertMany(this.drain());
    } catch (err) {
      // Not retried: a database that is down would otherwise pin the buffer at its bound.
      this.failedTotal += count;
      this.log.warn({ err, lost: count }, 'traffic log write failed');
    }
  }

  /** Deletes stored requests older than the retention; returns how many. */
  purge(): Promise<number> {
    return this.repo.deleteOlderThan(this.clock.now() - this.retentionMs);
  }

  /** The newest stored requests first (buffered ones appear after the next flush). */
  recent(opts: { limit: number; since?: number | undefined }) {
    return this.repo.recent(opts);
  }

  /** Per-group numbers and totals since `since` (default: the last 24 hours). */
  async stats(opts: { since?: number | undefined } = {}): Promise<TrafficStats> {
    const since = opts.since ?? this.clock.now() - DAY_MS;
    const groups = await this.repo.stats({ since });
    const requests = groups.reduce((a, g) => a + g.requests, 0);
    const totals = {
      requests,
      errors: groups.reduce((a, g) => a + g.errors, 0),
      server_errors: groups.reduce((a, g) => a + g.server_errors, 0),
      // Weighted by each group's requests: the mean over all requests.
      avg_ms: requests === 0 ? 0 : groups.reduce((a, g) => a + g.avg_ms * g.requests, 0) / requests,
    };
    return { since, totals, groups };
  }

  /** Distinct addresses that sent `host` since `since`; none when `host` is not a valid host. */
  async ipsForHost(host: string, since: number): Promise<string[]> {
    const h = normaliseHost(host);
    return h === undefined ? [] : this.repo.ipsForHost(h, since);
  }
}

/**
 * Hosts and URLs repeat from request to request (one service, a few clients), so their masked
 * and validated forms are memoised: the regular expressions then run once per distinct value.
 * Bounded: cleared whenever it grows past the cap.
 */
const MEMO_MAX = 2_000;
function memo<T>(cache: Map<string, T>, key: string, compute: (k: string) => T): T {
  const hit = cache.get(key);
  if (hit !== undefined || cache.has(key)) return hit as T;
  if (cache.size >= MEMO_MAX) cache.clear();
  const value = compute(key);
  cache.set(key, value);
  return value;
}
const pathMemo = new Map<string, string>();
const hostMemo = new Map<string, string | null>();

/** Row `j` of the buffer as the row to store. */
function toRow(r: Columns<(typeof NUMBERS)[number], EntryRefs>, j: number): NewTrafficRow {
  const url = r.ref('url')[j]!;
  const method = r.ref('method')[j]!;
  const host = r.ref('host')[j];
  const user = r.num('userId')[j]!;
  const path = memo(pathMemo, url, trafficPath);
  return {
    ts: r.num('ts')[j]!,
    ip: r.ref('ip')[j]!.slice(0, 45),
    // varchar(10): UNSUBSCRIBE has 11 letters and one long value must not fail the batch.
    method: method.slice(0, 10),
    path,
    endpoint_group: endpointGroup(method, r.ref('routeUrl')[j], path),
    status: r.num('status')[j]!,
    duration_ms: Math.round(r.num('durationMs')[j]! * 100) / 100,
    host: host === undefined ? null : memo(hostMemo, host, (h) => normaliseHost(h) ?? null),
    user_id: Number.isNaN(user) ? null : user,
  };
}
