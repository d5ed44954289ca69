import { randomBytes } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { PROBE_TIMEOUT_MS } from '../../src/modules/system/diagnostics.js';
import { REPORT_MAX_BYTES } from '../../src/modules/system/report.js';
import { adminGet, adminPost, closedPort, hangingServer } from '../helpers/observability.js';
import { appWithAdmin, describeEachDb, type Browser, type TestApp } from '../helpers/test-app.js';

const SECTIONS = ['brokers', 'build', 'config', 'databases', 'hardware', 'host', 'mode', 'runtime', 'time'];

describeEachDb('system snapshot', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  afterEach(() => t.close());

  it("has exactly the spec's sections, no-store, and the event bus and instrument index in runtime", async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const res = await adminGet(t, admin, '/admin/api/system');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const data = res.json().data;
    expect(Object.keys(data).sort()).toEqual(SECTIONS);
    expect(data.mode).toBe('Live');
    expect(Object.keys(data.host).sort()).toEqual(
      [
        'board_model',
        'container',
        'distro',
        'hostname',
        'machine',
        'os',
        'platform',
        'release',
        'single_board',
        'terminal_emulator',
        'wsl',
      ].sort(),
    );
    expect(data.runtime).toMatchObject({
      node: process.version,
      event_bus: { pending: 0, dropped: 0, workers: 10, queue_limit: 1000 },
      instrument_index: { enabled: true, ready: false, instruments: 0 },
      event_loop_delay: { window_s: 60 },
    });
    expect(data.hardware.cpu_count).toBeGreaterThan(0);
    expect(data.hardware.disk.total_bytes).toBeGreaterThan(0);
    expect(data.build).toMatchObject({ version: '0.1.0', source: 'src' });
    expect(data.databases).toHaveLength(1);
    expect(data.databases[0]).toMatchObject({ kind: dialect, present: true });
    expect(data.databases[0].size_bytes).toBeGreaterThan(0);
    if (dialect === 'sqlite')
      expect(data.databases[0]).toMatchObject({ file: 'algodesk.db', modified: expect.any(String) });
    expect(data.time).toMatchObject({
      server_time: new Date(t.clock.now()).toISOString(),
      ist: '2026-01-05 09:30:00 IST',
    });
    expect(data.brokers).toMatchObject({
      configured: null,
      available: ['angel', 'dhan', 'flattrade', 'fyers', 'shoonya', 'upstox', 'zerodha'],
      active_session: null,
    });
    expect(data.config.secrets_present).toMatchObject({
      app_key: true,
      api_key_pepper: true,
      broker_api_key: false,
    });
    // The generated install secrets are random: strong.
    expect(data.config.secret_strength).toEqual({ app_key: true, api_key_pepper: true, salt: true });
  });

  it('reports the analyzer mode and a published sample secret as weak', async () => {
    ({ t, admin } = await appWithAdmin(dialect, {
      env: { APP_KEY: 'change-me-to-64-random-hex-characters' },
    }));
    expect((await adminPost(t, admin, '/settings/analyze-mode/1')).statusCode).toBe(200);
    const data = (await adminGet(t, admin, '/admin/api/system')).json().data;
    expect(data.mode).toBe('Analyze');
    expect(data.config.secret_strength).toMatchObject({ app_key: false, api_key_pepper: true });
  });

  it('with every secret set to a known value, none appears in the snapshot, the report or the error log', async () => {
    const v = (name: string) => `${name}${randomBytes(12).toString('hex')}`;
    const secrets = {
      APP_KEY: v('AppKeySecret'),
      API_KEY_PEPPER: v('PepperSecret'),
      BROKER_API_KEY: v('BrokerKeySecret'),
      BROKER_API_SECRET: v('BrokerSecretSecret'),
      DB_PASSWORD: v('DbPassSecret'),
      REDIS_PASSWORD: v('RedisPassSecret'),
      HOST_PASSWORD: v('HostPassSecret'),
      REDIRECT_PATH: v('RedirectSecret'),
      NGROK_AUTHTOKEN: v('NgrokTokenSecret'),
    };
    ({ t, admin } = await appWithAdmin(dialect, {
      env: {
        APP_KEY: secrets.APP_KEY,
        API_KEY_PEPPER: secrets.API_KEY_PEPPER,
        BROKER_NAME: 'zerodha',
        BROKER_API_KEY: secrets.BROKER_API_KEY,
        BROKER_API_SECRET: secrets.BROKER_API_SECRET,
        BROKER_REDIRECT_URL: `https://cb.example/${secrets.REDIRECT_PATH}`,
        DATABASE_URL: `postgres://algo:${secrets.DB_PASSWORD}@db.invalid:5432/algodesk`,
        REDIS_URL: `redis://:${secrets.REDIS_PASSWORD}@127.0.0.1:1/0`,
        HOST_SERVER: `http://ops:${secrets.HOST_PASSWORD}@127.0.0.1:5000`,
        NGROK_AUTHTOKEN: secrets.NGROK_AUTHTOKEN,
      },
    }));
    const smtpPassword = v('SmtpPassSecret');
    const botToken = `123456789:${v('BotTok').slice(0, 40)}`;
    const brokerToken = v('BrokerAccessToken');
    await t.services.mail.settings.update({
      smtp_server: 'smtp.example.com',
      smtp_password: smtpPassword,
      smtp_from_email: 'desk@example.com',
    });
    await t.services.alerts.settings.update(1, { telegram_bot_token: botToken });
    await t.services.brokers.sessions.set(
      1,
      'zerodha',
      { accessToken: brokerToken },
      t.clock.now() + 3_600_000,
    );
    await t.services.brokers.sessions.refreshPrimary();
    // A warning that names secrets under redacted keys lands in the error log and the report.
    t.app.log.warn(
      { token: brokerToken, password: smtpPassword, secret: secrets.BROKER_API_SECRET },
      'auth trouble',
    );

    const res = await adminGet(t, admin, '/admin/api/system');
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.config.secrets_present).toEqual({
      app_key: true,
      api_key_pepper: true,
      broker_api_key: true,
      broker_api_secret: true,
      market_data_broker_api_key: false,
      market_data_broker_api_secret: false,
      broker_redirect_url: true,
      smtp_password: true,
      telegram_bot_token: true,
    });
    expect(data.brokers).toMatchObject({ configured: 'zerodha', active_session: { broker: 'zerodha' } });
    expect(data.config).toMatchObject({
      database_host: 'postgres://db.invalid:5432',
      redis: 'redis://127.0.0.1:1',
      host_server: 'http://127.0.0.1:5000',
    });
    const bodies = [
      res.body,
      (await adminGet(t, admin, '/admin/api/system/report?format=md')).body,
      (await adminGet(t, admin, '/admin/api/system/report?format=txt')).body,
      (await adminGet(t, admin, '/admin/api/errors')).body,
      (await adminGet(t, admin, '/admin/api/errors/groups')).body,
    ];
    expect(bodies[3]).toContain('auth trouble');
    expect(bodies[1]).toContain('auth trouble');
    const all = { ...secrets, smtpPassword, botToken, brokerToken };
    for (const [name, value] of Object.entries(all))
      for (const [i, body] of bodies.entries())
        expect(body.includes(value), `${name} in response ${i}`).toBe(false);
  });
});

