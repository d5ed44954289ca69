/**
 * Issue 7 parts 2, 3, 7: strategy management routes (the token shown once, rotation, lock, live
 * switch, cross-user 404s, configuration events), the event trail through
 * `POST /api/v1/strategy/events`, and bad input on every route.
 */
import { afterEach, expect, it } from 'vitest';
import { sha256Hex } from '../../src/platform/crypto.js';
import { createUser, describeEachDb, login } from '../helpers/test-app.js';
import {
  BATCH_PAIR,
  HOST_SERVER,
  SIGNAL_SBIN,
  startStrategies,
  type StrategyHarness,
} from '../helpers/strategies.js';

let h: StrategyHarness;
afterEach(async () => {
  await h?.close();
});

const json = (res: { json(): unknown }) => res.json() as Record<string, unknown>;

describeEachDb('strategy management', (dialect) => {
  it('creates with the token and URL shown once (from HOST_SERVER); only the digest is stored', async () => {
    h = await startStrategies(dialect);
    const { id, token, url, res } = await h.create(SIGNAL_SBIN);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(token).toMatch(/^whk_[A-Za-z0-9_-]{43}$/);
    expect(url).toBe(`${HOST_SERVER}/strategy/webhook/${token}`);
    expect(json(res).data).toMatchObject({
      id,
      name: 'sbin signals',
      kind: 'signal',
      product: 'MIS',
      direction: 'both',
      status: 'idle',
    });
    const stored = await h.t.db.database.db.selectFrom('strategies').selectAll().execute();
    expect(stored[0]!.token_digest).toBe(sha256Hex(token));
    expect(JSON.stringify(stored)).not.toContain(token);
    for (const path of ['', `/${id}`]) {
      const read = await h.manage('GET', path);
      expect(read.statusCode).toBe(200);
      expect(read.body).not.toContain(token);
      expect(read.body).not.toContain('webhook_token');
    }
  });

  it('another user’s strategy is a 404 identical to a missing one, on every route', async () => {
    h = await startStrategies(dialect);
    const { id } = await h.create(SIGNAL_SBIN);
    await createUser(h.t, 'bob', 'bob password 123');
    const bob = await login(h.t, 'bob', 'bob password 123');
    const routes: ['GET' | 'POST' | 'PUT' | 'DELETE', string, object?][] = [
      ['GET', ''],
      ['PUT', '', { name: 'mine now' }],
      ['DELETE', ''],
      ['POST', '/rotate-token'],
      ['POST', '/lock', { locked: true }],
      ['POST', '/live', { enabled: true }],
      ['POST', '/start', { mode: 'sandbox' }],
      ['POST', '/stop'],
      ['GET', '/runs'],
      ['GET', '/events'],
      ['GET', '/deliveries'],
    ];
    for (const [method, suffix, payload] of routes) {
      const foreign = await h.manage(method, `/${id}${suffix}`, payload, bob);
      const missing = await h.manage(method, `/999999${suffix}`, payload, bob);
      expect(foreign.statusCode, `${method} ${suffix}`).toBe(404);
      expect(foreign.body).toBe(missing.body);
    }
    expect(json(await h.manage('GET', '', undefined, bob)).data).toEqual([]);
    expect(json(await h.manage('GET', `/${id}`)).data).toMatchObject({
      name: 'sbin signals',
      webhook_locked: false,
    });
  });

  it('writes a configuration event (run_id null) for every change; names are unique per user', async () => {
    h = await startStrategies(dialect);
    const { id } = await h.create(SIGNAL_SBIN);
    expect((await h.manage('POST', '', SIGNAL_SBIN)).statusCode).toBe(409);
    await h.manage('PUT', `/${id}`, { direction: 'long_only', ip_allowlist: ['10.0.0.1'] });
    await h.manage('POST', `/${id}/lock`, { locked: true });
    await h.manage('POST', `/${id}/lock`, { locked: false });
    await h.manage('POST', `/${id}/live`, { enabled: true });
    await h.manage('POST', `/${id}/rotate-token`);
    const events = json(await h.manage('GET', `/${id}/events`)).data as {
      kind: string;
      run_id: null;
      severity: string;
    }[];
    expect(events.map((e) => e.kind)).toEqual([
      'token_rotated',
      'live_enabled',
      'webhook_unlocked',
      'webhook_locked',
      'strategy_updated',
      'strategy_created',
    ]);
    expect(events.every((e) => e.run_id === null)).toBe(true);
    const view = json(await h.manage('GET', `/${id}`)).data;
    expect(view).toMatchObject({ direction: 'long_only', ip_allowlist: ['10.0.0.1/32'], live_enabled: true });
  });

  it('refuses leg, product and direction changes and deletion while a run is active; deletes once stopped', async () => {
    h = await startStrategies(dialect);
    const { id, token } = await h.create(BATCH_PAIR);
    await h.hook(token, { action: 'start', mode: 'sandbox' });
    // The run's exits must close what its entries opened: another product is another position.
    for (const change of [
      { legs: SIGNAL_SBIN.legs.map((l) => ({ ...l, side: 'BUY' })) },
      { product: 'NRML' },
      { direction: 'long_only' },
    ]) {
      const res = await h.manage('PUT', `/${id}`, change);
      expect(res.statusCode, JSON.stringify(change)).toBe(409);
      expect(json(res)).toMatchObject({ code: 'strategy_running' });
    }
    // Unchanged values and other fields are fine while running.
    expect((await h.manage('PUT', `/${id}`, { product: 'MIS', name: 'renamed' })).statusCode).toBe(200);
    expect((await h.manage('DELETE', `/${id}`)).statusCode).toBe(409);
    h.t.clock.advance(1_000);
    await h.hook(token, { action: 'stop' });
    await h.t.services.strategies.stopper.whenIdle();
    expect((await h.manage('DELETE', `/${id}`)).statusCode).toBe(200);
    expect((await h.hook(token, { action: 'start', mode: 'sandbox', n: 2 })).statusCode).toBe(404);
  });

  it('deletion writes strategy_deleted and keeps the trail, runs, orders and audit; the name is free again', async () => {
    h = await startStrategies(dialect);
    const { id, token } = await h.create(BATCH_PAIR);
    await h.hook(token, { action: 'start', mode: 'sandbox' });
    h.t.clock.advance(1_000);
    await h.hook(token, { action: 'stop' });
    await h.t.services.strategies.stopper.whenIdle();
    const before = {
      events: (await h.rows('strategy_events')).length,
      runs: (await h.rows('strategy_runs')).length,
      orders: (await h.rows('strategy_orders')).length,
      deliveries: (await h.rows('webhook_deliveries')).length,
    };
    expect((await h.manage('DELETE', `/${id}`)).statusCode).toBe(200);
    const events = await h.rows('strategy_events');
    expect(events).toHaveLength(before.events + 1);
    expect(events.at(-1)).toMatchObject({ kind: 'strategy_deleted', severity: 'warn', run_id: null });
    expect(await h.rows('strategy_runs')).toHaveLength(before.runs);
    expect(await h.rows('strategy_orders')).toHaveLength(before.orders);
    // The dead URL's delivery is audited as well (without a strategy).
    expect((await h.hook(token, { action: 'stop', n: 3 })).statusCode).toBe(404);
    expect(await h.rows('webhook_deliveries')).toHaveLength(before.deliveries + 1);
    // Gone for its owner on every route; its name can be used again.
    expect((await h.manage('GET', `/${id}`)).statusCode).toBe(404);
    expect((await h.manage('GET', `/${id}/events`)).statusCode).toBe(404);
    expect((await h.manage('DELETE', `/${id}`)).statusCode).toBe(404);
    expect(json(await h.manage('GET', '')).data).toEqual([]);
    expect((await h.manage('POST', '', BATCH_PAIR)).statusCode).toBe(201);
  });

  it('every write needs the CSRF token', async () => {
    h = await startStrategies(dialect);
    const { id } = await h.create(BATCH_PAIR);
    const writes: ['POST' | 'PUT' | 'DELETE', string, object?][] = [
      ['POST', '', { ...SIGNAL_SBIN, name: 'other' }],
      ['PUT', `/${id}`, { name: 'x' }],
      ['DELETE', `/${id}`],
      ['POST', `/${id}/rotate-token`],
      ['POST', `/${id}/lock`, { locked: true }],
      ['POST', `/${id}/live`, { enabled: true }],
      ['POST', `/${id}/start`, { mode: 'sandbox' }],
      ['POST', `/${id}/stop`],
    ];
    const noCsrf = { ...h.admin, csrf: 'not-the-token' };
    for (const [method, path, payload] of writes) {
      const res = await h.manage(method, path, payload, noCsrf);
      expect(res.statusCode, `${method} ${path}`).toBe(403);
    }
    // Nothing changed: one strategy, idle, its only event the creation.
    expect(json(await h.manage('GET', '')).data).toEqual([
      expect.objectContaining({ id, name: 'pair batch', status: 'idle', webhook_locked: false }),
    ]);
    expect((await h.rows('strategy_events')).map((e) => e.kind)).toEqual(['strategy_created']);
  });

  it('answers malformed, mistyped, oversized and hostile input with a 4xx and writes nothing', async () => {
    h = await startStrategies(dialect);
    const bad: unknown[] = [
      '{"name":',
      [],
      {},
      { name: 'x', kind: 'robot', legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 1 }] },
      { name: 'x', kind: 'signal', legs: [] },
      { name: 'x', kind: 'signal', legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 0 }] },
      { name: 'x', kind: 'signal', legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: '1' }] },
      { name: 'x', kind: 'signal', legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 1, side: 'BUY' }] },
      { name: 'x', kind: 'batch', legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 1 }] },
      {
        name: 'x',
        kind: 'batch',
        legs: [{ underlying: 'NIFTY', exchange: 'NSE', option_type: 'CE', quantity: 1, side: 'BUY' }],
      },
      {
        name: 'x',
        kind: 'batch',
        legs: [{ underlying: 'NIFTY', exchange: 'NFO', quantity: 1, side: 'BUY' }],
      },
      {
        name: 'x',
        kind: 'signal',
        legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 1 }],
        ip_allowlist: ['not-an-ip'],
      },
      {
        name: 'x',
        kind: 'signal',
        legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 1 }],
        ip_allowlist: ['10.0.0.0/99'],
      },
      { name: '\u0000bad', kind: 'signal', legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 1 }] },
      { name: 'x'.repeat(101), kind: 'signal', legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 1 }] },
      {
        name: "x'); DROP TABLE strategies;--",
        kind: 'signal',
        legs: [{ symbol: "<script>'", exchange: 'NSE', quantity: 1 }],
      },
      {
        name: 'x',
        kind: 'signal',
        legs: Array.from({ length: 21 }, () => ({ symbol: 'SBIN', exchange: 'NSE', quantity: 1 })),
      },
      {
        name: 'x',
        kind: 'signal',
        legs: [{ symbol: 'SBIN', exchange: 'NSE', quantity: 1 }],
        pad: 'z'.repeat(2 * 1024 * 1024),
      },
    ];
    for (const payload of bad) {
      const res = await h.t.app.inject({
        method: 'POST',
        url: '/strategy/api/strategies',
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
        headers: { 'content-type': 'application/json', cookie: h.admin.cookie, 'x-csrf-token': h.admin.csrf },
      });
      const label = JSON.stringify(payload).slice(0, 80);
      expect(res.statusCode, label).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, label).toBeLessThan(500);
      expect(json(res), label).toMatchObject({ status: 'error' });
    }
    for (const url of [
      '/strategy/api/strategies/abc',
      '/strategy/api/strategies/0',
      '/strategy/api/strategies/99999999999999999999',
    ]) {
      const res = await h.t.app.inject({ method: 'GET', url, headers: { cookie: h.admin.cookie } });
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, url).toBeLessThan(500);
    }
    // No CSRF token: refused.
    const noCsrf = await h.t.app.inject({
      method: 'POST',
      url: '/strategy/api/strategies',
      payload: SIGNAL_SBIN,
      headers: { cookie: h.admin.cookie },
    });
    expect(noCsrf.statusCode).toBe(403);
    expect(await h.t.db.database.db.selectFrom('strategies').selectAll().execute()).toEqual([]);
    expect(await h.t.db.database.db.selectFrom('strategy_events').selectAll().execute()).toEqual([]);
  });
});

