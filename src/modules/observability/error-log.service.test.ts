import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../platform/clock.js';
import type { ErrorLogRepository } from './error-log.repository.js';
import { ErrorLogService } from './error-log.service.js';
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

describe("request context of stored records: the request's method and masked URL on its lines", () => {
  it('a line of a request is stored with its method and masked path, never the token or the query', async () => {
    const { errors, stored } = service();
    errors.captureLine(
      JSON.stringify({
        level: 40,
        reqId: 'r-1',
        method: 'POST',
        url: '/strategy/webhook/whk_SECRET-TOKEN?apikey=SECRET-KEY',
        msg: 'slow',
      }),
    );
    const rows = await stored();
    expect(rows).toEqual([{ id: 'r-1', method: 'POST', path: '/strategy/webhook/[redacted]' }]);
    expect(JSON.stringify(rows)).not.toContain('SECRET');
  });

  it('a line without them has the request id only', async () => {
    const { warn, stored } = service();
    warn('r-2');
    expect(await stored()).toEqual([{ id: 'r-2', method: null, path: null }]);
  });
});
