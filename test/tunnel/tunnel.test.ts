/**
 * The public tunnel (issue 10; spec "Public tunnel" state table, "Authentication" public tunnel,
 * "Limits" tunnel paragraph) with the fake provider: every row of the state table, the flag's
 * values, the custom domain rule, the warnings, the host route, and the auth token kept out of logs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { FakeTunnelDriver } from '../../src/modules/tunnel/fake-tunnel.driver.js';
import { createTunnelApp, records, warnings, type TunnelTestApp } from '../helpers/tunnel-app.js';
import { importContract } from '../helpers/contracts.js';
import { miniKiteContract } from '../helpers/sandbox.js';
import { SIGNAL_SBIN } from '../helpers/strategies.js';
import { asBrowser, createUser, describeEachDb, login, type TestApp } from '../helpers/test-app.js';

const RANDOM_URL = 'https://a1b2-203-0-113-7.ngrok-free.app';
let open: TunnelTestApp[] = [];
afterEach(async () => {
  await Promise.all(open.map((t) => t.close()));
  open = [];
});

async function tunnelApp(
  env: Record<string, string>,
  driver = new FakeTunnelDriver(),
  startTimeoutMs?: number,
) {
  const t = await createTunnelApp({ env, driver, ...(startTimeoutMs ? { startTimeoutMs } : {}) });
  open.push(t);
  return { t, driver };
}

/** The host route as the logged-in administrator sees it. */
async function hostConfig(t: TunnelTestApp) {
  await createUser(t as unknown as TestApp);
  const admin = await login(t as unknown as TestApp);
  const res = await t.app.inject({
    method: 'GET',
    url: '/api/config/host',
    headers: { cookie: admin.cookie },
  });
  expect(res.statusCode).toBe(200);
  return res.json() as { host_server: string; public_url: string | null; is_localhost: boolean };
}