describeEachDb('system diagnostics', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  let hang: Awaited<ReturnType<typeof hangingServer>> | undefined;
  afterEach(async () => {
    await t.close();
    await hang?.close();
    hang = undefined;
  });

  it('returns within its bound while targets accept and never answer, each probe with ok, ms and detail', async () => {
    hang = await hangingServer();
    ({ t, admin } = await appWithAdmin(dialect, {
      env: {
        HOST_SERVER: `http://127.0.0.1:${hang.port}`,
        BROKER_NAME: 'zerodha',
        BROKER_API_BASE_URL: `https://127.0.0.1:${hang.port}`,
        REDIS_URL: `redis://127.0.0.1:${hang.port}/0`,
      },
    }));
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const started = performance.now();
    const res = await adminPost(t, admin, '/admin/api/system/diagnostics');
    const took = performance.now() - started;
    expect(res.statusCode).toBe(200);
    expect(took).toBeLessThan(PROBE_TIMEOUT_MS + 1_500);
    const data = res.json().data;
    expect(data).toMatchObject({ ok: false, timeout_ms: PROBE_TIMEOUT_MS });
    const probe = (name: string) => data.probes.find((p: { name: string }) => p.name === name);
    expect(data.probes.map((p: { name: string }) => p.name)).toEqual([
      'database',
      'http_loopback',
      'host_server',
      'redis',
      'broker_zerodha',
      'sandbox_ledger',
    ]);
    expect(probe('database')).toMatchObject({ ok: true, skipped: false });
    expect(probe('sandbox_ledger')).toMatchObject({
      ok: true,
      detail: '0 sandbox accounts agree with their trade books',
    });
    expect(probe('http_loopback')).toMatchObject({ ok: true, detail: 'HTTP 401' });
    for (const name of ['host_server', 'redis', 'broker_zerodha']) {
      expect(probe(name), name).toMatchObject({
        ok: false,
        skipped: false,
        detail: `no answer within ${PROBE_TIMEOUT_MS} ms`,
      });
      expect(probe(name).ms).toBeGreaterThanOrEqual(PROBE_TIMEOUT_MS - 50);
    }
    expect(probe('broker_zerodha').target).toBe(`https://127.0.0.1:${hang.port}`);
    // Every probe let go of its connection.
    await expect.poll(() => hang!.connections(), { timeout: 2_000 }).toBe(0);
  });

  it('reports a refused target at once, a plain TCP connect to an http broker, and skips Redis when unset', async () => {
    hang = await hangingServer();
    const closed = await closedPort();
    ({ t, admin } = await appWithAdmin(dialect, {
      env: {
        HOST_SERVER: `http://127.0.0.1:${closed}`,
        BROKER_NAME: 'upstox',
        BROKER_API_BASE_URL: `http://127.0.0.1:${hang.port}`,
      },
    }));
    const res = await adminPost(t, admin, '/admin/api/system/diagnostics');
    const probes = res.json().data.probes as {
      name: string;
      ok: boolean;
      skipped: boolean;
      detail: string;
    }[];
    const by = Object.fromEntries(probes.map((p) => [p.name, p]));
    expect(by.host_server).toMatchObject({ ok: false });
    expect(by.host_server!.detail).toMatch(/ECONNREFUSED/);
    expect(by.http_loopback).toMatchObject({ ok: false, skipped: true });
    expect(by.redis).toMatchObject({ ok: false, skipped: true, detail: 'REDIS_URL is not set' });
    expect(by.broker_upstox).toMatchObject({ ok: true, detail: 'TCP connected' });
  });

  it('is limited to 10 per minute', async () => {
    const closed = await closedPort();
    ({ t, admin } = await appWithAdmin(dialect, { env: { HOST_SERVER: `http://127.0.0.1:${closed}` } }));
    for (let i = 0; i < 10; i++)
      expect((await adminPost(t, admin, '/admin/api/system/diagnostics')).statusCode).toBe(200);
    expect((await adminPost(t, admin, '/admin/api/system/diagnostics')).statusCode).toBe(429);
    // Other admin routes are not spent by it.
    expect((await adminGet(t, admin, '/admin/api/system')).statusCode).toBe(200);
  });
});

