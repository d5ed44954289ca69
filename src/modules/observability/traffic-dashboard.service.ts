/**
 * The traffic dashboard (docs/rules/web.md#traffic-page): the filtered, paged request list and
 * the window's overview — status classes, busiest paths and client addresses, requests and errors
 * per minute or hour. Paths are read as stored, so webhook tokens are already masked
 * (traffic.service.ts `trafficPath`).
 */
import type { Clock } from '../../platform/clock.js';
import { badRequest } from '../../platform/errors.js';
import type {
  StatusClasses,
  TrafficBucketRow,
  TrafficDashboardRepository,
  TrafficFilter,
  TrafficTopRow,
} from './traffic-dashboard.repository.js';
import type { TrafficRow } from './traffic.repository.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export type TrafficBucket = 'minute' | 'hour';
export const BUCKET_MS: Record<TrafficBucket, number> = { minute: MINUTE, hour: HOUR };
/** Minute buckets cover at most this long a window (2,880 points); beyond it, hours. */
export const MAX_MINUTE_WINDOW_MS = 2 * DAY;
/** Windows up to this long default to minute buckets, longer ones to hour buckets. */
export const MINUTE_DEFAULT_WINDOW_MS = 6 * HOUR;

export interface TrafficOverview {
  since: number;
  until: number;
  status_classes: StatusClasses;
  top_paths: TrafficTopRow[];
  top_ips: TrafficTopRow[];
  bucket: TrafficBucket;
  bucket_ms: number;
  /** Buckets with any request, oldest first; a missing bucket had none. */
  points: TrafficBucketRow[];
}

export class TrafficDashboard {
  constructor(
    private readonly repo: TrafficDashboardRepository,
    private readonly clock: Clock,
  ) {}

  /** One page of the filtered requests, newest first, and how many match in all. */
  async requests(
    filter: TrafficFilter,
    limit: number,
    offset: number,
  ): Promise<{ rows: TrafficRow[]; total: number }> {
    const [rows, total] = await Promise.all([this.repo.page(filter, limit, offset), this.repo.count(filter)]);
    return { rows, total };
  }

  /**
   * The overview of the window from `since` (default: the last 24 hours) to now. The bucket is
   * the one asked for, else minutes for a window of up to 6 hours and hours beyond; minute
   * buckets over more than 2 days are refused (400), so a chart never gets thousands of points.
   */
  async overview(opts: { since?: number | undefined; bucket?: TrafficBucket | undefined; top: number }) {
    const until = this.clock.now();
    const since = opts.since ?? until - DAY;
    const window = until - since;
    const bucket = opts.bucket ?? (window <= MINUTE_DEFAULT_WINDOW_MS ? 'minute' : 'hour');
    if (bucket === 'minute' && window > MAX_MINUTE_WINDOW_MS)
      throw badRequest('Minute buckets cover at most 2 days; ask for hour buckets', {
        bucket: ['minute buckets cover at most 2 days'],
      });
    const [status_classes, top_paths, top_ips, points] = await Promise.all([
      this.repo.statusClasses(since),
      this.repo.top('path', since, opts.top),
      this.repo.top('ip', since, opts.top),
      this.repo.series(since, BUCKET_MS[bucket]),
    ]);
    const overview: TrafficOverview = {
      since,
      until,
      status_classes,
      top_paths,
      top_ips,
      bucket,
      bucket_ms: BUCKET_MS[bucket],
      points,
    };
    return overview;
  }
}
