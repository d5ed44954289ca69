/**
 * The market admin routes (`/admin/api/freeze`, `/holidays`, `/timings`, `/stats`) are an
 * administrator's: anonymous requests get 401, other users 403, and writes without the CSRF token
 * are refused and change nothing. On each database, through the real app.
 */
import { describe, expect, it } from 'vitest';
import { multipart, NSE_CSV, useMarketAdmin } from '../helpers/market-admin-world.js';
import { createUser, describeEachDb, login } from '../helpers/test-app.js';

describeEachDb('market admin', (dialect) => {
  const w = useMarketAdmin(dialect);
  const { send, file, freezeRows } = w;

  describe('access: administrator session, CSRF on writes', () => {
    const routes: Array<['GET' | 'POST' | 'PUT' | 'DELETE', string, object?]> = [
      ['GET', '/admin/api/freeze'],
      ['POST', '/admin/api/freeze', { exchange: 'NFO', symbol: 'NIFTY', freeze_qty: 1800 }],
      ['PUT', '/admin/api/freeze/1', { freeze_qty: 5 }],
      ['DELETE', '/admin/api/freeze/1'],
      ['POST', '/admin/api/freeze/upload', {}],
      ['GET', '/admin/api/holidays?year=2026'],
      ['POST', '/admin/api/holidays', { holiday_date: '2026-07-01', description: 'x', exchanges: ['NSE'] }],
      ['DELETE', '/admin/api/holidays/1'],
      ['GET', '/admin/api/timings'],
      ['PUT', '/admin/api/timings/NSE', { start_time: '09:00', end_time: '15:00' }],
      ['POST', '/admin/api/timings/check', { date: '2026-01-05' }],
      ['GET', '/admin/api/stats'],
    ];

    it('anonymous requests get 401 on every route', async () => {
      for (const [method, url, payload] of routes) {
        const r = await w.t.app.inject({ method, url, ...(payload ? { payload } : {}) });
        expect(r.statusCode, `${method} ${url}`).toBe(401);
        expect(r.json()).toMatchObject({ status: 'error', code: 'session_required' });
      }
    });

    it('a logged-in user who is not an administrator gets 403 on every route', async () => {
      await createUser(w.t, 'bob');
      const bob = await login(w.t, 'bob');
      for (const [method, url, payload] of routes) {
        const r = await send(method, url, payload, bob);
        expect(r.statusCode, `${method} ${url}`).toBe(403);
        expect(r.json().message).toBe('Administrator access required');
      }
    });

    it('writes without the CSRF token are refused and change nothing', async () => {
      for (const [method, url, payload] of routes.filter(([m]) => m !== 'GET')) {
        const r = await w.t.app.inject({
          method,
          url,
          headers: { cookie: w.admin.cookie },
          payload: payload ?? {},
        });
        expect(r.statusCode, `${method} ${url}`).toBe(403);
        expect(r.json().code).toBe('csrf_failed');
      }
      const m = multipart(file(NSE_CSV));
      const r = await w.t.app.inject({
        method: 'POST',
        url: '/admin/api/freeze/upload',
        payload: m.payload,
        headers: { ...m.headers, cookie: w.admin.cookie, 'x-csrf-token': 'wrong' },
      });
      expect(r.statusCode).toBe(403);
      expect(await freezeRows()).toHaveLength(0);
    });
  });
});
