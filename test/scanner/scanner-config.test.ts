/**
 * Scanner configuration, docs/rules/scanner.md#scanner-configuration and #scanner-webhook-id: the session
 * routes under `/scanner/api/scanners` — the webhook id shown once (creation, rotation) with its
 * URL and stored only as a digest, defaults, validation naming the fields, unique names, another
 * user's scanner the same 404 as a missing one, CSRF on every change, the administrator's live
 * switch (turned off again by a change of mode to live), deletion.
 */
import { afterEach, expect, it } from 'vitest';
import { sha256Hex } from '../../src/platform/crypto.js';
import { createUser, describeEachDb, login } from '../helpers/test-app.js';
import {
  HOST_SERVER,
  WEBHOOK_ID,
  buyScanner,
  chartink,
  startScanner,
  type ScannerHarness,
  type ScannerView,
} from '../helpers/scanner.js';

let h: ScannerHarness;
afterEach(async () => {
  await h?.close();
});

const json = (res: { json(): unknown }) => res.json() as Record<string, unknown>;
const VIEW_KEYS = [
  'action',
  'capital',
  'created_at',
  'enabled',
  'exchange',
  'id',
  'live_enabled',
  'max_symbols',
  'mode',
  'name',
  'overrides',
  'product',
  'quantity',
  'squareoff_time',
  'updated_at',
  'window_end',
  'window_start',
];

