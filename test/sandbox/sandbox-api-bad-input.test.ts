/**
 * Issue 5, "Read and manage APIs" under hostile use: bad input on every `/api/v1` book and manage
 * route (a 4xx with a clear message, never a 500, nothing written), the live-mode switch, and the
 * API key never leaving in a response or a log line. Shapes and rules: sandbox-api.test.ts.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { asBrowser, describeEachDb, login } from '../helpers/test-app.js';

type Row = Record<string, unknown>;
const k = (i: { exchange: string; symbol: string }) => `${i.exchange}:${i.symbol}`;
const BOOKS = ['orderbook', 'tradebook', 'positionbook', 'holdings', 'funds'];
const ROUTES = [...BOOKS, 'orderstatus', 'cancelorder', 'cancelallorder', 'modifyorder', 'closeposition'];
const BY_ID = ['orderstatus', 'cancelorder', 'modifyorder'];
const HOSTILE = [
  '<script>alert(1)</script>',
  "'; drop table sandbox_orders; --",
  '" OR 1=1 --',
  '../../../../etc/passwd',
  '{{7*7}}${7*7}',
  '\u202eNIBS',
  'ＳＢＩＮ',
  '😀'.repeat(300),
  '__proto__',
];

const JSON_TYPE = 'application/json';
const TABLES = ['sandbox_orders', 'sandbox_order_events', 'sandbox_trades', 'sandbox_positions'] as const;

/** A sandbox with a filled SBIN buy and a resting LIMIT on the NIFTY 26000 CE. */
async function tradedSandbox(dialect: Parameters<typeof startSandbox>[0]) {
  const h = await startSandbox(dialect);
  h.t.clock.set(Date.parse('2026-01-05T10:00:00+05:30'));
  await h.tick({
    [k(MINI.SBIN)]: h.quote(800, { bid: 799.95, ask: 800.05, high: 805, low: 795 }),
    [k(MINI.NIFTY_CE)]: h.quote(120, { bid: 119.95, ask: 120.5, high: 140, low: 95 }),
  });
  await h.place({ ...MINI.SBIN, side: 'BUY', quantity: 100 });
  const order = { side: 'BUY', quantity: 65, priceType: 'LIMIT', product: 'NRML', price: 100 };
  const limit = await h.place({ ...MINI.NIFTY_CE, ...order });
  return { h, resting: limit.order.orderId };
}
/** A valid body for `route` (the resting order where one is needed). */
const validBody = (route: string, resting: string): Row => {
  if (!BY_ID.includes(route)) return {};
  if (route !== 'modifyorder') return { orderid: resting };
  const order = { action: 'BUY', product: 'NRML', pricetype: 'LIMIT', price: 100, quantity: 65 };
  return { orderid: resting, ...MINI.NIFTY_CE, ...order };
};

