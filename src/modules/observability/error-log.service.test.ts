import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../platform/clock.js';
import type { ErrorLogRepository } from './error-log.repository.js';
import { ERROR_LOG_LIMITS, ErrorLogService } from './error-log.service.js';
import type { ErrorEntry } from './error-record.js';

/** A service whose writer keeps the rows it would insert. */
function service() {
  const rows: ErrorEntry[] = [];
  const repo = {
    insert: (entries: readonly ErrorEntry[]) => {
      rows.push(...entries);
      return Promise.resolve();
    },
    prune: () => Promise.resolve(),
  } as unknown as ErrorLogRepository;
  const errors = new ErrorLogService(repo, new FakeClock(), pino({ level: 'silent' }));
  const warn = (reqId: string, msg = 'slow') => errors.captureLine(JSON.stringify({ level: 40, reqId, msg }));
  const stored = async () => {
    await errors.flush();
    return rows.map((r) => ({ id: r.request_id, method: r.method, path: r.path }));
  };
  return { errors, warn, stored };
}

describe('request context of stored records: kept from onRequest to onResponse, bounded', () => {
  it('a record logged while its request is in flight carries the method and the masked path', async () => {
    const { errors, warn, stored } = service();
    errors.requestStarted('r-1', 'POST', '/strategy/webhook/whk_SECRET-TOKEN?apikey=SECRET-KEY');
    warn('r-1');
    expect(await stored()).toEqual([{ id: 'r-1', method: 'POST', path: '/strategy/webhook/[redacted]' }]);
  });

  it('after the response the request is forgotten: a later record has the id only', async () => {
    const { errors, warn, stored } = service();
    errors.requestStarted('r-1', 'GET', '/admin/api/system');
    expect(errors.inFlightCount).toBe(1);
    errors.requestEnded('r-1');
    expect(errors.inFlightCount).toBe(0);
    warn('r-1');
    expect(await stored()).toEqual([{ id: 'r-1', method: null, path: null }]);
  });

  it('never holds more than the bound: the oldest request goes first', async () => {
    const { errors, warn, stored } = service();
    const max = ERROR_LOG_LIMITS.inFlightRequests;
    for (let i = 0; i <= max; i++) errors.requestStarted(`r-${i}`, 'GET', `/p/${i}`);
    expect(errors.inFlightCount).toBe(max);
    warn('r-0');
    warn(`r-${max}`);
    expect(await stored()).toEqual([
      { id: 'r-0', method: null, path: null },
      { id: `r-${max}`, method: 'GET', path: `/p/${max}` },
    ]);
  });
});
