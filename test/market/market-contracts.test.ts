import Database from 'better-sqlite3';
import { runCliHere } from '../helpers/cli-process.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LocalInvalidationBus } from '../../src/platform/invalidation.js';
import { importContract, kiteCombined } from '../helpers/contracts.js';
import { marketFixture } from '../helpers/market-fixtures.js';
import {
  asBrowser,
  createTestApp,
  createUser,
  describeEachDb,
  login,
  type Browser,
  type TestApp,
} from '../helpers/test-app.js';

const KITE_NSE = () => readFileSync(marketFixture('zerodha', 'kite_instruments_NSE_2025-10-06.csv'));
const UPSTOX_GZ = () => readFileSync(marketFixture('upstox', 'upstox_complete_2026-02-05.csv.gz'));

interface Status {
  status: string;
  broker: string | null;
  message: string;
  total_symbols: number;
  skipped: number;
  by_exchange: Record<string, Record<string, number>>;
  is_ready: boolean;
  index_ready: boolean;
  import_id: number | null;
}

/** A loopback server speaking the brokers' download protocol: GET path → file bytes. */
async function brokerStub(routes: Record<string, () => { status: number; body: Buffer }>): Promise<{
  url: string;
  hits: string[];
  server: Server;
}> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url} ${req.headers['x-kite-version'] ?? ''}`);
    const route = routes[req.url ?? ''];
    if (!route) return res.writeHead(404).end('not found');
    const { status, body } = route();
    res.writeHead(status, { 'content-type': 'text/csv' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, server };
}

describeEachDb('master contract import', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  const stops: Array<() => Promise<unknown> | void> = [];

  beforeAll(async () => {
    t = await createTestApp(dialect);
    await createUser(t);
    admin = await login(t);
  });
  afterAll(async () => {
    await t?.close();
  });
  afterEach(async () => {
    for (const s of stops.splice(0)) await s();
  });

  const status = async (): Promise<Status> =>
    (
      await t.app.inject({
        method: 'GET',
        url: '/api/master-contract/status',
        headers: { cookie: admin.cookie },
      })
    ).json();

  const sbin = () => t.services.market.contracts.get('SBIN', 'NSE');

  describe('status before any import', () => {
    it('is pending and not ready', async () => {
      const s = await status();
      expect(s).toMatchObject({ status: 'pending', total_symbols: 0, is_ready: false, import_id: null });
      expect(await sbin()).toBeUndefined();
    });
  });

  describe('a Kite import counts rows per exchange and type', () => {
    // The NSE fixture: 579 rows, 462 equities (segment NSE) and 117 indices (segment INDICES).
    it('imports the NSE fixture: 462 equities and 117 indices', async () => {
      const summary = await importContract(t, 'zerodha', KITE_NSE());
      expect(summary.rows + summary.skipped).toBe(579);
      const s = await status();
      expect(s).toMatchObject({ status: 'success', broker: 'zerodha', is_ready: true, index_ready: true });
      expect(s.total_symbols).toBe(summary.rows);
      const nse = Object.values(s.by_exchange.NSE ?? {}).reduce((a, b) => a + b, 0);
      const idx = Object.values(s.by_exchange.NSE_INDEX ?? {}).reduce((a, b) => a + b, 0);
      expect(idx).toBe(117);
      expect(nse + summary.skipped).toBe(462);
      expect(await sbin()).toMatchObject({ token: '779521', lotsize: 1, tickSize: 0.05 });
    });
  });

  describe('an import that fails half-way leaves the previous contract live', () => {
    it('a truncated gzip (the Upstox fixture cut at three quarters of its length)', async () => {
      const before = await status();
      // Cut late enough (about 2,600 of its 3,520 rows) that the run has written a first batch of
      // rows (the importer writes 2,000 at a time) before the gzip breaks off.
      const gz = UPSTOX_GZ();
      const cut = gz.subarray(0, Math.floor((gz.length * 3) / 4));
      await expect(importContract(t, 'upstox', cut)).rejects.toThrow(/Import failed/);
      const failed = await t.db.database.db
        .selectFrom('contract_imports')
        .select(['status', 'row_count'])
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(failed.status).toBe('error');
      expect(Number(failed.row_count)).toBeGreaterThan(2_000);
      const after = await status();
      expect(after.status).toBe('error');
      expect(after.is_ready).toBe(true);
      expect(await sbin()).toMatchObject({ token: '779521' });
      expect(t.services.market.contracts.indexReady).toBe(true);
      expect(t.services.market.contracts.indexSize).toBe(before.total_symbols);
      // The failed run's rows are gone: the table holds exactly the live contract.
      const n = await t.db.database.db
        .selectFrom('instruments')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(n.n)).toBe(before.total_symbols);
    });

    it('a file of another broker fails fast', async () => {
      // The whole Upstox fixture, intact: only its header can make the Kite importer refuse it.
      await expect(importContract(t, 'zerodha', UPSTOX_GZ())).rejects.toThrow(
        /not a Zerodha instruments file/,
      );
      expect((await status()).status).toBe('error');
      expect(await sbin()).toMatchObject({ token: '779521' });
    });

    it('a file with no instrument at all', async () => {
      await expect(importContract(t, 'zerodha', Buffer.from('garbage\n\u0000\u0001\n'))).rejects.toThrow();
      expect(await sbin()).toMatchObject({ token: '779521' });
    });

    it('only one import runs at a time on an instance', async () => {
      const first = await t.services.market.imports.begin('zerodha', 'x', 'pending');
      await expect(t.services.market.imports.begin('zerodha', 'y', 'pending')).rejects.toMatchObject({
        statusCode: 409,
      });
      await t.services.market.imports.abandon(first, new Error('test'));
    });
  });

  describe('the index follows the live contract on every instance', () => {
    it('another instance rebuilds when told on the bus, and by polling when not', async () => {
      const bus = new LocalInvalidationBus();
      const a = await createTestApp(dialect, { db: t.db, clock: t.clock, bus });
      const b = await createTestApp(dialect, { db: t.db, clock: t.clock, bus });
      const c = await createTestApp(dialect, { db: t.db, clock: t.clock }); // its own bus: no message
      stops.push(
        () => a.close(),
        () => b.close(),
        () => c.close(),
      );
      for (const x of [a, b, c]) await x.services.market.contracts.whenIdle();
      const summary = await importContract(a, 'zerodha', KITE_NSE());
      await b.services.market.contracts.whenIdle();
      expect(b.services.market.contracts.indexSize).toBe(summary.rows);
      expect(await b.services.market.contracts.get('SBIN', 'NSE')).toBeDefined();
      // c still holds its old index until it checks the live generation.
      await c.services.market.contracts.check();
      expect(c.services.market.contracts.indexReady).toBe(false); // dropped: searches go to the database
      await c.services.market.contracts.whenIdle();
      expect(c.services.market.contracts.indexSize).toBe(summary.rows);
    }, 60_000);
  });
  describe('download from the broker URL (POST /api/master-contract/download)', () => {
    async function withStub(routes: Parameters<typeof brokerStub>[0]) {
      const stub = await brokerStub(routes);
      stops.push(() => new Promise((r) => stub.server.close(r)));
      const app = await createTestApp(dialect, {
        db: t.db,
        clock: t.clock,
        env: { MASTER_CONTRACT_BASE_URL: stub.url, MASTER_CONTRACT_BROKER: 'zerodha' },
      });
      stops.push(() => app.close());
      return { stub, app };
    }

    async function waitDone(app: TestApp): Promise<Status> {
      for (let i = 0; i < 600; i++) {
        const s = (
          await app.app.inject({
            method: 'GET',
            url: '/api/master-contract/status',
            headers: { cookie: admin.cookie },
          })
        ).json() as Status;
        if (s.status === 'success' || s.status === 'error') {
          await app.services.market.contracts.whenIdle();
          return s;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('download did not finish');
    }

    it('fetches Kite /instruments from the configured origin and makes it live', async () => {
      const { stub, app } = await withStub({ '/instruments': () => ({ status: 200, body: kiteCombined() }) });
      const res = await app.app.inject({
        method: 'POST',
        url: '/api/master-contract/download',
        headers: asBrowser(admin),
        payload: {},
      });
      expect(res.statusCode).toBe(202);
      expect(res.json()).toMatchObject({ status: 'success', import_id: expect.any(Number) });
      const s = await waitDone(app);
      expect(s.status).toBe('success');
      // The NFO rows of the NFO/BFO fixture (the NSE fixture has none).
      expect(s.by_exchange.NFO).toMatchObject({ CE: 1_090, PE: 1_089, FUT: 640 });
      expect(stub.hits).toEqual(['GET /instruments 3']);
      const run = await t.db.database.db
        .selectFrom('contract_imports')
        .select('source')
        .where('id', '=', s.import_id!)
        .executeTakeFirstOrThrow();
      expect(run.source).toBe(`${stub.url}/instruments`);
      expect(await app.services.market.contracts.get('SBIN', 'NSE')).toBeDefined();
      expect(app.services.market.contracts.indexSize).toBe(s.total_symbols);
    });

    it('the Upstox gzip file by name in the body', async () => {
      const { app } = await withStub({
        '/market-quote/instruments/exchange/complete.csv.gz': () => ({ status: 200, body: UPSTOX_GZ() }),
      });
      const res = await app.app.inject({
        method: 'POST',
        url: '/api/master-contract/download',
        headers: asBrowser(admin),
        payload: { broker: 'upstox' },
      });
      expect(res.statusCode).toBe(202);
      const s = await waitDone(app);
      expect(s.status).toBe('success');
      // The Upstox fixture: 3,520 rows, 1,303 of them in segment NSE_FO.
      expect(s.total_symbols + s.skipped).toBe(3_520);
      expect(Object.values(s.by_exchange.NFO ?? {}).reduce((a, b) => a + b, 0)).toBe(1_303);
    }, 120_000);

    it('a broker error (HTTP 500) is recorded and the old contract stays', async () => {
      const { app } = await withStub({ '/instruments': () => ({ status: 500, body: Buffer.from('oops') }) });
      const res = await app.app.inject({
        method: 'POST',
        url: '/api/master-contract/download',
        headers: asBrowser(admin),
        payload: {},
      });
      expect(res.statusCode).toBe(202);
      const s = await waitDone(app);
      expect(s).toMatchObject({ status: 'error', is_ready: true });
      expect(s.message).toMatch(/HTTP 500/);
      expect(await app.services.market.contracts.get('SBIN', 'NSE')).toBeDefined();
    });

    it('refuses bad requests: unknown broker, non-admin, no CSRF', async () => {
      const { app } = await withStub({});
      const bad = await app.app.inject({
        method: 'POST',
        url: '/api/master-contract/download',
        headers: asBrowser(admin),
        payload: { broker: 'nosuch' },
      });
      expect(bad.statusCode).toBe(400);
      const wrongType = await app.app.inject({
        method: 'POST',
        url: '/api/master-contract/download',
        headers: asBrowser(admin),
        payload: { broker: 7 },
      });
      expect(wrongType.statusCode).toBe(400);
      const noCsrf = await app.app.inject({
        method: 'POST',
        url: '/api/master-contract/download',
        headers: { cookie: admin.cookie },
        payload: {},
      });
      expect(noCsrf.statusCode).toBe(403);
      const anon = await app.app.inject({ method: 'GET', url: '/api/master-contract/status' });
      expect(anon.statusCode).toBe(401);
    });
  });
});

describe('algodesk contracts import (CLI)', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'algodesk-cli-contracts-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const run = async (args: string[]) => {
    const r = await runCliHere(args, {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '' },
    });
    return { status: r.code, stdout: r.out, stderr: r.err };
  };

  it('imports a file and prints rows per exchange and type and the skips', async () => {
    const r = await run([
      'contracts',
      'import',
      '--broker',
      'zerodha',
      '--file',
      marketFixture('zerodha', 'kite_instruments_NFO_BFO_2026-08-18.csv'),
    ]);
    // No error: the only algodesk line names the database it used (src/cli/services.ts).
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('algodesk:'));
    expect(lines).toEqual([expect.stringMatching(/^algodesk: database: SQLite at .*algodesk\.db$/)]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      /imported \d+ instruments from kite_instruments_NFO_BFO_2026-08-18\.csv \(zerodha\)/,
    );
    expect(r.stdout).toMatch(/NFO\s+CE 1090, FUT 640, PE 1089/);
    expect(r.stdout).toMatch(/BFO\s+CE 682, FUT 12, PE 682/);
  }, 60_000);

  it('--json prints the summary', async () => {
    const r = await run([
      'contracts',
      'import',
      '--broker',
      'zerodha',
      '--file',
      marketFixture('zerodha', 'kite_instruments_NSE_2025-10-06.csv'),
      '--json',
    ]);
    expect(r.status).toBe(0);
    const summary = JSON.parse(r.stdout) as {
      rows: number;
      skipped: number;
      by_exchange: Record<string, unknown>;
    };
    expect(summary.rows + summary.skipped).toBe(579);
  }, 60_000);

  it('fails with one clear line on a wrong broker, a missing file or a bad file', async () => {
    const wrong = await run(['contracts', 'import', '--broker', 'nosuch', '--file', 'x']);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toMatch(/^algodesk: unknown broker "nosuch"/);
    const missing = await run([
      'contracts',
      'import',
      '--broker',
      'zerodha',
      '--file',
      join(dataDir, 'nope.csv'),
    ]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^algodesk: .*no such file/i);
    const junk = join(dataDir, 'junk.csv');
    writeFileSync(junk, 'hello,world\n1,2\n');
    const bad = await run(['contracts', 'import', '--broker', 'zerodha', '--file', junk]);
    expect(bad.status).toBe(1);
    const lines = bad.stderr.split('\n').filter((l) => l.startsWith('algodesk:'));
    expect(lines.filter((l) => !l.startsWith('algodesk: database:'))).toHaveLength(1);
    // The refusal is in the error log, where an operator looks, and nothing was lost on the way.
    expect(bad.stderr).not.toMatch(/error log write failed/);
    const db = new Database(join(dataDir, 'algodesk.db'), { readonly: true });
    try {
      const logged = db.prepare('select level, message from error_log').all() as { message: string }[];
      expect(logged).toContainEqual({ level: 'warn', message: 'master contract import failed' });
    } finally {
      db.close();
    }
  }, 60_000);
});
