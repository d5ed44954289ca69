/**
 * Bad input on the broker-app and form-login routes (docs/rules/brokers.md#broker-apps,
 * #broker-sessions): malformed JSON, wrong types, non-object bodies, a huge body, unknown ids and
 * hostile strings each get a 4xx with a clear message — never a 500 — and nothing is written
 * (no app, no choice, no session).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { appWithAdmin, asBrowser, describeEachDb, type Browser, type TestApp } from '../helpers/test-app.js';

const HOSTILE = [
  "' OR '1'='1' --",
  '"; DROP TABLE broker_apps; --',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  'a\u0000b',
  '\u202e\uffff',
  '😀'.repeat(300),
  '{{7*7}}${7*7}',
  '__proto__',
];

describeEachDb('broker apps and form logins: bad input is a 4xx and writes nothing', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  beforeAll(async () => {
    ({ t, admin } = await appWithAdmin(dialect, {
      env: { BROKER_NAME: 'angel', BROKER_API_KEY: 'angelBADkey1' },
    }));
  });
  afterAll(() => t?.close());

  const send = (method: 'POST' | 'PUT' | 'DELETE', url: string, payload: string) =>
    method === 'DELETE'
      ? t.app.inject({ method, url, headers: asBrowser(admin) })
      : t.app.inject({
          method,
          url,
          payload,
          headers: { 'content-type': 'application/json', ...asBrowser(admin) },
        });
  const ROUTES: ['POST' | 'PUT', string][] = [
    ['POST', '/admin/api/brokers'],
    ['PUT', '/admin/api/brokers/0'],
    ['PUT', '/broker/api/app'],
    ['POST', '/broker/login/form'],
  ];
  const written = async () => {
    const db = t.db.database.db;
    const n = async (table: 'broker_apps' | 'broker_app_choices' | 'broker_sessions') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return [await n('broker_apps'), await n('broker_app_choices'), await n('broker_sessions')];
  };

  it('malformed JSON, non-object bodies and wrong types → 400; a 1 MB body → 413', async () => {
    for (const [method, url] of ROUTES) {
      for (const body of ['{"label":', '{bad}', '[]', '"text"', '42', 'null']) {
        const res = await send(method, url, body);
        expect(res.statusCode, `${method} ${url} ${body}`).toBe(400);
        expect(res.json()).toMatchObject({ status: 'error' });
      }
      const huge = await send(method, url, JSON.stringify({ label: 'x'.repeat(1024 * 1024) }));
      expect(huge.statusCode, url).toBe(413);
    }
    const wrong: [string, string, unknown][] = [
      ['POST', '/admin/api/brokers', { label: 5, broker: ['angel'] }],
      ['PUT', '/broker/api/app', { app_id: '1' }],
      ['PUT', '/broker/api/app', { app_id: -1 }],
      ['POST', '/broker/login/form', { pin: 1234 }],
      ['POST', '/broker/login/form', { 'Bad-Key': 'x' }],
    ];
    for (const [method, url, body] of wrong) {
      const res = await send(method as 'POST', url, JSON.stringify(body));
      expect(res.statusCode, `${url} ${JSON.stringify(body)}`).toBe(400);
    }
    expect(await written()).toEqual([0, 0, 0]);
  });

  it('unknown ids → 404; the bootstrap app (0) cannot be replaced or deleted', async () => {
    const r77 = await send('PUT', '/admin/api/brokers/77', '{"label":"x"}');
    expect(r77.statusCode, r77.body).toBe(404);
    const d77 = await send('DELETE', '/admin/api/brokers/77', '');
    expect(d77.statusCode, d77.body).toBe(404);
    expect((await send('PUT', '/broker/api/app', '{"app_id":77}')).statusCode).toBe(404);
    const env = await send('PUT', '/admin/api/brokers/0', '{"api_key":"other"}');
    expect(env.statusCode).toBe(400);
    expect(env.json()).toMatchObject({ message: expect.stringContaining('BROKER_*') });
    expect((await send('DELETE', '/admin/api/brokers/0', '')).statusCode).toBe(400);
    expect(await written()).toEqual([0, 0, 0]);
  });

  it('hostile strings are data: a 4xx, no 500, nothing written, nothing echoed as markup', async () => {
    for (const s of HOSTILE) {
      const add = await send(
        'POST',
        '/admin/api/brokers',
        JSON.stringify({ label: s, broker: s, api_key: s }),
      );
      expect(add.statusCode, s).toBe(400);
      expect(add.body).not.toContain('<script>');
      const url = await send(
        'POST',
        '/admin/api/brokers',
        JSON.stringify({ label: 'ok', broker: 'zerodha', api_key: 'k', api_secret: 's', redirect_url: s }),
      );
      expect(url.statusCode, s).toBe(400);
      const form = await send(
        'POST',
        '/broker/login/form',
        JSON.stringify({ client_code: s, pin: s, totp: s }),
      );
      expect(form.statusCode, s).toBe(400);
      expect(form.body).not.toContain('<script>');
      t.clock.advance(3_600_000); // clear of the 4xx trackers' windows
    }
    expect(await written()).toEqual([0, 0, 0]);
  });
});
