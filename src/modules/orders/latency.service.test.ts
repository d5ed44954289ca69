import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../platform/clock.js';
import { LatencyService, type LatencySample } from './latency.service.js';
import type { OrdersRepository } from './orders.repository.js';

const sample = (totalMs: number): LatencySample => ({
  label: 'PLACE',
  userId: 1,
  broker: 'zerodha',
  symbol: 'SBIN',
  orderId: null,
  status: 'success',
  totalMs,
  brokerMs: 0,
  validationMs: 0,
});

function fakeRepo() {
  const written: number[][] = [];
  const repo = {
    insertLatency: (rows: { total_ms: number }[]) => {
      written.push(rows.map((r) => r.total_ms));
      return Promise.resolve();
    },
  } as unknown as OrdersRepository;
  return { written, repo };
}

describe('latency samples are written off the request path and none is lost at shutdown', () => {
  it('stop() writes what is buffered; a sample recorded after it (a request still in flight) is written on the next turn', async () => {
    const { written, repo } = fakeRepo();
    const latency = new LatencyService(repo, new FakeClock(0), pino({ level: 'silent' }), 60_000);
    latency.start();
    latency.record(sample(1));
    await latency.stop();
    expect(written).toEqual([[1]]);
    latency.record(sample(2));
    latency.record(sample(3));
    // No timer is left after stop(), and nobody calls flush(): the late samples go on their own.
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    expect(written).toEqual([[1], [2, 3]]);
  });

  it('past 10,000 unwritten samples new ones are dropped and counted', () => {
    const { repo } = fakeRepo();
    const latency = new LatencyService(repo, new FakeClock(0), pino({ level: 'silent' }));
    for (let i = 0; i < 10_005; i++) latency.record(sample(i));
    expect(latency.dropped).toBe(5);
  });
});