describeEachDb('sandbox API: bad input is a 4xx, never a 500, and writes nothing', (dialect) => {
  let h: SandboxHarness;
  let resting = '';
  beforeAll(async () => ({ h, resting } = await tradedSandbox(dialect)));
  afterAll(() => h?.close());
  let before: unknown;
  let logged = 0;
  beforeEach(async () => {
    before = await state();
    logged = h.t.logs.length;
  });
  afterEach(async () => {
    expect(await state()).toEqual(before);
    expect(h.t.logs.slice(logged).join('')).not.toMatch(/"level":50/); // nothing reached the 500 path
  });

  /** What a bad request must not change: row counts, funds, and the resting order. */
  async function state() {
    const db = h.t.db.database.db;
    const counts: number[] = [];
    for (const t of TABLES) {
      const q = db.selectFrom(t).select((eb) => eb.fn.countAll<number>().as('n'));
      counts.push(Number((await q.executeTakeFirstOrThrow()).n));
    }
    const funds = (await h.ok('funds')).data;
    return { counts, funds, resting: (await h.ok('orderstatus', { orderid: resting })).data };
  }
  const send = (route: string, payload: string | Row, contentType = 'application/json') =>
    h.t.app.inject({
      method: 'POST',
      url: `/api/v1/${route}`,
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      headers: { 'content-type': contentType },
    });
  /** A valid body for `route` with `change` applied (`undefined` deletes a field). */
  const withField = (route: string, change: Row): Row => {
    const body: Row = { apikey: h.apikey, ...validBody(route, resting), ...change };
    for (const [f, v] of Object.entries(change)) if (v === undefined) delete body[f];
    return body;
  };
  const expect400 = (res: LightMyRequestResponse, field: string, what: string) => {
    expect(res.statusCode, what).toBe(400);
    const body = res.json();
    expect(body.status, what).toBe('error');
    expect(Object.keys(body.message as object), what).toContain(field);
  };

  it('malformed JSON → 400 "Malformed JSON in request body", also when sent as form or text', async () => {
    for (const route of ROUTES)
      for (const body of [`{"apikey":"${h.apikey}",`, '{bad json}', `{"apikey":"${h.apikey}","x":1,}`])
        for (const type of ['application/json', 'application/x-www-form-urlencoded', 'text/plain']) {
          const res = await send(route, body, type);
          expect(res.statusCode, `${route} ${type} ${body}`).toBe(400);
          expect(res.json()).toMatchObject({ status: 'error', message: 'Malformed JSON in request body' });
        }
  });

  it('a body that is not a JSON object → 400', async () => {
    for (const route of ROUTES)
      for (const body of ['[]', `["${h.apikey}"]`, '"text"', '42', 'null', 'true', '']) {
        const res = await send(route, body);
        expect(res.statusCode, `${route} ${body}`).toBe(400);
        expect(res.json().status).toBe('error');
      }
  });

  it('a missing or mistyped apikey → 400 naming it; an unknown one → 403', async () => {
    for (const route of ROUTES) {
      for (const apikey of [undefined, '', 42, null, ['k'], 'k'.repeat(257)])
        expect400(await send(route, withField(route, { apikey })), 'apikey', `${route} ${String(apikey)}`);
      for (const apikey of ['f'.repeat(64), h.apikey.slice(0, 63), h.apikey.toUpperCase()]) {
        const res = await send(route, withField(route, { apikey }));
        expect(res.statusCode, route).toBe(403);
        expect(res.json()).toMatchObject({ status: 'error', message: 'Invalid algodesk apikey' });
      }
    }
  });

  it('wrong types → 400 naming the field', async () => {
    const orderids = [
      {},
      [],
      true,
      null,
      1.5,
      -1,
      '-1',
      '1.5',
      ' 1',
      '1e3',
      '0x1',
      '9'.repeat(40),
      2 ** 53 + 2,
    ];
    for (const route of BY_ID)
      for (const orderid of orderids)
        expect400(
          await send(route, withField(route, { orderid })),
          'orderid',
          `${route} ${JSON.stringify(orderid)}`,
        );
    const modify: Array<[string, unknown[]]> = [
      ['quantity', ['abc', '065', '6.5e1', 0, -65, 65.5, true, null, 1e10]],
      ['price', ['1e5', '-1', 'abc', '', '1,000', -100, {}, true, 'NaN', 'Infinity']],
      ['trigger_price', ['1e2', -1, 'x']],
      ['disclosed_quantity', [-1, 'abc', 1.5]],
      ['pricetype', ['FOO', 'market', '', 1]],
      ['exchange', ['XYZ', 'nse', '', 7]],
      ['action', ['HOLD', 'Buy', '', 1]],
      ['product', ['BO', 'mis', '']],
      ['symbol', ['', 7, 'S'.repeat(65), { $ne: null }]],
      ['strategy', [7, 'x'.repeat(101), {}]],
    ];
    for (const [field, values] of modify)
      for (const v of values)
        expect400(
          await send('modifyorder', withField('modifyorder', { [field]: v })),
          field,
          `${field} ${JSON.stringify(v)}`,
        );
    for (const field of 'symbol exchange action product pricetype price quantity orderid'.split(' '))
      expect400(
        await send('modifyorder', withField('modifyorder', { [field]: undefined })),
        field,
        `no ${field}`,
      );
    for (const route of ['cancelallorder', 'closeposition'])
      expect400(await send(route, withField(route, { strategy: { $gt: '' } })), 'strategy', route);
  });

  it('order ids that name no order of the user → 400 or 404 "not found", never a 500', async () => {
    for (const route of BY_ID) {
      for (const orderid of ['0', 0, '9'.repeat(32), '9'.repeat(16)]) {
        const res = await send(route, withField(route, { orderid }));
        expect(res.statusCode, `${route} ${orderid}`).toBe(400);
        expect(res.json()).toMatchObject({ status: 'error', mode: 'analyze' });
      }
      for (const orderid of ['999999', 999_999, String(Number.MAX_SAFE_INTEGER).slice(0, 15)]) {
        const res = await send(route, withField(route, { orderid }));
        expect(res.statusCode, `${route} ${orderid}`).toBe(404);
        expect(res.json().message).toMatch(/^Order \d+ not found$/);
      }
    }
  });

  it('amounts off the tick, past four decimals or past the exact money range → 400', async () => {
    const cases: Row[] = [
      { price: '100.03' }, // tick 0.05
      { price: '100.00001' },
      { price: 100.123456 },
      { price: 1e300 },
      { price: '999999999999.95' },
      { price: 0 },
      { quantity: 64 }, // lot 65
      // 65 × 15,384,615 lots at ₹100 = ₹1e11, far past the funds: "Insufficient funds", not a 500.
      { quantity: 999_999_975 },
      { price: '99999999999.95' }, // × 65 = ₹6.5e12
      { quantity: 999_999_975, price: '99999999999.95' },
      { pricetype: 'SL', price: 100, trigger_price: 101 }, // an SL BUY's limit below its trigger
    ];
    for (const c of cases) {
      const res = await send('modifyorder', withField('modifyorder', c));
      expect(res.statusCode, JSON.stringify(c)).toBe(400);
      expect(res.json(), JSON.stringify(c)).toMatchObject({ status: 'error', mode: 'analyze' });
    }
  });

  it('hostile strings are refused as data (4xx) and never echoed back', async () => {
    const fields = [
      'symbol',
      'exchange',
      'action',
      'product',
      'pricetype',
      'price',
      'quantity',
      'orderid',
      'apikey',
    ];
    for (const s of HOSTILE)
      for (const field of fields) {
        const res = await send('modifyorder', withField('modifyorder', { [field]: s }));
        expect([400, 403, 404], `${field} ${s}`).toContain(res.statusCode);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body, `${field} ${s}`).not.toContain(s);
        expect(res.body).not.toMatch(/<script/i);
      }
    for (const route of ROUTES) {
      const nul = await send(route, withField(route, { symbol: 'SB\u0000IN', strategy: 'a\u0000' }));
      expect(nul.statusCode, route).toBe(400);
      expect(nul.json().message).toBe('Request body must not contain NUL characters');
      const proto = await send(route, `{"__proto__":{"admin":true},"apikey":"${h.apikey}"}`);
      expect(proto.statusCode, route).toBe(400);
    }
  });

  it('a body over 1 MiB → 413 on every route, before any route logic', async () => {
    for (const route of ROUTES) {
      const res = await send(route, withField(route, { strategy: 'x'.repeat(1024 * 1024 + 1) }));
      expect(res.statusCode, route).toBe(413);
      expect(res.json()).toMatchObject({ status: 'error', message: 'Request body is too large' });
    }
  });
});