describeEachDb('POST /api/v1/strategy/events', (dialect) => {
  it('answers the owner newest first; run_id excludes configuration events; kind, severity, limit filter', async () => {
    h = await startStrategies(dialect);
    const { id, token } = await h.create(BATCH_PAIR);
    const run = json(await h.hook(token, { action: 'start', mode: 'sandbox' })).run_id as number;
    const all = json(await h.api('strategy/events', { strategy_id: id }));
    expect(all.status).toBe('success');
    const data = all.data as { kind: string; run_id: number | null; ts: string; id: number }[];
    expect(data.map((e) => e.kind)).toEqual([
      'entry_placed',
      'entry_placed',
      'run_started',
      'strategy_created',
    ]);
    expect(data[0]).toMatchObject({
      strategy_id: id,
      run_id: run,
      severity: 'info',
      leg_id: expect.any(Number),
      payload: expect.any(Object),
    });
    expect([...data].sort((a, b) => b.ts.localeCompare(a.ts) || b.id - a.id)).toEqual(data);

    const ofRun = json(await h.api('strategy/events', { strategy_id: id, run_id: run })).data as {
      run_id: number;
    }[];
    expect(ofRun.every((e) => e.run_id === run)).toBe(true);
    expect(ofRun).toHaveLength(3);
    expect(json(await h.api('strategy/events', { strategy_id: id, kind: 'run_started' })).data).toHaveLength(
      1,
    );
    expect(json(await h.api('strategy/events', { strategy_id: id, severity: 'critical' })).data).toEqual([]);
    expect(json(await h.api('strategy/events', { strategy_id: id, limit: 1 })).data).toHaveLength(1);
  });

  it('400 for an unknown kind or severity and a limit outside 1-1000 (never clamped); 403 bad key; 404 not the owner', async () => {
    h = await startStrategies(dialect);
    const { id } = await h.create(SIGNAL_SBIN);
    for (const extra of [
      { kind: 'nope' },
      { severity: 'fatal' },
      { limit: 0 },
      { limit: 1001 },
      { limit: 'ten' },
      { run_id: -1 },
    ]) {
      const res = await h.api('strategy/events', { strategy_id: id, ...extra });
      expect(res.statusCode, JSON.stringify(extra)).toBe(400);
    }
    expect((await h.api('strategy/events', {})).statusCode).toBe(400);
    expect((await h.api('strategy/events', { strategy_id: id }, 'wrong-key')).statusCode).toBe(403);
    await createUser(h.t, 'bob', 'bob password 123');
    const bobKey = (await h.t.services.auth.apiKeys.regenerate(2)).apikey;
    const foreign = await h.api('strategy/events', { strategy_id: id }, bobKey);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.body).toBe((await h.api('strategy/events', { strategy_id: 424242 }, bobKey)).body);
  });

  it('answers 500 events when no limit is given (the default), newest first', async () => {
    h = await startStrategies(dialect);
    const { id } = await h.create(SIGNAL_SBIN);
    const events = h.t.services.strategies.strategies;
    for (let i = 0; i < 600; i++) {
      h.t.clock.advance(1);
      await events.event({ strategyId: id, runId: null, kind: 'strategy_updated', message: `change ${i}` });
    }
    const data = json(await h.api('strategy/events', { strategy_id: id })).data as { message: string }[];
    expect(data).toHaveLength(500);
    expect(data[0]!.message).toBe('change 599');
    expect(data[499]!.message).toBe('change 100');
  });
});
