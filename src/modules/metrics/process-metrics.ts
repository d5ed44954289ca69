/**
 * The process's own metrics: prom-client's defaults (CPU, memory, heap spaces, handles, file
 * descriptors, GC durations, event-loop lag `nodejs_eventloop_lag_*`).
 *
 * They describe the process, not an app, so they live on one registry per process, made the first
 * time an app with metrics on becomes ready: prom-client starts an event-loop delay monitor and a
 * GC observer for a registry and gives no way to stop them, so one set runs for the process's
 * life however many apps the process builds (a test run builds hundreds), and the CLI, which never
 * starts an app, starts none.
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

let shared: Registry | undefined;

/** The process metrics' registry, made (and its monitors started) on the first call. */
export function processRegistry(): Registry {
  if (!shared) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
  }
  return shared;
}
