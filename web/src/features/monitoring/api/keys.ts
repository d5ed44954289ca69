/**
 * The query keys of the monitoring pages (docs/rules/web.md#traffic-page,
 * docs/rules/web.md#latency-page), by window and filter.
 */
export const monitoringKeys = {
  trafficStats: (hours: string) => ['traffic', 'stats', hours] as const,
  trafficRequests: (query: string) => ['traffic', 'requests', query] as const,
  latencyStats: (hours: string) => ['latency', 'stats', hours] as const,
  latencyLogs: () => ['latency', 'logs'] as const,
};

/** How often the monitoring pages ask again. */
export const MONITORING_REFRESH_MS = 30_000;
