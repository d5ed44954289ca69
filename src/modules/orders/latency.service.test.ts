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

  it('writes every field of thousands of samples, in order, as its buffer grows', async () => {
    const rows: unknown[] = [];
    const repo = {
      insertLatency: (batch: unknown[]) => {
        rows.push(...batch);
        return Promise.resolve();
      },
    } as unknown as OrdersRepository;
    const clock = new FakeClock(1_000);
    const latency = new LatencyService(repo, clock, pino({ level: 'silent' }));
    const n = 2_500;
    for (let i = 0; i < n; i++) {
      clock.advance(2);
      latency.record({
        label: 'PLACE',
        userId: i % 5 === 0 ? null : i,
        broker: i % 2 === 0 ? 'zerodha' : 'upstox',
        symbol: i === 7 ? 'X'.repeat(80) : `SYM${i}`,
        orderId: i % 3 === 0 ? null : `ord-${i}`,
        status: i % 4 === 0 ? 'failed' : 'success',
        totalMs: i + 0.5,
        brokerMs: i / 4,
        validationMs: 0.25,
      });
    }
    await latency.flush();
    expect(rows).toEqual(
      Array.from({ length: n }, (_, i) => ({
        label: 'PLACE',
        user_id: i % 5 === 0 ? null : i,
        broker: i % 2 === 0 ? 'zerodha' : 'upstox',
        symbol: i === 7 ? 'X'.repeat(64) : `SYM${i}`,
        order_id: i % 3 === 0 ? null : `ord-${i}`,
        status: i % 4 === 0 ? 'failed' : 'success',
        total_ms: i + 0.5,
        broker_ms: i / 4,
        validation_ms: 0.25,
        overhead_ms: Math.max(0, i + 0.5 - i / 4 - 0.25),
        created_at: 1_000 + 2 * (i + 1),
      })),
    );
    await latency.flush();
    expect(rows).toHaveLength(n);
  });

  it('past 10,000 unwritten samples new ones are dropped and counted', () => {
    const { repo } = fakeRepo();
    const latency = new LatencyService(repo, new FakeClock(0), pino({ level: 'silent' }));
    for (let i = 0; i < 10_005; i++) latency.record(sample(i));
    expect(latency.dropped).toBe(5);
  });
});
