import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { lazyChildLogger } from './lazy-request-logger.js';

function root(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      cb();
    },
  });
  return { logger: pino({ level }, stream), lines };
}

describe('the request logger is built on its first line', () => {
  it('builds no pino child for a request that does not log, and reads the level from the parent', () => {
    const { logger } = root('warn');
    const child = vi.spyOn(logger, 'child');
    const log = lazyChildLogger(logger, { reqId: 'r-1' }, {});
    expect(log.level).toBe('warn');
    expect(child).not.toHaveBeenCalled();
  });

  it('a line carries the request id binding, once built; every level method and child work', () => {
    const { logger, lines } = root('trace');
    const log = lazyChildLogger(logger, { reqId: 'r-2' }, {});
    log.warn({ order: 7 }, 'slow');
    log.info('routine');
    log.child({ module: 'orders' }).error('failed');
    expect(lines.map((l) => [l.reqId, l.msg, l.level])).toEqual([
      ['r-2', 'slow', 40],
      ['r-2', 'routine', 30],
      ['r-2', 'failed', 50],
    ]);
    expect(lines[0]!.order).toBe(7);
    expect(lines[2]!.module).toBe('orders');
  });

  it("a line carries the request's method and URL, masked: no webhook token, no query string", () => {
    const { logger, lines } = root('info');
    const raw = { method: 'POST', url: '/strategy/webhook/whk_SECRET-TOKEN?apikey=SECRET-KEY' };
    const log = lazyChildLogger(logger, { reqId: 'r-4' }, {}, raw);
    log.warn('strategy not found');
    expect(lines[0]).toMatchObject({
      reqId: 'r-4',
      method: 'POST',
      url: '/strategy/webhook/[redacted]',
      msg: 'strategy not found',
    });
    expect(JSON.stringify(lines)).not.toContain('SECRET');
  });

  it('a level set on the request logger applies to it alone', () => {
    const { logger, lines } = root('info');
    const log = lazyChildLogger(logger, { reqId: 'r-3' }, {});
    log.level = 'error';
    log.warn('hidden');
    logger.warn('parent still warns');
    expect(log.level).toBe('error');
    expect(lines.map((l) => l.msg)).toEqual(['parent still warns']);
  });
});