describeEachDb('analyze mode: the admin switches it; live mode has no broker yet', (dialect) => {
  let h: SandboxHarness;
  let resting = '';
  beforeEach(async () => ({ h, resting } = await tradedSandbox(dialect)));
  afterEach(() => h?.close());
  const switchTo = (mode: string, headers: Record<string, string> = asBrowser(h.admin)) =>
    h.t.app.inject({ method: 'POST', url: `/settings/analyze-mode/${mode}`, headers });
  const getMode = async (cookie = h.admin.cookie) =>
    (await h.t.app.inject({ method: 'GET', url: '/settings/analyze-mode', headers: { cookie } })).json();

  it('in live mode the books and order calls go to the broker (none here: 403); the sandbox waits', async () => {
    expect(await getMode()).toEqual({ status: 'success', analyze_mode: true, mode: 'analyze' });
    const res = await switchTo('0');
    expect(res.statusCode).toBe(200);
    const live = { status: 'success', analyze_mode: false, mode: 'live' };
    expect(res.json()).toEqual({ ...live, message: 'Switched to Live mode' });
    expect(await getMode()).toEqual(live);
    expect(h.t.services.sandbox.engine.isRunning).toBe(false);
    for (const route of ROUTES) {
      const r = await h.api(route, validBody(route, resting));
      expect(r.statusCode, route).toBe(403);
      expect(r.json().message, route).toMatch(/No broker session/);
      expect((await h.api(route, validBody(route, resting), 'f'.repeat(64))).statusCode, route).toBe(403);
    }
    expect((await switchTo('1')).json()).toMatchObject({ analyze_mode: true, mode: 'analyze' });
    expect((await h.ok<{ data: Row }>('orderstatus', { orderid: resting })).data.order_status).toBe('open');
  });

  it('a mode other than 0 or 1 → 400 and the mode is unchanged', async () => {
    for (const mode of ['2', '-1', 'abc', '01', '1.0', '%3Cscript%3E', 'x'.repeat(17)]) {
      const res = await switchTo(mode);
      expect(res.statusCode, mode).toBe(400);
      expect(res.body).not.toMatch(/<script/i);
    }
    expect((await getMode()).mode).toBe('analyze');
  });

  it('a non-administrator gets 403, a missing CSRF token 403, no session 401; the mode is unchanged', async () => {
    await h.t.services.auth.users.create({ username: 'bob', password: 'bob horse battery' });
    const bob = await login(h.t, 'bob', 'bob horse battery');
    expect((await switchTo('0', asBrowser(bob))).statusCode).toBe(403);
    expect(await getMode(bob.cookie)).toMatchObject({ mode: 'analyze' }); // any user may read it
    expect((await switchTo('0', { cookie: h.admin.cookie })).statusCode).toBe(403);
    expect((await switchTo('0', { cookie: h.admin.cookie, 'x-csrf-token': bob.csrf })).statusCode).toBe(403);
    expect((await switchTo('0', {})).statusCode).toBe(401);
    expect((await getMode()).mode).toBe('analyze');
    expect((await h.api('orderbook')).statusCode).toBe(200);
  });
});

