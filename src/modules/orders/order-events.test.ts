import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { OrderEventBus, type OrderEvent } from './order-events.js';

const event = (n: number): OrderEvent => ({
  name: 'order.placed',
  mode: 'live',
  userId: 1,
  apiType: 'placeorder',
  broker: 'zerodha',
  orderId: String(n),
  statusCode: 200,
  request: {},
  response: {},
  at: n,
});

function capture() {
  const lines: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (l: string) => void lines.push(l) });
  return { lines, logger };
}

describe('order events are dispatched by 10 workers with a pending queue of 1000', () => {
  it('publish returns before any consumer runs', () => {
    const bus = new OrderEventBus({ logger: capture().logger });
    let ran = false;
    bus.subscribe('c', () => {
      ran = true;
    });
    expect(bus.publish(event(1))).toBe(true);
    expect(ran).toBe(false);
  });

  it('10 events run at once, 1000 wait, the 1001st waiting one is dropped, counted and logged', async () => {
    const { lines, logger } = capture();
    const bus = new OrderEventBus({ logger });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started = 0;
    const seen: string[] = [];
    bus.subscribe('slow', async (e) => {
      started++;
      await gate;
      seen.push(e.orderId!);
    });
    for (let i = 0; i < 1010; i++) expect(bus.publish(event(i))).toBe(true);
    expect(bus.publish(event(1010))).toBe(false);
    expect(bus.publish(event(1011))).toBe(false);
    await new Promise((r) => setImmediate(r));
    expect([bus.running, bus.pending, started, bus.dropped]).toEqual([10, 1000, 10, 2]);
    expect(lines.filter((l) => l.includes('order event dropped'))).toHaveLength(2);
    release();
    await bus.whenIdle();
    expect(seen).toHaveLength(1010);
    expect(new Set(seen)).toEqual(new Set(Array.from({ length: 1010 }, (_, i) => String(i))));
    expect(bus.delivered).toBe(1010);
  });

  it('a failing consumer is logged and the others still receive the event', async () => {
    const { lines, logger } = capture();
    const bus = new OrderEventBus({ logger });
    const got: string[] = [];
    bus.subscribe('broken', () => {
      throw new Error('disk full');
    });
    bus.subscribe('ok', (e) => void got.push(e.orderId!));
    bus.publish(event(7));
    await bus.whenIdle();
    expect(got).toEqual(['7']);
    expect(lines.some((l) => l.includes('order event consumer failed') && l.includes('broken'))).toBe(true);
  });
});