describeEachDb('scanner configuration', (dialect) => {
  it('creates with the webhook id and URL shown once (from HOST_SERVER), the defaults filled in; only the digest is stored', async () => {
    h = await startScanner(dialect);
    const { id, webhookId, url, view, res } = await h.create(buyScanner());
    expect(webhookId).toMatch(WEBHOOK_ID);
    expect(url).toBe(`${HOST_SERVER}/scanner/webhook/${webhookId}`);
    expect(json(res).status).toBe('success');
    expect(Object.keys(view).sort()).toEqual(VIEW_KEYS);
    expect(view).toMatchObject({
      id,
      name: 'breakouts',
      action: 'BUY',
      exchange: 'NSE',
      product: 'MIS',
      quantity: 10,
      capital: null,
      overrides: {},
      window_start: '09:15',
      window_end: '15:15',
      squareoff_time: '15:15',
      max_symbols: 10,
      mode: 'analyze',
      enabled: true,
      live_enabled: false,
    });
    // Only the SHA-256 digest of the id is stored.
    const stored = JSON.stringify(await h.rows('scanners'));
    expect(stored).toContain(sha256Hex(webhookId));
    expect(stored).not.toContain(webhookId);
    expect(stored).not.toContain(webhookId.slice(4));
    // Never shown again: not in the list, not in the read.
    for (const path of ['', `/${id}`]) {
      const read = await h.manage('GET', path);
      expect(read.statusCode).toBe(200);
      expect(read.body).not.toContain(webhookId.slice(4));
      expect(read.body).not.toContain('webhook_id');
      expect(read.body).not.toContain('webhook_url');
    }
    expect(json(await h.manage('GET', `/${id}`)).data).toEqual(view);
    expect(json(await h.manage('GET', '')).data).toEqual([view]);
    // Two scanners never share an id.
    const second = await h.create(buyScanner({ name: 'second' }));
    expect(second.webhookId).toMatch(WEBHOOK_ID);
    expect(second.webhookId).not.toBe(webhookId);
  });

  it('keeps every field given: capital sizing, overrides, window, square-off time, limits, mode, enabled', async () => {
    h = await startScanner(dialect);
    const { view } = await h.create({
      name: 'capital scan',
      action: 'FROM_SCAN_NAME',
      exchange: 'BSE',
      product: 'MIS',
      capital: 25_000.5,
      overrides: { SBIN: 3, INFY: 7 },
      window_start: '09:30',
      window_end: '14:45',
      squareoff_time: '15:00',
      max_symbols: 50,
      mode: 'analyze',
      enabled: false,
    });
    expect(view).toMatchObject({
      name: 'capital scan',
      action: 'FROM_SCAN_NAME',
      exchange: 'BSE',
      product: 'MIS',
      quantity: null,
      capital: 25_000.5,
      overrides: { SBIN: 3, INFY: 7 },
      window_start: '09:30',
      window_end: '14:45',
      squareoff_time: '15:00',
      max_symbols: 50,
      mode: 'analyze',
      enabled: false,
    });
    // A CNC scanner has no square-off time: one given is ignored.
    const cnc = await h.create(buyScanner({ name: 'delivery', product: 'CNC', squareoff_time: '15:00' }));
    expect(cnc.view).toMatchObject({ product: 'CNC', squareoff_time: null });
    const cncDefault = await h.create(buyScanner({ name: 'delivery 2', product: 'CNC' }));
    expect(cncDefault.view.squareoff_time).toBeNull();
  });

  it('answers bad fields with a 400 naming them, and writes nothing', async () => {
    h = await startScanner(dialect);
    const base = buyScanner();
    const { quantity: _q, ...unsized } = base;
    const cases: [unknown, RegExp][] = [
      [{ ...base, capital: 10_000 }, /quantity|capital/i],
      [unsized, /quantity|capital/i],
      [{ ...base, quantity: 0 }, /quantity/i],
      [{ ...base, quantity: 1.5 }, /quantity/i],
      [{ ...base, quantity: '10' }, /quantity/i],
      [{ ...unsized, capital: 0 }, /capital/i],
      [{ ...unsized, capital: -5 }, /capital/i],
      [{ ...base, name: '' }, /name/i],
      [{ ...base, name: 'x'.repeat(101) }, /name/i],
      [{ ...base, action: 'HOLD' }, /action/i],
      [{ ...base, action: 'buy ' }, /action/i],
      [{ ...base, exchange: 'NFO' }, /exchange/i],
      [{ ...base, product: 'NRML' }, /product/i],
      [{ ...base, window_start: '11:00', window_end: '10:00' }, /window/i],
      [{ ...base, window_start: '10:00', window_end: '10:00' }, /window/i],
      [{ ...base, window_start: '08:59' }, /window_start/i],
      [{ ...base, window_end: '15:31' }, /window_end/i],
      [{ ...base, window_start: '9.15' }, /window_start/i],
      [{ ...base, window_end: '25:00' }, /window_end/i],
      [{ ...base, window_end: '14:60' }, /window_end/i],
      [{ ...base, squareoff_time: '15:31' }, /squareoff_time/i],
      [{ ...base, squareoff_time: 'soon' }, /squareoff_time/i],
      [{ ...base, window_start: '10:00', squareoff_time: '09:45' }, /squareoff_time/i],
      [{ ...base, max_symbols: 51 }, /max_symbols/i],
      [{ ...base, max_symbols: 0 }, /max_symbols/i],
      [{ ...base, mode: 'paper' }, /mode/i],
      [{ ...base, enabled: 'yes' }, /enabled/i],
      [{ ...base, overrides: { SBIN: 0 } }, /overrides/i],
      [{ ...base, overrides: { SBIN: 2.5 } }, /overrides/i],
      [{ ...base, overrides: ['SBIN'] }, /overrides/i],
      [
        { ...base, overrides: Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`SYM${i}`, 1])) },
        /overrides/i,
      ],
    ];
    for (const [payload, field] of cases) {
      const res = await h.manage('POST', '', payload);
      const label = JSON.stringify(payload).slice(0, 120);
      expect(res.statusCode, label).toBe(400);
      const body = json(res);
      expect(body.status, label).toBe('error');
      expect(String(body.message), label).toMatch(field);
    }
    // Not JSON, not an object: a 4xx as well.
    for (const raw of ['{"name":', '[]', '"x"']) {
      const res = await h.t.app.inject({
        method: 'POST',
        url: '/scanner/api/scanners',
        payload: raw,
        headers: { 'content-type': 'application/json', cookie: h.admin.cookie, 'x-csrf-token': h.admin.csrf },
      });
      expect(res.statusCode, raw).toBe(400);
    }
    expect(json(await h.manage('GET', '')).data).toEqual([]);
    expect(await h.rows('scanners')).toEqual([]);
  });

  it('two creates of one name at the same moment: one is made, the other is a 409, never a 500', async () => {
    h = await startScanner(dialect);
    const both = await Promise.all([
      h.manage('POST', '', buyScanner({ name: 'race' })),
      h.manage('POST', '', buyScanner({ name: 'race' })),
    ]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const list = await h.manage('GET', '');
    expect((list.json().data as { name: string }[]).filter((v) => v.name === 'race')).toHaveLength(1);
  });

  it('PUT takes any of the fields, validates the result and keeps the rest; names are unique per user (409)', async () => {
    h = await startScanner(dialect);
    const { id, view } = await h.create(buyScanner());
    const other = await h.create(buyScanner({ name: 'other' }));
    const put = await h.manage('PUT', `/${id}`, {
      window_end: '14:00',
      max_symbols: 3,
      overrides: { SBIN: 4 },
    });
    expect(put.statusCode).toBe(200);
    const updated = json(put).data as ScannerView;
    expect(updated).toMatchObject({ ...view, window_end: '14:00', max_symbols: 3, overrides: { SBIN: 4 } });
    expect(updated).toMatchObject({ updated_at: expect.anything() });
    expect(json(await h.manage('GET', `/${id}`)).data).toEqual(updated);
    // The result is validated: an end before the start, a bad time, a second sizing.
    for (const payload of [
      { window_end: '09:00' },
      { window_start: '14:30' },
      { max_symbols: 51 },
      { name: '' },
    ]) {
      const res = await h.manage('PUT', `/${id}`, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    }
    // Sizing switches when the other one is cleared; both at once is refused.
    expect((await h.manage('PUT', `/${id}`, { capital: 5_000 })).statusCode).toBe(400);
    const sized = await h.manage('PUT', `/${id}`, { quantity: null, capital: 5_000 });
    expect(sized.statusCode).toBe(200);
    expect(json(sized).data).toMatchObject({ quantity: null, capital: 5_000 });
    // A switch to CNC drops the square-off time.
    const cnc = await h.manage('PUT', `/${id}`, { product: 'CNC' });
    expect(cnc.statusCode).toBe(200);
    expect(json(cnc).data).toMatchObject({ product: 'CNC', squareoff_time: null });
    const current = json(cnc).data;
    // A name taken by the same user: 409, on create and on rename.
    const dup = await h.manage('POST', '', buyScanner());
    expect(dup.statusCode).toBe(409);
    expect(json(dup).status).toBe('error');
    expect((await h.manage('PUT', `/${other.id}`, { name: 'breakouts' })).statusCode).toBe(409);
    expect(json(await h.manage('GET', `/${id}`)).data).toEqual(current);
    // Another user may use the name.
    await createUser(h.t, 'bob', 'bob password 123');
    const bob = await login(h.t, 'bob', 'bob password 123');
    expect((await h.manage('POST', '', buyScanner(), bob)).statusCode).toBe(200);
  });

  it('another user’s scanner is a 404 identical to a missing one, on every route, and its webhook keeps working', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(buyScanner());
    await createUser(h.t, 'bob', 'bob password 123');
    const bob = await login(h.t, 'bob', 'bob password 123');
    const routes: ['GET' | 'POST' | 'PUT' | 'DELETE', string, object?][] = [
      ['GET', ''],
      ['PUT', '', { name: 'mine now' }],
      ['DELETE', ''],
      ['POST', '/rotate'],
      ['GET', '/deliveries'],
    ];
    for (const [method, suffix, payload] of routes) {
      const foreign = await h.manage(method, `/${id}${suffix}`, payload, bob);
      const missing = await h.manage(method, `/999999${suffix}`, payload, bob);
      expect(foreign.statusCode, `${method} ${suffix}`).toBe(404);
      expect(foreign.body, `${method} ${suffix}`).toBe(missing.body);
      expect(json(foreign).status).toBe('error');
    }
    expect(json(await h.manage('GET', '', undefined, bob)).data).toEqual([]);
    // Nothing changed for the owner: same name, same webhook id.
    expect(json(await h.manage('GET', `/${id}`)).data).toMatchObject({ name: 'breakouts' });
    expect(json(await h.hook(webhookId, chartink({ stocks: 'SBIN', trigger_prices: '800' })))).toMatchObject({
      result: 'ok',
      scanner_id: id,
    });
  });

  it('every change needs the CSRF token', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(buyScanner());
    const before = json(await h.manage('GET', `/${id}`)).data;
    const writes: ['POST' | 'PUT' | 'DELETE', string, object?][] = [
      ['POST', '', buyScanner({ name: 'other' })],
      ['PUT', `/${id}`, { name: 'x' }],
      ['DELETE', `/${id}`],
      ['POST', `/${id}/rotate`],
      ['POST', `/${id}/live`, { enabled: true }],
    ];
    const wrong = { ...h.admin, csrf: 'not-the-token' };
    for (const [method, path, payload] of writes) {
      expect((await h.manage(method, path, payload, wrong)).statusCode, `${method} ${path}`).toBe(403);
      const none = await h.t.app.inject({
        method,
        url: `/scanner/api/scanners${path}`,
        headers: { cookie: h.admin.cookie },
        ...(payload ? { payload } : {}),
      });
      expect(none.statusCode, `${method} ${path} without a token`).toBe(403);
    }
    // Without a session at all: refused too.
    const anonymous = await h.t.app.inject({ method: 'GET', url: '/scanner/api/scanners' });
    expect(anonymous.statusCode).toBeGreaterThanOrEqual(401);
    expect(anonymous.statusCode).toBeLessThan(404);
    // Nothing changed: one scanner, as it was, and its id still works (not rotated).
    expect(json(await h.manage('GET', '')).data).toEqual([before]);
    expect((await h.hook(webhookId, chartink({ stocks: 'SBIN', trigger_prices: '800' }))).statusCode).toBe(
      200,
    );
  });

  it('rotation shows a new id once; the old one is dead (404 rejected_id); deletion kills the id too', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(buyScanner());
    const rotated = await h.manage('POST', `/${id}/rotate`);
    expect(rotated.statusCode).toBe(200);
    const fresh = json(rotated) as { status: string; webhook_id: string; webhook_url: string };
    expect(fresh.status).toBe('success');
    expect(fresh.webhook_id).toMatch(WEBHOOK_ID);
    expect(fresh.webhook_id).not.toBe(webhookId);
    expect(fresh.webhook_url).toBe(`${HOST_SERVER}/scanner/webhook/${fresh.webhook_id}`);
    expect(JSON.stringify(await h.rows('scanners'))).toContain(sha256Hex(fresh.webhook_id));
    const old = await h.hook(webhookId, chartink());
    expect(old.statusCode).toBe(404);
    expect(json(old)).toMatchObject({ status: 'error', result: 'rejected_id' });
    expect(json(old).scanner_id).toBeUndefined();
    expect(
      json(await h.hook(fresh.webhook_id, chartink({ stocks: 'SBIN', trigger_prices: '800' }))),
    ).toMatchObject({ result: 'ok', scanner_id: id });
    // Deletion: a message, then the scanner is a 404 and its id is rejected_id.
    const del = await h.manage('DELETE', `/${id}`);
    expect(del.statusCode).toBe(200);
    expect(json(del)).toMatchObject({ status: 'success', message: expect.any(String) });
    expect((await h.manage('GET', `/${id}`)).statusCode).toBe(404);
    expect((await h.manage('DELETE', `/${id}`)).statusCode).toBe(404);
    expect(json(await h.manage('GET', '')).data).toEqual([]);
    const dead = await h.hook(fresh.webhook_id, chartink({ stocks: 'INFY', trigger_prices: '1500' }));
    expect(dead.statusCode).toBe(404);
    expect(json(dead)).toMatchObject({ result: 'rejected_id' });
    // The name is free again.
    expect((await h.manage('POST', '', buyScanner())).statusCode).toBe(200);
  });

  it('the live switch is the administrator’s; changing mode to live turns it off again', async () => {
    h = await startScanner(dialect);
    const { id } = await h.create(buyScanner({ mode: 'live' }));
    expect(json(await h.manage('GET', `/${id}`)).data).toMatchObject({ mode: 'live', live_enabled: false });
    const on = await h.manage('POST', `/${id}/live`, { enabled: true });
    expect(on.statusCode).toBe(200);
    expect(json(await h.manage('GET', `/${id}`)).data).toMatchObject({ live_enabled: true });
    for (const payload of [{}, { enabled: 'yes' }]) {
      expect((await h.manage('POST', `/${id}/live`, payload)).statusCode, JSON.stringify(payload)).toBe(400);
    }
    // A change of mode to live (here: back from analyze) switches live orders off again.
    expect((await h.manage('PUT', `/${id}`, { mode: 'analyze' })).statusCode).toBe(200);
    expect((await h.manage('PUT', `/${id}`, { mode: 'live' })).statusCode).toBe(200);
    expect(json(await h.manage('GET', `/${id}`)).data).toMatchObject({ mode: 'live', live_enabled: false });
    // A user who is not an administrator cannot switch their own scanner live.
    await createUser(h.t, 'bob', 'bob password 123');
    const bob = await login(h.t, 'bob', 'bob password 123');
    const bobs = await h.create(buyScanner({ mode: 'live' }), bob);
    const refused = await h.manage('POST', `/${bobs.id}/live`, { enabled: true }, bob);
    expect(refused.statusCode).toBe(403);
    expect(json(await h.manage('GET', `/${bobs.id}`, undefined, bob)).data).toMatchObject({
      live_enabled: false,
    });
  });

  it('lists a user’s scanners only, and bad ids are a 4xx', async () => {
    h = await startScanner(dialect);
    const a = await h.create(buyScanner({ name: 'a' }));
    const b = await h.create(buyScanner({ name: 'b', action: 'SELL' }));
    await createUser(h.t, 'bob', 'bob password 123');
    const bob = await login(h.t, 'bob', 'bob password 123');
    await h.create(buyScanner({ name: 'bobs' }), bob);
    const mine = (json(await h.manage('GET', '')).data as ScannerView[]).map((s) => s.id).sort();
    expect(mine).toEqual([a.id, b.id].sort());
    for (const path of ['/abc', '/0', '/-1', '/99999999999999999999', '/1.5']) {
      const res = await h.manage('GET', path);
      expect(res.statusCode, path).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, path).toBeLessThan(500);
    }
  });
});
