/** The process metrics: one registry per process, with the event-loop lag and the process's own. */
import { describe, expect, it } from 'vitest';
import { processRegistry } from './process-metrics.js';

describe('process metrics', () => {
  it('has the event-loop lag, GC and process metrics', async () => {
    const text = await processRegistry().metrics();
    for (const name of [
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_gc_duration_seconds',
      'process_cpu_user_seconds_total',
      'nodejs_heap_size_used_bytes',
    ])
      expect(text).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
  });

  it('is one registry for the process, however many apps ask', () => {
    expect(processRegistry()).toBe(processRegistry());
  });
});
