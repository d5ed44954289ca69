/**
 * The administrator's monitoring (docs/rules/web.md#traffic-page, docs/rules/web.md#latency-page):
 * the traffic log's figures and requests, and the order latencies' figures and recent orders,
 * over a window of the last `hours` on the server's clock. Each refreshes every 30 seconds and
 * keeps the last answer on screen while the next window loads.

 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { monitoringKeys, MONITORING_REFRESH_MS } from './keys';

export type TrafficStats = Answer<'/logs/api/traffic/stats'>;
export type TrafficList = Answer<'/logs/api/traffic'>;
export type LatencyStats = Answer<'/logs/api/latency/stats'>;
export type LatencySummary = LatencyStats['overall'];

/** `GET /logs/api/latency/logs`: one order's latency. */
/** `GET /logs/api/latency/logs`: one order's latency. */
export type LatencyLog = Answer<'/logs/api/latency/logs'>['data'][number];

const windowed = { placeholderData: keepPreviousData, refetchInterval: MONITORING_REFRESH_MS };

export function useTrafficStats(hours: string) {
  return useQuery({
    queryKey: monitoringKeys.trafficStats(hours),
    queryFn: () =>
      api<TrafficStats>('GET', '/logs/api/traffic/stats?' + new URLSearchParams({ hours }).toString()),
    ...windowed,
  });
}

/** One page of requests; `query` is the window, paging and filters as a query string. */
export function useTrafficRequests(query: string) {
  return useQuery({
    queryKey: monitoringKeys.trafficRequests(query),
    queryFn: () => api<TrafficList>('GET', '/logs/api/traffic?' + query),
    ...windowed,
  });
}

export function useLatencyStats(hours: string) {
  return useQuery({
    queryKey: monitoringKeys.latencyStats(hours),
    queryFn: () =>
      api<LatencyStats>('GET', '/logs/api/latency/stats?' + new URLSearchParams({ hours }).toString()),
    ...windowed,
  });
}

/** The 50 most recent orders' latencies. */
export function useRecentLatencies() {
  return useQuery({
    queryKey: monitoringKeys.latencyLogs(),
    queryFn: () => api<Answer<'/logs/api/latency/logs'>>('GET', '/logs/api/latency/logs?limit=50'),
    refetchInterval: MONITORING_REFRESH_MS,
  });
}