describe('TUNNEL_ALLOW: only a case-insensitive TRUE opens the tunnel', () => {
  it.each(['true', 'TRUE', 'True'])(
    '%s: off → tunnel up at start-up, public URL held in memory',
    async (flag) => {
      const { t, driver } = await tunnelApp({ TUNNEL_ALLOW: flag });
      expect(driver.requests).toEqual([]); // nothing before the port is bound
      expect(await t.listen()).toBe(RANDOM_URL);
      const port = new URL(t.base).port;
      expect(driver.requests).toEqual([{ forwardTo: `http://127.0.0.1:${port}`, domain: undefined }]);
      expect(driver.isOpen).toBe(true);
      expect(t.services.tunnel.publicUrl()).toBe(RANDOM_URL);
      // The startup log prints the public URL once.
      expect(records(t.logs).filter((r) => r.msg.includes(RANDOM_URL))).toHaveLength(1);
    },
  );

  it.each([
    ['yes', { TUNNEL_ALLOW: 'yes' }],
    ['1', { TUNNEL_ALLOW: '1' }],
    ['on', { TUNNEL_ALLOW: 'on' }],
    ['false', { TUNNEL_ALLOW: 'false' }],
    ['empty', { TUNNEL_ALLOW: '' }],
    ['unset', {}],
  ])('%s: stays off (no tunnel opened, no URL)', async (_name, env) => {
    const { t, driver } = await tunnelApp(env);
    expect(await t.listen()).toBeNull();
    expect(driver.requests).toEqual([]);
    expect(t.services.tunnel.publicUrl()).toBeNull();
    expect(warnings(t.logs)).toEqual([]);
  });

  it('config: the flag parses to true only for a case-insensitive "true" (surrounding blanks trimmed)', () => {
    const allow = (v?: string) =>
      loadConfig(v === undefined ? {} : { TUNNEL_ALLOW: v }, { envFile: false }).tunnelAllow;
    expect([allow('true'), allow('TRUE'), allow('True'), allow(' true ')]).toEqual([true, true, true, true]);
    expect([allow('yes'), allow('1'), allow(''), allow('truee'), allow(undefined)]).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('start-up stops any tunnel this service holds before evaluating the flag', () => {
  it('a second start closes the first tunnel, then opens again (flag on)', async () => {
    const { t, driver } = await tunnelApp({ TUNNEL_ALLOW: 'true' });
    await t.listen();
    const closesBefore = driver.closeCalls;
    const address = { address: '127.0.0.1', port: Number(new URL(t.base).port) };
    expect(await t.services.tunnel.manager.start(address)).toBe(RANDOM_URL);
    expect(driver.closeCalls).toBe(closesBefore + 1);
    expect(driver.requests).toHaveLength(2);
    expect(records(t.logs).filter((r) => r.msg === 'public tunnel disconnected')).toHaveLength(1);
  });

  it('with the flag off, start-up still closes first and opens nothing', async () => {
    const { t, driver } = await tunnelApp({ TUNNEL_ALLOW: 'no' });
    await t.listen();
    expect(driver.closeCalls).toBe(1);
    expect(driver.requests).toEqual([]);
  });
});

describe('HOST_SERVER: a public host is requested as the custom domain, a local one gets a random URL', () => {
  it('https://algo.example.com → domain algo.example.com, public URL on it', async () => {
    const { t, driver } = await tunnelApp({ TUNNEL_ALLOW: 'true', HOST_SERVER: 'https://algo.example.com' });
    expect(await t.listen()).toBe('https://algo.example.com');
    expect(driver.requests[0]?.domain).toBe('algo.example.com');
    expect(await hostConfig(t)).toEqual({
      host_server: 'https://algo.example.com',
      public_url: 'https://algo.example.com',
      is_localhost: false,
    });
  });

  it.each(['http://127.0.0.1:5000', 'http://localhost:5000', 'http://192.168.1.10:5000'])(
    '%s → random URL',
    async (hostServer) => {
      const { t, driver } = await tunnelApp({ TUNNEL_ALLOW: 'true', HOST_SERVER: hostServer });
      expect(await t.listen()).toBe(RANDOM_URL);
      expect(driver.requests[0]?.domain).toBeUndefined();
    },
  );
});

describe('a failing start: logged, no URL, the service keeps serving', () => {
  it('a provider error is logged once and the app answers requests', async () => {
    const { t, driver } = await tunnelApp({ TUNNEL_ALLOW: 'true' }, new FakeTunnelDriver('fail'));
    expect(await t.listen()).toBeNull();
    expect(t.services.tunnel.publicUrl()).toBeNull();
    expect(driver.isOpen).toBe(false);
    const failure = records(t.logs).filter((r) => r.msg.startsWith('public tunnel failed to start'));
    expect(failure).toHaveLength(1);
    expect(failure[0]).toMatchObject({
      level: 50,
      reason: expect.stringContaining('failed to connect session'),
    });
    const res = await fetch(`${t.base}/api/config/host`);
    expect(res.status).toBe(401); // served (and guarded) as usual
    expect((await hostConfig(t)).public_url).toBeNull();
  });

  it('a provider that never answers is abandoned at the start-up bound', async () => {
    const { t, driver } = await tunnelApp({ TUNNEL_ALLOW: 'true' }, new FakeTunnelDriver('hang'), 300);
    const started = Date.now();
    expect(await t.listen()).toBeNull();
    expect(Date.now() - started).toBeLessThan(300 + 2_000);
    expect(driver.closeCalls).toBeGreaterThanOrEqual(2); // start-up's stop-first and the abandon
    expect(records(t.logs).find((r) => r.msg.startsWith('public tunnel failed'))?.reason).toMatch(
      /within 0.3 s/,
    );
    expect((await fetch(`${t.base}/api/config/host`)).status).toBe(401);
  });
});

describe('shutdown (process exit, SIGINT, SIGTERM → app.close()) disconnects the tunnel', () => {
  it('tunnel up → off: the provider is closed and the URL forgotten', async () => {
    const driver = new FakeTunnelDriver();
    const t = await createTunnelApp({ env: { TUNNEL_ALLOW: 'true' }, driver });
    await t.listen();
    expect(driver.isOpen).toBe(true);
    await t.close(); // what serve's SIGINT/SIGTERM handler calls
    expect(driver.isOpen).toBe(false);
    expect(t.services.tunnel.publicUrl()).toBeNull();
    expect(records(t.logs).filter((r) => r.msg === 'public tunnel disconnected')).toHaveLength(1);
  });

  it('a shutdown during a start cuts it short: no tunnel is opened afterwards', async () => {
    const driver = new FakeTunnelDriver('hang');
    const t = await createTunnelApp({ env: { TUNNEL_ALLOW: 'true' }, driver, startTimeoutMs: 30_000 });
    const listening = t.listen();
    await new Promise((r) => setTimeout(r, 20));
    const started = Date.now();
    await t.close();
    expect(await listening).toBeNull();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(t.services.tunnel.publicUrl()).toBeNull();
    expect(records(t.logs).some((r) => r.msg.startsWith('public tunnel failed'))).toBe(false);
  });
});

describe('start-up warnings when the tunnel is on', () => {
  it('debug logging is warned about; the strategy webhook (URL token) needs no secret warning', async () => {
    const { t } = await tunnelApp({ TUNNEL_ALLOW: 'true', LOG_LEVEL: 'debug', TRUST_PROXY_HEADERS: 'true' });
    await t.listen();
    expect(t.services.tunnel.webhookRoutes).toContainEqual({
      method: 'POST',
      url: '/strategy/webhook/:token',
    });
    expect(warnings(t.logs)).toEqual([
      expect.stringContaining('LOG_LEVEL=debug while the public tunnel is on'),
    ]);
  });

  it('without TRUST_PROXY_HEADERS the loopback sender address is warned about', async () => {
    const { t } = await tunnelApp({ TUNNEL_ALLOW: 'true', LOG_LEVEL: 'info' });
    await t.listen();
    expect(warnings(t.logs)).toEqual([expect.stringContaining('forwards from loopback')]);
  });

  it('no tunnel, no warnings (debug logging on a local port is fine)', async () => {
    const { t } = await tunnelApp({ LOG_LEVEL: 'debug' });
    await t.listen();
    expect(warnings(t.logs)).toEqual([]);
  });
});

describe('the ngrok auth token never appears in a log line', () => {
  const TOKEN = '2fakeAuthTokenForTests00000_9FakeSecretPartForTests';
  it('not when the provider echoes it in its error, at trace level', async () => {
    const failing = new FakeTunnelDriver(
      'fail',
      `ERR_NGROK_105: The authtoken you specified does not look like a proper ngrok authtoken. Your authtoken: ${TOKEN}`,
    );
    const { t } = await tunnelApp({ TUNNEL_ALLOW: 'true', LOG_LEVEL: 'trace' }, failing);
    await t.listen();
    await hostConfig(t);
    await t.app.close();
    expect(t.logs.join('\n')).toContain('ERR_NGROK_105');
    expect(t.logs.join('\n')).not.toContain(TOKEN);
    expect(t.logs.join('\n')).not.toContain('9FakeSecretPartForTests');
  });
});

describeEachDb('GET /api/config/host', (dialect) => {
  it('needs a session; answers host_server, public_url (null while off) and is_localhost', async () => {
    const t = await createTunnelApp({ dialect, env: {}, driver: new FakeTunnelDriver() });
    open.push(t);
    expect((await t.app.inject({ method: 'GET', url: '/api/config/host' })).statusCode).toBe(401);
    expect(await hostConfig(t)).toEqual({
      host_server: 'http://127.0.0.1:5000',
      public_url: null,
      is_localhost: true,
    });
  });

  it('shows HOST_SERVER without its user, password, query or fragment (as the system snapshot does)', async () => {
    const t = await createTunnelApp({
      dialect,
      env: { HOST_SERVER: 'https://user:secret@example.com/base?x=1#frag' },
      driver: new FakeTunnelDriver(),
    });
    open.push(t);
    const host = await hostConfig(t);
    expect(host).toEqual({ host_server: 'https://example.com/base', public_url: null, is_localhost: false });
    for (const leaked of ['user', 'secret', 'x=1', 'frag'])
      expect(JSON.stringify(host)).not.toContain(leaked);
  });

  it('shows the tunnel URL while it is up', async () => {
    const t = await createTunnelApp({
      dialect,
      env: { TUNNEL_ALLOW: 'TRUE' },
      driver: new FakeTunnelDriver(),
    });
    open.push(t);
    await t.listen();
    expect(await hostConfig(t)).toMatchObject({ public_url: RANDOM_URL, is_localhost: true });
  });
});

describe('webhook URLs are shown on the public URL while the tunnel is up', () => {
  it("a new strategy's webhook_url starts with the tunnel URL, not HOST_SERVER", async () => {
    const { t } = await tunnelApp({ TUNNEL_ALLOW: 'true' });
    await t.listen();
    await createUser(t as unknown as TestApp);
    const admin = await login(t as unknown as TestApp);
    await importContract(t as unknown as TestApp, 'zerodha', miniKiteContract());
    const res = await t.app.inject({
      method: 'POST',
      url: '/strategy/api/strategies',
      headers: asBrowser(admin),
      payload: SIGNAL_SBIN,
    });
    expect(res.statusCode).toBe(201);
    expect((res.json() as { data: { webhook_url: string } }).data.webhook_url).toMatch(
      new RegExp(`^${RANDOM_URL.replace(/\./g, '\\.')}/strategy/webhook/whk_`),
    );
  });
});
