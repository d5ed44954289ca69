import autocannon from 'autocannon';
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import type { BenchRequest } from './types.js';

/** Seconds a single request may take before autocannon counts it as a timeout (an error). */
const REQUEST_TIMEOUT_S = 5;
/** autocannon stops on its own after `duration`; this is the bound if it does not. */
const STOP_GRACE_MS = 10_000;

/** What one side (server or baseline) accumulated over its measured runs. */
export interface SideStats {
  responses: number;
  elapsedMs: number;
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  /** Responses per status code, for reporting non-2xx answers. */
  statusCodes: Map<number, number>;
  /** Response times in microseconds (node's HDR histogram takes integers). */
  latencyUs: RecordableHistogram;
  /**
   * CPU time the side's process used while measured (all threads, and the main thread), in ms;
   * undefined where it cannot be read (no `/proc`).
   */
  cpu: { allMs: number; mainMs: number } | undefined;
}

export function emptyStats(): SideStats {
  return {
    responses: 0,
    elapsedMs: 0,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    statusCodes: new Map(),
    latencyUs: createHistogram(),
    cpu: { allMs: 0, mainMs: 0 },
  };
}

export interface LoadOptions {
  port: number;
  request: BenchRequest;
  connections: number;
  durationS: number;
}

/**
 * Drives `request` at 127.0.0.1:`port` with autocannon for `durationS` seconds and adds what it
 * saw to `stats`. Latencies are recorded per response (not taken from autocannon's summary) so
 * that several runs of one side merge into exact percentiles.
 */
export function runLoad(opts: LoadOptions, stats: SideStats): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const { request } = opts;
    const { paths } = request;
    let clients = 0;
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${opts.port}${request.path}`,
        method: request.method,
        headers: request.headers ?? {},
        body: request.body,
        // Each connection cycles through these (autocannon fills in url, method and headers).
        ...(request.bodies ? { requests: request.bodies.map((body) => ({ body })) } : {}),
        // Connection i (in the order autocannon opens them) takes the i-th of `paths`.
        ...(paths
          ? {
              setupClient: (client: autocannon.Client) => {
                const path = paths[clients++ % paths.length];
                client.setRequests((request.bodies ?? [request.body]).map((body) => ({ body, path })));
              },
            }
          : {}),
        connections: opts.connections,
        duration: opts.durationS,
        pipelining: 1,
        timeout: REQUEST_TIMEOUT_S,
      },
      (err: unknown, result) => {
        clearTimeout(deadline);
        if (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
          return;
        }
        stats.elapsedMs += result.finish.getTime() - result.start.getTime();
        stats.non2xx += result.non2xx;
        stats.errors += result.errors;
        stats.timeouts += result.timeouts;
        resolvePromise();
      },
    );
    instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
      stats.responses++;
      stats.statusCodes.set(statusCode, (stats.statusCodes.get(statusCode) ?? 0) + 1);
      stats.latencyUs.record(Math.max(1, Math.round(responseTimeMs * 1000)));
    });
    const deadline = setTimeout(
      () => {
        instance.stop();
        reject(new Error(`load run did not finish within ${opts.durationS} s + ${STOP_GRACE_MS} ms`));
      },
      opts.durationS * 1000 + STOP_GRACE_MS,
    );
  });
}
