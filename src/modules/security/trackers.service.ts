import type { Logger } from 'pino';
import type { Clock } from '../../platform/clock.js';
import { isInternal } from '../../platform/client-ip.js';
import { maskUrl } from '../../platform/logger.js';
import type { BanService } from './ban.service.js';
import type { SecuritySettingsService } from './security-settings.service.js';
import type { TrackerKind, TrackersRepository, TrackerState } from './trackers.repository.js';
import { TRACKED_404_PATHS, TRACKED_KEY_DIGESTS, TRACKER_WINDOW_MS } from '../../domain/limits.js';

/** Pending tracker events are written at least this often, off the request path. */
export const TRACKER_FLUSH_MS = 1_000;
const CAPS: Record<TrackerKind, number> = { '404': TRACKED_404_PATHS, apikey: TRACKED_KEY_DIGESTS };
/** Bound on addresses buffered between flushes: a flood from many addresses cannot grow memory. */
const MAX_PENDING_IPS = 10_000;

/** Browser and crawler noise that is not an attack: never counted as a 404. */
const NOISE =
  /^\/(favicon[^/]*|robots\.txt|sitemap[^/]*\.xml|apple-touch-icon[^/]*|manifest\.json|site\.webmanifest|browserconfig\.xml|ads\.txt|humans\.txt|\.well-known\/.*)$/i;

export function isBrowserNoise(path: string): boolean {
  return NOISE.test(path.split('?')[0] ?? path);
}

interface Pending {
  count: number;
  items: Set<string>;
}

/**
 * The two abuse trackers. Requests only add to an in-memory buffer; a timer writes it to the
 * database in one transaction per address and applies the automatic-ban rule, so no request
 * waits for a tracker write.
 */
export class TrackersService {
  private readonly pending: Record<TrackerKind, Map<string, Pending>> = {
    '404': new Map(),
    apikey: new Map(),
  };
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  /** Automatic-ban thresholds as of the last flush; undefined while automatic banning is off. */
  private thresholds: Record<TrackerKind, number> | undefined;
  /** Stored count per address as of the last flush (bounded), to see a threshold coming. */
  private readonly stored: Record<TrackerKind, Map<string, number>> = { '404': new Map(), apikey: new Map() };
  private urgent = false;

  constructor(
    private readonly repo: TrackersRepository,
    private readonly bans: BanService,
    private readonly settings: SecuritySettingsService,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** A 404 from a client without a session (browser noise excluded). */
  record404(ip: string, url: string): void {
    const path = maskUrl(url);
    if (isBrowserNoise(path)) return;
    this.add('404', ip, path.slice(0, 512));
  }

  /** An invalid API key presented on `/api/v1/*`, by its digest (never the key). */
  recordInvalidKey(ip: string, keyDigest: string): void {
    this.add('apikey', ip, keyDigest);
  }

  private add(kind: TrackerKind, ip: string, item: string): void {
    const map = this.pending[kind];
    let p = map.get(ip);
    if (p === undefined) {
      if (map.size >= MAX_PENDING_IPS) return;
      p = { count: 0, items: new Set() };
      map.set(ip, p);
    }
    p.count++;
    if (p.items.size < CAPS[kind]) p.items.add(item);
    // A flood must be banned at its threshold, not a whole flush interval later: when this
    // address reaches it, write now (still asynchronously, never on this request).
    const threshold = this.thresholds?.[kind];
    if (!this.urgent && threshold !== undefined && p.count + (this.stored[kind].get(ip) ?? 0) >= threshold) {
      this.urgent = true;
      void this.flush().finally(() => (this.urgent = false));
    }
  }

  start(): void {
    void this.refreshThresholds();
    this.timer = setInterval(() => void this.flush(), TRACKER_FLUSH_MS);
    this.timer.unref();
  }

  /** Stops the timer and writes what is pending (graceful shutdown). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /** Writes pending events and bans addresses that reached a threshold. Serialised. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.flushOnce());
    return this.flushing;
  }

  private async refreshThresholds(): Promise<Awaited<ReturnType<SecuritySettingsService['get']>>> {
    const s = await this.settings.get();
    this.thresholds = s.security_auto_ban_enabled
      ? { '404': s.security_404_threshold, apikey: s.security_api_threshold }
      : undefined;
    return s;
  }

  private async flushOnce(): Promise<void> {
    const batches = (['404', 'apikey'] as const).map((kind) => {
      const entries = [...this.pending[kind]];
      this.pending[kind].clear();
      return { kind, entries };
    });
    // Thresholds are refreshed on every tick (the settings read is cached), so a change made on
    // any instance arms the immediate flush here within seconds.
    const settings = await this.refreshThresholds();
    if (batches.every((b) => b.entries.length === 0)) return;
    const now = this.clock.now();
    for (const { kind, entries } of batches) {
      for (const [ip, p] of entries) {
        try {
          const state = await this.repo.add(kind, ip, p.count, [...p.items], now, TRACKER_WINDOW_MS);
          if (this.stored[kind].size >= MAX_PENDING_IPS) this.stored[kind].clear();
          this.stored[kind].set(ip, state.count);
          await this.maybeBan(kind, state, settings);
        } catch (err) {
          this.log.warn({ err, ip, tracker: kind }, 'tracker write failed');
        }
      }
    }
  }

  private async maybeBan(
    kind: TrackerKind,
    state: TrackerState,
    s: Awaited<ReturnType<SecuritySettingsService['get']>>,
  ) {
    if (!s.security_auto_ban_enabled || isInternal(state.ip)) return;
    const threshold = kind === '404' ? s.security_404_threshold : s.security_api_threshold;
    if (state.count < threshold) return;
    if ((await this.bans.isBanned(state.ip)) === true) return;
    const hours = kind === '404' ? s.security_404_ban_duration : s.security_api_ban_duration;
    const reason =
      kind === '404'
        ? `Automatic: ${state.count} not-found requests within 24 h (threshold ${threshold})`
        : `Automatic: ${state.count} invalid API keys within 24 h (threshold ${threshold})`;
    const row = await this.bans.autoBan(state.ip, reason, hours, s.security_repeat_offender_limit);
    if (row) {
      this.log.warn(
        { ip: state.ip, tracker: kind, ban_count: row.ban_count, permanent: row.expires_at === null },
        'IP banned automatically',
      );
    }
  }

  list(kind: TrackerKind, limit = 500) {
    return this.repo.list(kind, this.clock.now(), TRACKER_WINDOW_MS, limit);
  }

  clear(kind: TrackerKind, ip: string) {
    this.pending[kind].delete(ip);
    this.stored[kind].delete(ip);
    return this.repo.clear(kind, ip);
  }

  purge() {
    return this.repo.purge(this.clock.now(), TRACKER_WINDOW_MS);
  }
}
