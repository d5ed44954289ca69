/**
 * The feed never goes silent (docs/rules/market-data.md#feed-watchdog): every subscribed
 * instrument whose exchange is in session must tick within `staleMs`. An upstream that stays
 * connected but sends nothing (a dead stream after the overnight token roll, a heartbeat-only
 * connection) is a stall: reported once (`feed_stalled`), the upstream restarted (reconnect and
 * re-subscribe, at most once per `staleMs`), subscribers told, and, when ticks come back,
 * `feed_recovered`. Outside its session an instrument is not expected to tick; the demo sources are
 * not watched (their prices move only when their script or walk says so).
 */
import type { Logger } from 'pino';

export interface WatchdogOptions {
  staleMs: number;
  /** Whether `exchange` is in its trading session at `now` (the market calendar: timings, holidays). */
  inSession(exchange: string, now: number): boolean;
  now(): number;
  /** The upstream is stalled on `keys` (instrument keys): restart it, tell the subscribers. */
  onStall(keys: string[]): void;
  /** Ticks are flowing again on what had stalled. */
  onRecover(keys: string[]): void;
  logger: Logger;
}

export class FeedWatchdog {
  /** Subscribed instrument key → its exchange and when it last ticked (or was subscribed). */
  private readonly watched = new Map<string, { exchange: string; last: number }>();
  private stalled = new Set<string>();
  private lastRestart = -Infinity;
  /** Stalls seen since start (for /metrics and diagnostics). */
  stalls = 0;
  recoveries = 0;

  constructor(private readonly opts: WatchdogOptions) {}

  get status(): 'live' | 'stale' {
    return this.stalled.size > 0 ? 'stale' : 'live';
  }

  get stalledKeys(): readonly string[] {
    return [...this.stalled];
  }

  watch(key: string, exchange: string): void {
    if (!this.watched.has(key)) this.watched.set(key, { exchange, last: this.opts.now() });
  }

  unwatch(key: string): void {
    this.watched.delete(key);
    if (this.stalled.delete(key) && this.stalled.size === 0) this.opts.onRecover([key]);
  }

  /** Forgets every instrument (the upstream is not one the watchdog watches). */
  clear(): void {
    this.watched.clear();
    this.stalled.clear();
  }

  tick(key: string): void {
    const w = this.watched.get(key);
    if (!w) return;
    w.last = this.opts.now();
    if (this.stalled.delete(key)) {
      this.recoveries++;
      this.opts.logger.info({ event: 'feed_recovered', instrument: key }, 'feed_recovered');
      this.opts.onRecover([key]);
    }
  }

  /** One look at every watched instrument; called on a timer. */
  check(): void {
    const now = this.opts.now();
    const fresh: string[] = [];
    for (const [key, w] of this.watched) {
      if (this.stalled.has(key)) continue;
      if (!this.opts.inSession(w.exchange, now)) {
        w.last = now; // the silence of a closed market is not a stall
        continue;
      }
      if (now - w.last >= this.opts.staleMs) fresh.push(key);
    }
    if (fresh.length > 0) {
      for (const k of fresh) this.stalled.add(k);
      this.stalls++;
      this.opts.logger.warn(
        {
          event: 'feed_stalled',
          instruments: fresh.slice(0, 20),
          count: fresh.length,
          staleMs: this.opts.staleMs,
        },
        'feed_stalled',
      );
    }
    if (this.stalled.size > 0 && now - this.lastRestart >= this.opts.staleMs) {
      this.lastRestart = now;
      // Their silence restarts from the reconnect: each gets another full window.
      for (const k of this.stalled) {
        const w = this.watched.get(k);
        if (w) w.last = now;
      }
      this.opts.onStall([...this.stalled]);
    }
  }
}