describeEachDb('sandbox API: the API key never appears in a response or a log line', (dialect) => {
  let h: SandboxHarness;
  let resting = '';
  beforeEach(async () => ({ h, resting } = await tradedSandbox(dialect)));
  afterEach(() => h?.close());

  it('successes, validation errors, 403s, 404s, 413s, malformed bodies and live mode leak nothing', async () => {
    const key = h.apikey;
    const responses: LightMyRequestResponse[] = [];
    const raw = (route: string, payload: string) =>
      h.t.app.inject({
        method: 'POST',
        url: `/api/v1/${route}`,
        payload,
        headers: { 'content-type': JSON_TYPE },
      });
    for (const route of ROUTES) {
      const body = validBody(route, resting);
      if (route !== 'cancelorder' && route !== 'cancelallorder') responses.push(await h.api(route, body));
      if (BY_ID.includes(route)) responses.push(await h.api(route, { ...body, orderid: { key } }));
      responses.push(await h.api(route, body, key + '0'));
      responses.push(await h.api(route, body, key.slice(0, 63) + (key.endsWith('0') ? '1' : '0')));
      responses.push(await raw(route, `{"apikey":"${key}","orderid":`));
      responses.push(await raw(route, `["${key}"]`));
      responses.push(await raw(route, JSON.stringify({ apikey: key, pad: 'x'.repeat(1_100_000) })));
    }
    // The key where an order field belongs: refused or looked up, never repeated.
    for (const field of 'symbol exchange action product pricetype price quantity orderid'.split(' '))
      responses.push(await h.api('modifyorder', { ...validBody('modifyorder', resting), [field]: key }));
    responses.push(await h.api('orderstatus', { orderid: '424242' }));
    await h.t.app.inject({ method: 'POST', url: '/settings/analyze-mode/0', headers: asBrowser(h.admin) });
    for (const route of ROUTES) responses.push(await h.api(route, validBody(route, resting)));

    expect(responses.map((r) => r.statusCode)).toEqual(expect.arrayContaining([200, 400, 403, 404, 413]));
    await h.t.services.observability.traffic.flush();
    const logs = h.t.logs.join('\n');
    expect(h.t.logs.length).toBeGreaterThan(20);
    for (const secret of [key, key.slice(0, 16), key.slice(-16)]) {
      for (const r of responses) {
        expect(r.body.includes(secret), `${r.statusCode} ${r.body.slice(0, 120)}`).toBe(false);
        expect(JSON.stringify(r.headers).includes(secret)).toBe(false);
      }
      expect(logs.includes(secret), 'key in logs').toBe(false);
    }
  });
});