describeEachDb('system report', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  afterEach(() => t.close());

  it('downloads as Markdown or text with a timestamped file name: snapshot, error summary, last errors', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    t.app.log.child({ module: 'orders' }).error({ err: new Error('kite 502') }, 'order 7 failed');
    await adminPost(t, admin, '/admin/api/errors/client', {
      message: 'chart crashed',
      url: 'https://d.example/x',
    });
    const md = await adminGet(t, admin, '/admin/api/system/report');
    expect(md.statusCode).toBe(200);
    expect(md.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(md.headers['content-disposition']).toBe(
      'attachment; filename="algodesk-report-20260105T040000Z.md"',
    );
    expect(md.headers['cache-control']).toBe('no-store');
    for (const s of [
      '# algodesk system report',
      '## host',
      '## config',
      '## databases',
      '## error summary',
      '## last 2 errors',
    ])
      expect(md.body).toContain(s);
    expect(md.body).toContain('order 7 failed');
    expect(md.body).toContain('Error: kite 502');
    expect(md.body).toContain('chart crashed');
    expect(md.body).toContain('| secrets_present.app_key | true |');

    const txt = await adminGet(t, admin, '/admin/api/system/report?format=txt');
    expect(txt.statusCode).toBe(200);
    expect(txt.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(txt.headers['content-disposition']).toMatch(
      /^attachment; filename="algodesk-report-\d{8}T\d{6}Z\.txt"$/,
    );
    for (const s of [
      'ALGODESK SYSTEM REPORT',
      '[host]',
      '[config]',
      '[errors]',
      'total = 2',
      'order 7 failed',
    ])
      expect(txt.body).toContain(s);
    expect(txt.body).not.toMatch(/^\s*"/); // a file, not a JSON string
  });

  it('is cut at 256 KiB with a visible note in both formats when the last errors exceed it', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    // Each record at its stored caps: message and exception 2,000 characters (2-byte ones), a
    // stack of 12 lines (the report's) of ~1,300 characters: ~26 KB rendered per error, 25 errors.
    const long = (tag: string, n: number) => `${tag} ${'ü'.repeat(n)}`;
    for (let i = 0; i < 30; i++) {
      const err = new Error(long(`exception ${i}`, 3_000));
      err.stack = [
        `Error: ${i}`,
        ...Array.from({ length: 11 }, (_, j) => `    at ${long(`f${j}`, 1_300)}`),
      ].join('\n');
      t.app.log.error({ err }, long(`message ${i}`, 3_000));
    }
    for (const format of ['md', 'txt'] as const) {
      const res = await adminGet(t, admin, `/admin/api/system/report?format=${format}`);
      expect(res.statusCode).toBe(200);
      const bytes = Buffer.byteLength(res.body);
      expect(bytes).toBeLessThanOrEqual(REPORT_MAX_BYTES);
      expect(bytes).toBeGreaterThan(REPORT_MAX_BYTES - 64); // filled to the cap, then cut
      expect(res.body.endsWith('\n\n[report truncated at 256 KiB]\n')).toBe(true);
      expect(res.body).not.toContain('\uFFFD');
      expect(res.body).toContain('message 29 ü'); // the newest errors come first
      expect(res.body).not.toContain('message 5 ü'); // the cut fell before the 25th last error
      if (format === 'md')
        // a stack block open at the cut is closed, so the note reads as text
        expect(res.body.split('\n').filter((l) => l === '  ```').length % 2).toBe(0);
    }
  });

  it('refuses an unknown format and is limited to 10 per minute', async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    const bad = await adminGet(t, admin, '/admin/api/system/report?format=pdf');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors.format[0]).toMatch(/md, txt/);
    for (let i = 0; i < 9; i++)
      expect((await adminGet(t, admin, '/admin/api/system/report')).statusCode).toBe(200);
    const limited = await adminGet(t, admin, '/admin/api/system/report');
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
  });
});
