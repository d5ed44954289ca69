/**
 * The server side of the account pages (docs/rules/web.md#account-pages), on both databases:
 * `GET /broker/api/status` (none / connected / expired, never the token), `BROKER_LOGIN_URL` as
 * the login page's origin, the login callback sending a browser's navigation to `/broker` with the
 * outcome while scripts keep the JSON answer, and the master contract status's `progress` (while
 * a download runs) and `live` (the contract in use, kept after a failed run).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { App } from '../../src/platform/http/types.js';
import { startKiteOrderStub, type KiteOrderStub } from '../helpers/broker-order-stubs.js';
import { kiteCombined } from '../helpers/contracts.js';
import { KITE_CREDS, startKiteOrders, type OrdersApp } from '../helpers/orders-app.js';
import {
  asBrowser,
  createTestApp,
  createTestDeps,
  createUser,
  describeEachDb,
  login,
  type Browser,
  type TestApp,
  type TestDeps,
} from '../helpers/test-app.js';
import { ensureWebBuild, WEB_DIST } from '../helpers/web-build.js';

interface BrokerStatus {
  status: string;
  broker: string | null;
  login_available: boolean;
  login_kind: 'redirect' | 'form' | null;
  app_id: number | null;
  apps: unknown[];
  login_fields: unknown[];
  state: 'none' | 'connected' | 'expired';
  session: null | {
    broker: string;
    broker_user_id: string | null;
    connected_at: string;
    expires_at: string | null;
  };
}

describeEachDb('GET /broker/api/status and BROKER_LOGIN_URL', (dialect) => {
  let stub: KiteOrderStub;
  let o: OrdersApp;
  beforeAll(async () => {
    ({ stub, o } = await startKiteOrders(dialect, ['SBIN'], {
      env: { BROKER_LOGIN_URL: 'https://login.example.test/' },
    }));
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });
  const status = async () => {
    const res = await o.web('GET', '/broker/api/status');
    expect(res.statusCode).toBe(200);
    return res.json() as BrokerStatus;
  };

  it('needs a session', async () => {
    const res = await o.t.app.inject({ method: 'GET', url: '/broker/api/status' });
    expect(res.statusCode).toBe(401);
  });

  it('says none, connected (with its times and account) and expired — never the token', async () => {
    expect((await o.web('DELETE', '/broker/session')).statusCode).toBe(200);
    expect(await status()).toEqual({
      status: 'success',
      broker: 'zerodha',
      app_id: 0,
      apps: [{ id: 0, label: 'Server configuration (BROKER_*)', broker: 'zerodha' }],
      login_available: true,
      login_kind: 'redirect',
      login_fields: [],
      state: 'none',
      session: null,
    });
    const now = o.t.clock.now();
    await o.t.services.brokers.sessions.set(
      1,
      'zerodha',
      { accessToken: KITE_CREDS.accessToken, brokerUserId: 'ZX4821' },
      now + 3_600_000,
    );
    const res = await o.web('GET', '/broker/api/status');
    expect(res.body).not.toContain(KITE_CREDS.accessToken);
    expect(res.body).not.toContain(KITE_CREDS.apiKey);
    expect(res.json()).toEqual({
      status: 'success',
      broker: 'zerodha',
      app_id: 0,
      apps: [{ id: 0, label: 'Server configuration (BROKER_*)', broker: 'zerodha' }],
      login_available: true,
      login_kind: 'redirect',
      login_fields: [],
      state: 'connected',
      session: {
        broker: 'zerodha',
        broker_user_id: 'ZX4821',
        connected_at: new Date(now).toISOString(),
        expires_at: new Date(now + 3_600_000).toISOString(),
      },
    });
    o.t.clock.advance(3_600_000);
    expect(await status()).toMatchObject({ state: 'expired', session: { broker_user_id: 'ZX4821' } });
    await o.t.services.brokers.sessions.set(1, 'zerodha', { accessToken: KITE_CREDS.accessToken });
    expect(await status()).toMatchObject({ state: 'connected', session: { expires_at: null } });
  });

  it('sends the browser to the login page at BROKER_LOGIN_URL', async () => {
    const res = await o.web('GET', '/broker/login');
    expect(res.statusCode).toBe(302);
    const to = new URL(res.headers.location as string);
    expect(to.origin + to.pathname).toBe('https://login.example.test/connect/login');
    expect(to.searchParams.get('api_key')).toBe(KITE_CREDS.apiKey);
  });
});

describeEachDb('the broker login callback with the console built', (dialect) => {
  let kite: KiteOrderStub;
  let t: TestDeps;
  let app: App;
  let admin: Browser;
  beforeAll(async () => {
    await ensureWebBuild();
    kite = await startKiteOrderStub({ apiKey: 'cbkey', apiSecret: 'cbsecret', accessToken: 'none' });
    t = await createTestDeps(dialect, { env: kite.appEnv() });
    ({ app } = await buildApp({ ...t.deps, webRoot: WEB_DIST }));
    await app.ready();
    await app.auth.users.createFirst({
      username: 'admin',
      password: 'callback horse battery',
      email: 'a@example.com',
    });
    admin = await login({ app } as TestApp, 'admin', 'callback horse battery');
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await t?.release();
    await kite?.close();
  });

  /** A fresh login round trip's `state`, as the broker echoes it. */
  const freshState = async () => {
    const res = await app.inject({ method: 'GET', url: '/broker/login', headers: { cookie: admin.cookie } });
    const params = new URLSearchParams(
      new URL(res.headers.location as string).searchParams.get('redirect_params')!,
    );
    return params.get('state')!;
  };
  const callback = (query: string, accept: string) =>
    app.inject({
      method: 'GET',
      url: `/zerodha/callback?${query}`,
      headers: { cookie: admin.cookie, accept },
    });
  const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

  it('a refused login lands on /broker with the reason, nothing stored', async () => {
    const state = await freshState();
    const res = await callback(`request_token=unknown&status=success&state=${state}`, HTML);
    expect(res.statusCode).toBe(302);
    const to = new URL(res.headers.location as string, 'http://x');
    expect(to.pathname).toBe('/broker');
    expect(to.searchParams.get('login')).toBe('failed');
    expect(to.searchParams.get('message')).toMatch(/^Broker login failed: /);
    expect(res.headers.location).not.toContain('cbsecret');
    const forged = await callback(`request_token=x&status=success&state=1.1.${'0'.repeat(32)}`, HTML);
    expect(new URL(forged.headers.location as string, 'http://x').searchParams.get('message')).toMatch(
      /state is missing, invalid or expired/,
    );
    expect(await t.db.database.db.selectFrom('broker_sessions').selectAll().execute()).toEqual([]);
  });

  it('a completed login lands on /broker?login=success with the session stored', async () => {
    const res = await callback(
      `request_token=${kite.issueRequestToken()}&status=success&state=${await freshState()}`,
      HTML,
    );
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/broker?login=success');
    const rows = await t.db.database.db.selectFrom('broker_sessions').selectAll().execute();
    expect(rows.map((r) => r.broker)).toEqual(['zerodha']);
  });

  it('a script (Accept: application/json) keeps the JSON answer', async () => {
    const res = await callback(
      `request_token=${kite.issueRequestToken()}&status=success&state=${await freshState()}`,
      'application/json',
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'success', message: 'Logged in to zerodha', broker: 'zerodha' });
    const bad = await callback(
      `request_token=unknown&status=success&state=${await freshState()}`,
      'application/json',
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/^Broker login failed/),
    });
  });
});

