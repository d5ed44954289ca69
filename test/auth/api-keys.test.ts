import { afterEach, expect, it } from 'vitest';
import { hmacSha256Hex } from '../../src/platform/crypto.js';
import {
  asBrowser,
  createTestApp,
  createUser,
  describeEachDb,
  login,
  type Browser,
  type TestApp,
} from '../helpers/test-app.js';

const ping = (t: TestApp, apikey: unknown) =>
  t.app.inject({ method: 'POST', url: '/api/v1/ping', payload: { apikey } as object });
const newKey = async (t: TestApp, b: Browser) => {
  const res = await t.app.inject({ method: 'POST', url: '/apikey', headers: asBrowser(b) });
  expect(res.statusCode).toBe(200);
  return res.json() as { apikey: string; created_at: string };
};

describeEachDb(
  'API keys: 32 random bytes, shown once, stored only as HMAC-SHA-256 with the pepper',
  (dialect) => {
    let t: TestApp;
    afterEach(() => t.close());

    it('GET /apikey reports existence, creation time and order mode, never the key', async () => {
      t = await createTestApp(dialect);
      await createUser(t);
      const b = await login(t);
      const before = await t.app.inject({ method: 'GET', url: '/apikey', headers: { cookie: b.cookie } });
      expect(before.json()).toEqual({
        status: 'success',
        has_api_key: false,
        created_at: null,
        order_mode: 'auto',
      });
      const { apikey, created_at } = await newKey(t, b);
      expect(apikey).toMatch(/^[0-9a-f]{64}$/);
      const after = await t.app.inject({ method: 'GET', url: '/apikey', headers: { cookie: b.cookie } });
      expect(after.json()).toEqual({ status: 'success', has_api_key: true, created_at, order_mode: 'auto' });
      expect(after.body).not.toContain(apikey);
    });

    it('stores the peppered HMAC digest and nothing from which the key can be read', async () => {
      t = await createTestApp(dialect);
      await createUser(t);
      const { apikey } = await newKey(t, await login(t));
      const rows = await t.db.database.db.selectFrom('api_keys').selectAll().execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]!.key_digest).toBe(hmacSha256Hex(t.config.apiKeyPepper, apikey));
      expect(JSON.stringify(rows)).not.toContain(apikey);
    });

    it('regenerating revokes the old key at once, also when it was cached as valid', async () => {
      t = await createTestApp(dialect);
      await createUser(t);
      const b = await login(t);
      const first = await newKey(t, b);
      expect((await ping(t, first.apikey)).statusCode).toBe(200); // now cached
      const second = await newKey(t, b);
      expect(second.apikey).not.toBe(first.apikey);
      const old = await ping(t, first.apikey);
      expect(old.statusCode).toBe(403);
      expect((await ping(t, second.apikey)).statusCode).toBe(200);
      expect(await t.db.database.db.selectFrom('api_keys').selectAll().execute()).toHaveLength(1);
    });

    it('requires a session and CSRF to regenerate', async () => {
      t = await createTestApp(dialect);
      await createUser(t);
      const b = await login(t);
      expect((await t.app.inject({ method: 'POST', url: '/apikey' })).statusCode).toBe(401);
      expect(
        (await t.app.inject({ method: 'POST', url: '/apikey', headers: { cookie: b.cookie } })).statusCode,
      ).toBe(403);
    });

    it('keys are per user: each user holds one key of their own', async () => {
      t = await createTestApp(dialect);
      await createUser(t, 'admin');
      await createUser(t, 'bob');
      const a = await newKey(t, await login(t, 'admin'));
      const bob = await newKey(t, await login(t, 'bob'));
      expect((await t.services.auth.apiKeys.verify(a.apikey))?.username).toBe('admin');
      expect((await t.services.auth.apiKeys.verify(bob.apikey))?.username).toBe('bob');
    });
  },
);

describeEachDb('order mode: auto (default) or semi_auto per user', (dialect) => {
  let t: TestApp;
  afterEach(() => t.close());

  it('POST /apikey/mode switches the mode and the key sees it at once; other values are 400', async () => {
    t = await createTestApp(dialect);
    await createUser(t);
    const b = await login(t);
    const { apikey } = await newKey(t, b);
    expect((await t.services.auth.apiKeys.verify(apikey))?.orderMode).toBe('auto'); // cached
    const res = await t.app.inject({
      method: 'POST',
      url: '/apikey/mode',
      headers: asBrowser(b),
      payload: { mode: 'semi_auto' },
    });
    expect(res.json()).toEqual({ status: 'success', order_mode: 'semi_auto' });
    expect((await t.services.auth.apiKeys.verify(apikey))?.orderMode).toBe('semi_auto');
    const bad = await t.app.inject({
      method: 'POST',
      url: '/apikey/mode',
      headers: asBrowser(b),
      payload: { mode: 'manual' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({
      status: 'error',
      errors: { mode: ['must be "auto" or "semi_auto"'] },
    });
    const missing = await t.app.inject({
      method: 'POST',
      url: '/apikey/mode',
      headers: asBrowser(b),
      payload: {},
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().errors).toEqual({ mode: ['Missing data for required field.'] });
  });
});

describeEachDb('POST /api/v1/ping', (dialect) => {
  let t: TestApp;
  afterEach(() => t.close());

  it('answers pong for a valid key', async () => {
    t = await createTestApp(dialect);
    await createUser(t);
    const { apikey } = await newKey(t, await login(t));
    const res = await ping(t, apikey);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'success', data: { message: 'pong', broker: null } });
  });

  it('answers 403 "Invalid algodesk apikey" for an unknown key', async () => {
    t = await createTestApp(dialect);
    for (const key of ['0'.repeat(64), 'x', 'k'.repeat(256)]) {
      const res = await ping(t, key);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ status: 'error', message: 'Invalid algodesk apikey' });
    }
  });

  it('answers 400 naming the field when apikey is missing or of the wrong type', async () => {
    t = await createTestApp(dialect);
    const missing = await t.app.inject({ method: 'POST', url: '/api/v1/ping', payload: {} });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({
      status: 'error',
      message: { apikey: ['Missing data for required field.'] },
    });
    for (const apikey of [{}, [], null, true]) {
      const res = await ping(t, apikey);
      expect(res.statusCode, JSON.stringify(apikey)).toBe(400);
      expect(Object.keys(res.json().message)).toEqual(['apikey']);
    }
    const empty = await ping(t, '');
    expect(empty.statusCode).toBe(400);
    const long = await ping(t, 'k'.repeat(257));
    expect(long.statusCode).toBe(400);
  });

  it('accepts the JSON body of clients that send no JSON content type (curl -d)', async () => {
    t = await createTestApp(dialect);
    await createUser(t);
    const { apikey } = await newKey(t, await login(t));
    for (const contentType of ['application/x-www-form-urlencoded', 'text/plain', undefined]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/ping',
        payload: JSON.stringify({ apikey }),
        headers: contentType ? { 'content-type': contentType } : {},
      });
      expect(res.statusCode, String(contentType)).toBe(200);
    }
    const form = await t.app.inject({
      method: 'POST',
      url: '/api/v1/ping',
      payload: `apikey=${apikey}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.statusCode).toBe(200);
  });
});