interface ContractStatus {
  status: string;
  import_id: number | null;
  progress?: { bytes: number; rows: number; skipped: number } | null;
  live?: {
    import_id: number;
    broker: string;
    total_symbols: number;
    by_exchange: Record<string, Record<string, number>>;
    loaded_at: string | null;
  } | null;
}

describeEachDb(
  'the master contract status: progress of a running download and the contract in use',
  (dialect) => {
    let t: TestApp;
    let admin: Browser;
    let server: Server;
    let release: () => void = () => undefined;
    let mode: 'held' | 'missing' = 'held';
    beforeAll(async () => {
      const csv = kiteCombined();
      server = createServer((req, res) => {
        if (req.url !== '/instruments' || mode === 'missing') return void res.writeHead(404).end('not found');
        res.writeHead(200, { 'content-type': 'text/csv' });
        res.write(csv.subarray(0, Math.floor(csv.length * 0.6)));
        void new Promise<void>((r) => (release = r)).then(() =>
          res.end(csv.subarray(Math.floor(csv.length * 0.6))),
        );
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      t = await createTestApp(dialect, {
        env: { MASTER_CONTRACT_BASE_URL: url, MASTER_CONTRACT_BROKER: 'zerodha' },
      });
      await createUser(t);
      admin = await login(t);
    });
    afterAll(async () => {
      await t?.close();
      await new Promise((r) => server?.close(r));
    });
    const status = async () =>
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/master-contract/status',
          headers: { cookie: admin.cookie },
        })
      ).json() as ContractStatus;
    const download = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/master-contract/download',
        headers: asBrowser(admin),
        payload: {},
      });
    async function until(check: (s: ContractStatus) => boolean): Promise<ContractStatus> {
      for (let i = 0; i < 600; i++) {
        const s = await status();
        if (check(s)) return s;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error('the status never matched');
    }

    it('is empty before any import', async () => {
      expect(await status()).toMatchObject({
        status: 'pending',
        import_id: null,
        progress: null,
        live: null,
      });
    });

    it('shows the rows read so far while the file arrives, then the contract in use', async () => {
      expect((await download()).statusCode).toBe(202);
      const running = await until((s) => (s.progress?.rows ?? 0) > 0);
      expect(running.status).toBe('downloading');
      expect(running.progress!.bytes).toBeGreaterThan(0);
      expect(running.live).toBeNull();
      release();
      const done = await until((s) => s.status === 'success');
      await t.services.market.contracts.whenIdle();
      expect(done.progress).toBeNull();
      expect(done.live).toMatchObject({ import_id: done.import_id, broker: 'zerodha', total_symbols: 4_774 });
      expect(done.live!.by_exchange.NFO).toMatchObject({ CE: 1_090, PE: 1_089, FUT: 640 });
      expect(done.live!.loaded_at).toBe(new Date(t.clock.now()).toISOString());
    });

    it('keeps the earlier contract as the one in use after a failed download', async () => {
      const before = await status();
      mode = 'missing';
      expect((await download()).statusCode).toBe(202);
      const failed = await until((s) => s.status === 'error');
      expect(failed.import_id).not.toBe(before.import_id);
      expect(failed.live).toEqual(before.live);
      expect(failed.progress).toBeNull();
    });
  },
);
