import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FreezeRepository, isUniqueViolation } from '../../src/modules/market/freeze.repository.js';
import { LocalInvalidationBus } from '../../src/platform/invalidation.js';
import { marketFixture } from '../helpers/market-fixtures.js';
import {
  appWithAdmin,
  asBrowser,
  createTestApp,
  createUser,
  describeEachDb,
  login,
  type Browser,
  type TestApp,
} from '../helpers/test-app.js';

const NSE_CSV = readFileSync(marketFixture('freeze_qty', 'nse_qtyfreeze_2025-12.csv'));
const IST = 330 * 60_000;
/** Epoch ms of an IST wall-clock time. */
const ist = (date: string, hhmm: string) => Date.parse(`${date}T${hhmm}:00Z`) - IST;

type Part = { name: string; value: string } | { name: string; filename: string; content: Buffer };

/** A multipart/form-data body built by hand, as a browser sends it. */
function multipart(parts: Part[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----algodesk${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`));
    if ('filename' in p) {
      chunks.push(
        Buffer.from(
          `Content-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: text/csv\r\n\r\n`,
        ),
        p.content,
        Buffer.from('\r\n'),
      );
    } else {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

const csv = (...lines: string[]) => Buffer.from(lines.join('\n') + '\n');

describeEachDb('market admin', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  beforeEach(async () => {
    ({ t, admin } = await appWithAdmin(dialect));
  });
  afterEach(() => t.close());

  const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, b = admin) =>
    t.app.inject({
      method,
      url,
      ...(payload === undefined ? {} : { payload }),
      headers: method === 'GET' ? { cookie: b.cookie } : asBrowser(b),
    });
  const get = (url: string) => send('GET', url);
  const post = (url: string, payload: object) => send('POST', url, payload);
  const put = (url: string, payload: object) => send('PUT', url, payload);
  const del = (url: string) => send('DELETE', url);
  const upload = (parts: Part[], b = admin) => {
    const m = multipart(parts);
    return t.app.inject({
      method: 'POST',
      url: '/admin/api/freeze/upload',
      payload: m.payload,
      headers: { ...m.headers, ...asBrowser(b) },
    });
  };
  const file = (content: Buffer, exchange?: string): Part[] => [
    ...(exchange === undefined ? [] : [{ name: 'exchange', value: exchange }]),
    { name: 'file', filename: 'qtyfreeze.csv', content },
  ];
  const freezeRows = () =>
    t.db.database.db.selectFrom('qty_freeze').selectAll().orderBy('exchange').orderBy('symbol').execute();
  const market = () => t.services.marketAdmin;

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
        const r = await t.app.inject({ method, url, ...(payload ? { payload } : {}) });
        expect(r.statusCode, `${method} ${url}`).toBe(401);
        expect(r.json()).toMatchObject({ status: 'error', code: 'session_required' });
      }
    });

    it('a logged-in user who is not an administrator gets 403 on every route', async () => {
      await createUser(t, 'bob');
      const bob = await login(t, 'bob');
      for (const [method, url, payload] of routes) {
        const r = await send(method, url, payload, bob);
        expect(r.statusCode, `${method} ${url}`).toBe(403);
        expect(r.json().message).toBe('Administrator access required');
      }
    });

    it('writes without the CSRF token are refused and change nothing', async () => {
      for (const [method, url, payload] of routes.filter(([m]) => m !== 'GET')) {
        const r = await t.app.inject({
          method,
          url,
          headers: { cookie: admin.cookie },
          payload: payload ?? {},
        });
        expect(r.statusCode, `${method} ${url}`).toBe(403);
        expect(r.json().code).toBe('csrf_failed');
      }
      const m = multipart(file(NSE_CSV));
      const r = await t.app.inject({
        method: 'POST',
        url: '/admin/api/freeze/upload',
        payload: m.payload,
        headers: { ...m.headers, cookie: admin.cookie, 'x-csrf-token': 'wrong' },
      });
      expect(r.statusCode).toBe(403);
      expect(await freezeRows()).toHaveLength(0);
    });
  });

  describe('freeze quantities: add, list, update, delete', () => {
    it('adds with exchange and symbol trimmed and upper-cased; lists by exchange then symbol', async () => {
      const r = await post('/admin/api/freeze', {
        exchange: ' nfo ',
        symbol: ' banknifty ',
        freeze_qty: 600,
      });
      expect(r.statusCode).toBe(200);
      expect(r.json()).toMatchObject({
        status: 'success',
        data: { exchange: 'NFO', symbol: 'BANKNIFTY', freeze_qty: 600 },
      });
      expect(r.json().data.id).toBeTypeOf('number');
      await post('/admin/api/freeze', { exchange: 'MCX', symbol: 'GOLD', freeze_qty: 50 });
      await post('/admin/api/freeze', { exchange: 'BFO', symbol: 'SENSEX', freeze_qty: 1000 });
      await post('/admin/api/freeze', { exchange: 'NFO', symbol: 'M&M', freeze_qty: 4200 });
      const list = await get('/admin/api/freeze');
      expect(list.statusCode).toBe(200);
      expect(
        list.json().data.map((e: { exchange: string; symbol: string }) => `${e.exchange}:${e.symbol}`),
      ).toEqual(['BFO:SENSEX', 'MCX:GOLD', 'NFO:BANKNIFTY', 'NFO:M&M']);
      expect(market().freezeQty('NFO', 'BANKNIFTY')).toBe(600);
      expect(market().freezeQty('nfo', 'banknifty')).toBe(600);
      expect(market().freezeQty('BFO', 'SENSEX')).toBe(1000);
      expect(market().freezeQty('NFO', 'SENSEX')).toBeNull();
    });

    it('updates any field; the in-memory lookup follows every change', async () => {
      const { id } = (
        await post('/admin/api/freeze', { exchange: 'NFO', symbol: 'NIFTY', freeze_qty: 1800 })
      ).json().data;
      const r = await put(`/admin/api/freeze/${id}`, { freeze_qty: 1755 });
      expect(r.statusCode).toBe(200);
      expect(r.json().data).toEqual({ id, exchange: 'NFO', symbol: 'NIFTY', freeze_qty: 1755 });
      expect(market().freezeQty('NFO', 'NIFTY')).toBe(1755);
      const moved = await put(`/admin/api/freeze/${id}`, {
        exchange: 'bfo',
        symbol: 'sensex',
        freeze_qty: 1000,
      });
      expect(moved.json().data).toEqual({ id, exchange: 'BFO', symbol: 'SENSEX', freeze_qty: 1000 });
      expect(market().freezeQty('NFO', 'NIFTY')).toBeNull();
      expect(market().freezeQty('BFO', 'SENSEX')).toBe(1000);
      expect((await del(`/admin/api/freeze/${id}`)).statusCode).toBe(200);
      expect(market().freezeQty('BFO', 'SENSEX')).toBeNull();
      expect(await freezeRows()).toHaveLength(0);
    });

    it('unknown ids are 404 on update and delete; malformed ids are 400', async () => {
      for (const r of [
        await put('/admin/api/freeze/999', { freeze_qty: 5 }),
        await del('/admin/api/freeze/999'),
      ]) {
        expect(r.statusCode).toBe(404);
        expect(r.json()).toMatchObject({
          status: 'error',
          code: 'not_found',
          message: 'No freeze quantity with id 999',
        });
      }
      for (const id of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
        expect((await del(`/admin/api/freeze/${id}`)).statusCode, id).toBe(400);
      }
    });

    it('a duplicate (exchange, symbol) is a 400 on add and update, however it is spelled', async () => {
      await post('/admin/api/freeze', { exchange: 'NFO', symbol: 'NIFTY', freeze_qty: 1800 });
      const dup = await post('/admin/api/freeze', { exchange: 'nfo', symbol: ' nifty', freeze_qty: 1 });
      expect(dup.statusCode).toBe(400);
      expect(dup.json().message).toBe('NFO NIFTY already has a freeze quantity; edit that entry instead');
      const other = (
        await post('/admin/api/freeze', { exchange: 'NFO', symbol: 'BANKNIFTY', freeze_qty: 600 })
      ).json().data;
      const clash = await put(`/admin/api/freeze/${other.id}`, { symbol: 'NIFTY' });
      expect(clash.statusCode).toBe(400);
      expect(clash.json().message).toMatch(/already has a freeze quantity/);
      // The same symbol on another exchange is another entry.
      expect(
        (await post('/admin/api/freeze', { exchange: 'BFO', symbol: 'NIFTY', freeze_qty: 5 })).statusCode,
      ).toBe(200);
      expect((await freezeRows()).map((r) => `${r.exchange}:${r.symbol}:${r.freeze_qty}`)).toEqual([
        'BFO:NIFTY:5',
        'NFO:BANKNIFTY:600',
        'NFO:NIFTY:1800',
      ]);
    });

    it('concurrent adds of one entry: exactly one wins, the others get the duplicate 400', async () => {
      const results = await Promise.all(
        Array.from({ length: 6 }, () =>
          post('/admin/api/freeze', { exchange: 'NFO', symbol: 'RACE', freeze_qty: 7 }),
        ),
      );
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400, 400, 400, 400, 400]);
      for (const r of results.filter((x) => x.statusCode === 400)) {
        expect(r.json().message).toMatch(/already has a freeze quantity/);
      }
      expect(await freezeRows()).toHaveLength(1);
      // The race's last line of defence: the unique index, recognised on this dialect.
      const err = await new FreezeRepository(t.db.database.db)
        .insert({ exchange: 'NFO', symbol: 'RACE', freeze_qty: 8 })
        .catch((e: unknown) => e);
      expect(isUniqueViolation(err)).toBe(true);
    });

    it('refuses bad quantities, exchanges, symbols, unknown fields and malformed JSON', async () => {
      const base = { exchange: 'NFO', symbol: 'NIFTY', freeze_qty: 1800 };
      const cases: Array<[object, RegExp]> = [
        [{ ...base, freeze_qty: -5 }, /freeze_qty/],
        [{ ...base, freeze_qty: 0 }, /freeze_qty/],
        [{ ...base, freeze_qty: 1.5 }, /freeze_qty/],
        [{ ...base, freeze_qty: '1800' }, /freeze_qty/],
        [{ ...base, freeze_qty: null }, /freeze_qty/],
        [{ ...base, freeze_qty: 2 ** 31 }, /freeze_qty/],
        [{ exchange: 'NFO', symbol: 'NIFTY' }, /freeze_qty: Missing data/],
        [
          { ...base, exchange: 'NSE' },
          /"NSE" is not an F&O exchange; use one of NFO, BFO, CDS, BCD, MCX, NCDEX/,
        ],
        [{ ...base, exchange: 'XYZ' }, /"XYZ" is not an F&O exchange/],
        [{ ...base, exchange: '' }, /exchange/],
        [{ ...base, exchange: 42 }, /exchange/],
        [{ ...base, symbol: '<script>alert(1)</script>' }, /symbol/],
        [{ ...base, symbol: "x'); drop table qty_freeze; --" }, /symbol/],
        [{ ...base, symbol: '   ' }, /symbol/],
        [{ ...base, symbol: 'A'.repeat(51) }, /symbol/],
        [{ ...base, note: 'x' }, /Must NOT have additional properties/],
      ];
      for (const [payload, msg] of cases) {
        const r = await post('/admin/api/freeze', payload);
        expect(r.statusCode, JSON.stringify(payload)).toBe(400);
        expect(r.json().message, JSON.stringify(payload)).toMatch(msg);
      }
      const { id } = (await post('/admin/api/freeze', base)).json().data;
      for (const payload of [{}, { freeze_qty: 0 }, { freeze_qty: '5' }, { exchange: 'NSE' }, { id: 3 }]) {
        expect((await put(`/admin/api/freeze/${id}`, payload)).statusCode, JSON.stringify(payload)).toBe(400);
      }
      const bad = await t.app.inject({
        method: 'POST',
        url: '/admin/api/freeze',
        payload: '{"exchange": "NFO", "symbol": ',
        headers: { ...asBrowser(admin), 'content-type': 'application/json' },
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toBe('Malformed JSON in request body');
      expect(await freezeRows()).toHaveLength(1);
    });
  });

  describe('freeze upload: NSE qtyfreeze CSV replaces one exchange in one transaction', () => {
    it("loads NSE's real file: 213 symbols, looked up at once through the service", async () => {
      const r = await upload(file(NSE_CSV));
      expect(r.statusCode).toBe(200);
      expect(r.json()).toMatchObject({
        status: 'success',
        data: { exchange: 'NFO', loaded: 213, skipped: 0, skipped_rows: [] },
      });
      const rows = await freezeRows();
      expect(rows).toHaveLength(213);
      expect(rows.every((x) => x.exchange === 'NFO')).toBe(true);
      expect(market().freezeQty('NFO', 'BANKNIFTY')).toBe(600);
      expect(market().freezeQty('NFO', 'NIFTY')).toBe(1800);
      expect(market().freezeQty('NFO', 'FINNIFTY')).toBe(1200);
      expect(market().freezeQty('NFO', 'MIDCPNIFTY')).toBe(2800);
      expect(market().freezeQty('NFO', 'M&M')).not.toBeNull();
      expect(market().freezeQty('NFO', 'BAJAJ-AUTO')).not.toBeNull();
      expect(market().freezeQty('BFO', 'NIFTY')).toBeNull();
      expect((await get('/admin/api/freeze')).json().data).toHaveLength(213);
    });

    it("an old list is replaced: the exchange's rows are exactly the new file's; other exchanges stay", async () => {
      await post('/admin/api/freeze', { exchange: 'MCX', symbol: 'GOLD', freeze_qty: 50 });
      const old = csv(
        'S.No.,SYMBOL    ,VOL_FRZ_QTY    ',
        '1 ,BANKNIFTY ,900 ',
        '2 ,OLDSTOCK ,5000 ',
        '3,NIFTY,2800',
      );
      expect((await upload(file(old))).json().data.loaded).toBe(3);
      expect(market().freezeQty('NFO', 'BANKNIFTY')).toBe(900);
      expect(market().freezeQty('NFO', 'OLDSTOCK')).toBe(5000);

      const r = await upload(file(NSE_CSV, 'NFO'));
      expect(r.json().data.loaded).toBe(213);
      const nfo = (await freezeRows()).filter((x) => x.exchange === 'NFO');
      const expected = NSE_CSV.toString()
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => `${l.split(',')[1]!.trim()}:${Number(l.split(',')[2])}`)
        .sort();
      expect(nfo.map((x) => `${x.symbol}:${x.freeze_qty}`).sort()).toEqual(expected);
      expect(market().freezeQty('NFO', 'OLDSTOCK')).toBeNull();
      expect(market().freezeQty('NFO', 'BANKNIFTY')).toBe(600);
      expect(market().freezeQty('MCX', 'GOLD')).toBe(50);
    });

    it('the exchange field picks the exchange (trimmed, case-insensitive); a non-F&O code is a 400', async () => {
      const r = await upload(file(NSE_CSV, ' bfo '));
      expect(r.json().data).toMatchObject({ exchange: 'BFO', loaded: 213 });
      expect(market().freezeQty('BFO', 'NIFTY')).toBe(1800);
      expect(market().freezeQty('NFO', 'NIFTY')).toBeNull();
      const bad = await upload(file(NSE_CSV, 'NSE'));
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toMatch(/"NSE" is not an F&O exchange/);
      expect(await freezeRows()).toHaveLength(213);
    });

    it('junk lines are skipped with their line and reason; good rows load', async () => {
      const body = csv(
        'NSE F&O quantity freeze list', // 1: preamble before the header
        'S.No.,SYMBOL,VOL_FRZ_QTY', // 2
        '1,NIFTY,1800', // 3
        'this is not a row', // 4
        '2,BANKNIFTY,-600', // 5
        '3,FINNIFTY,1.5', // 6
        '4,"MIDCP""NIFTY,2800', // 7: unbalanced quote
        '5,NIFTY,1', // 8: duplicate
        '', // 9: empty, ignored
        '6,,100', // 10
        '7,<script>,100', // 11
        '8,SBIN,"1,500"', // 12: thousands separator is fine
        '9,RELIANCE,abc', // 13
        '10,TCS,0', // 14
      );
      const r = await upload(file(body));
      expect(r.statusCode).toBe(200);
      const data = r.json().data;
      expect(data.loaded).toBe(2);
      expect(data.skipped).toBe(10);
      expect(data.skipped_rows.map((s: { line: number }) => s.line)).toEqual([
        1, 4, 5, 6, 7, 8, 10, 11, 13, 14,
      ]);
      const reasons = Object.fromEntries(
        data.skipped_rows.map((s: { line: number; reason: string }) => [s.line, s.reason]),
      );
      expect(reasons[1]).toBe('before the header row');
      expect(reasons[5]).toMatch(/VOL_FRZ_QTY "-600" is not a positive whole number/);
      expect(reasons[7]).toMatch(/unbalanced quote/);
      expect(reasons[8]).toBe('duplicate SYMBOL NIFTY (first on line 3)');
      expect(reasons[10]).toBe('no SYMBOL');
      expect(reasons[11]).toMatch(/invalid SYMBOL/);
      expect((await freezeRows()).map((x) => `${x.symbol}:${x.freeze_qty}`)).toEqual([
        'NIFTY:1800',
        'SBIN:1500',
      ]);
    });

    it('a file without usable rows or without the headers is a 400 and changes nothing', async () => {
      await upload(file(NSE_CSV));
      const cases: Array<[Buffer, RegExp]> = [
        [csv('S.No.,SYMBOL,VOL_FRZ_QTY', '1,NIFTY,-1', '2,,5'), /no usable row: 2 skipped \(line 2: /],
        [csv('S.No.,SYMBOL,VOL_FRZ_QTY'), /no usable row: 0 skipped/],
        [csv('S.No.,NAME,QTY', '1,NIFTY,1800'), /no header row with SYMBOL and VOL_FRZ_QTY/],
        [csv('1,NIFTY,1800', '2,BANKNIFTY,600'), /no header row/],
        [Buffer.alloc(0), /no header row/],
        [randomBytes(4096), /no header row|no usable row/],
      ];
      for (const [content, msg] of cases) {
        const r = await upload(file(content));
        expect(r.statusCode, msg.source).toBe(400);
        expect(r.json().message, msg.source).toMatch(msg);
        expect(r.json().message).toMatch(/nothing was changed/);
      }
      expect(await freezeRows()).toHaveLength(213);
      expect(market().freezeQty('NFO', 'NIFTY')).toBe(1800);
    });

    it('a 20 MB upload is refused with 413 and changes nothing', async () => {
      await upload(file(NSE_CSV));
      const big = Buffer.concat([NSE_CSV, Buffer.alloc(20 * 1024 * 1024, '9,ZZZ,1\n')]);
      const r = await upload(file(big));
      expect(r.statusCode).toBe(413);
      expect(r.json()).toMatchObject({
        status: 'error',
        code: 'file_too_large',
        message: 'The file is larger than the 2 MB upload limit; nothing was changed',
      });
      expect(await freezeRows()).toHaveLength(213);
      expect(market().freezeQty('NFO', 'ZZZ')).toBeNull();
    });

    it('refuses what is not a multipart upload of one file', async () => {
      const json = await post('/admin/api/freeze/upload', { file: 'S.No.,SYMBOL,VOL_FRZ_QTY\n1,NIFTY,1\n' });
      expect(json.statusCode).toBe(415);
      expect(json.json().message).toMatch(/multipart\/form-data/);
      const noFile = await upload([{ name: 'exchange', value: 'NFO' }]);
      expect(noFile.statusCode).toBe(400);
      expect(noFile.json().message).toMatch(/No file/);
      const two = await upload([
        { name: 'file', filename: 'a.csv', content: NSE_CSV },
        { name: 'file2', filename: 'b.csv', content: NSE_CSV },
      ]);
      expect(two.statusCode).toBe(400);
      expect(two.json().message).toMatch(/exactly one file/);
      const broken = await t.app.inject({
        method: 'POST',
        url: '/admin/api/freeze/upload',
        payload: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nS.No.,SYM',
        headers: { 'content-type': 'multipart/form-data; boundary=xyz', ...asBrowser(admin) },
      });
      expect(broken.statusCode).toBe(400);
      const noBoundary = await t.app.inject({
        method: 'POST',
        url: '/admin/api/freeze/upload',
        payload: 'abc',
        headers: { 'content-type': 'multipart/form-data', ...asBrowser(admin) },
      });
      expect(noBoundary.statusCode).toBe(400);
      expect(await freezeRows()).toHaveLength(0);
    });

    it('is limited to 10 uploads a minute per client', async () => {
      const codes: number[] = [];
      for (let i = 0; i < 11; i++)
        codes.push((await upload(file(csv('SYMBOL,VOL_FRZ_QTY', 'NIFTY,1')))).statusCode);
      expect(codes.slice(0, 10).every((c) => c === 200)).toBe(true);
      expect(codes[10]).toBe(429);
      t.clock.advance(60_000);
      expect((await upload(file(csv('SYMBOL,VOL_FRZ_QTY', 'NIFTY,1')))).statusCode).toBe(200);
    });
  });

  describe('holidays: seeded 2025 and 2026, listed by year, added and deleted', () => {
    type Holiday = {
      id: number;
      holiday_date: string;
      description: string;
      holiday_type: string;
      closed_exchanges: string[];
      open_exchanges: Array<{
        exchange: string;
        start_time: string;
        end_time: string;
        start_ms: number;
        end_ms: number;
      }>;
    };
    const year = async (y?: number): Promise<Holiday[]> => {
      const r = await get(`/admin/api/holidays${y === undefined ? '' : `?year=${y}`}`);
      expect(r.statusCode).toBe(200);
      return r.json().data as Holiday[];
    };

    it('seeds 2025 from the NSE holiday master and 2026 from the FO list, sorted by date', async () => {
      const y2025 = await year(2025);
      expect(y2025).toHaveLength(19);
      const dates = y2025.map((h) => h.holiday_date);
      expect(dates).toEqual([...dates].sort());
      const holi = y2025.find((h) => h.holiday_date === '2025-03-14')!;
      expect(holi).toMatchObject({
        description: 'Holi',
        holiday_type: 'TRADING_HOLIDAY',
        closed_exchanges: ['NSE', 'BSE', 'NFO', 'BFO', 'CDS', 'BCD'],
        open_exchanges: [
          {
            exchange: 'MCX',
            start_time: '17:00',
            end_time: '23:55',
            start_ms: ist('2025-03-14', '17:00'),
            end_ms: ist('2025-03-14', '23:55'),
          },
        ],
      });
      expect(y2025.find((h) => h.holiday_date === '2025-12-25')!.closed_exchanges).toContain('MCX');
      expect(y2025.find((h) => h.holiday_date === '2025-02-19')).toMatchObject({
        holiday_type: 'TRADING_HOLIDAY',
        closed_exchanges: ['CDS', 'BCD'],
      });

      const y2026 = await year(2026);
      expect(y2026).toHaveLength(16);
      expect(y2026[0]).toMatchObject({
        holiday_date: '2026-01-15',
        description: 'Municipal Corporation Election - Maharashtra',
        closed_exchanges: ['NSE', 'BSE', 'NFO', 'BFO', 'CDS', 'BCD'],
      });
      expect(await year(2024)).toEqual([]);
      const stats = (await get('/admin/api/stats')).json();
      expect(stats).toEqual({
        status: 'success',
        data: { freeze_count: 0, holiday_count: 35, timing_count: 9 },
      });
    });

    it('the year defaults to the current year in IST (from the injected clock)', async () => {
      t.clock.set(Date.parse('2025-12-31T18:29:00Z')); // 23:59 IST, 31 Dec 2025
      expect((await get('/admin/api/holidays')).json().year).toBe(2025);
      t.clock.set(Date.parse('2025-12-31T18:31:00Z')); // 00:01 IST, 1 Jan 2026
      const r = (await get('/admin/api/holidays')).json();
      expect(r.year).toBe(2026);
      expect(r.data).toHaveLength(16);
      for (const q of ['abc', '1999', '2101', '2026.5']) {
        expect((await get(`/admin/api/holidays?year=${q}`)).statusCode, q).toBe(400);
      }
    });

    it('adds a holiday with closed exchanges and special sessions (times stored as epoch ms of IST)', async () => {
      const r = await post('/admin/api/holidays', {
        holiday_date: '2026-11-08',
        description: '  Diwali Laxmi Pujan (Muhurat trading)  ',
        holiday_type: 'SPECIAL_SESSION',
        exchanges: ['CDS', 'BCD'],
        open_exchanges: [
          { exchange: 'NSE', start_time: '18:00', end_time: '19:15' },
          { exchange: 'MCX', start_time: '18:00', end_time: '23:59' },
        ],
      });
      expect(r.statusCode).toBe(200);
      const h = r.json().data as Holiday;
      expect(h).toMatchObject({
        holiday_date: '2026-11-08',
        description: 'Diwali Laxmi Pujan (Muhurat trading)',
        holiday_type: 'SPECIAL_SESSION',
        closed_exchanges: ['CDS', 'BCD'],
        open_exchanges: [
          { exchange: 'NSE', start_time: '18:00', end_time: '19:15', start_ms: ist('2026-11-08', '18:00') },
          { exchange: 'MCX', start_time: '18:00', end_time: '23:59', end_ms: ist('2026-11-09', '00:00') },
        ],
      });
      const rows = await t.db.database.db
        .selectFrom('market_holiday_exchanges')
        .selectAll()
        .where('holiday_id', '=', h.id)
        .orderBy('id')
        .execute();
      expect(rows.map((x) => [x.exchange_code, x.start_time, x.end_time])).toEqual([
        ['CDS', null, null],
        ['BCD', null, null],
        ['NSE', ist('2026-11-08', '18:00'), ist('2026-11-08', '19:15')],
        ['MCX', ist('2026-11-08', '18:00'), ist('2026-11-09', '00:00')],
      ]);
      expect((await year(2026)).map((x) => x.holiday_date)).toContain('2026-11-08');
      // The calendar follows at once: a Sunday with a Muhurat session.
      expect(market().isMarketOpen('NSE', ist('2026-11-08', '18:30'))).toBe(true);
      expect(market().isMarketOpen('NSE', ist('2026-11-08', '19:15'))).toBe(false);
      expect(market().isMarketOpen('BSE', ist('2026-11-08', '18:30'))).toBe(false);
    });

    it('the holiday type defaults to TRADING_HOLIDAY; hostile text is stored as text', async () => {
      const description = `<script>alert("x")</script>'); DROP TABLE market_holidays; --`;
      const r = await post('/admin/api/holidays', {
        holiday_date: '2026-07-01',
        description,
        exchanges: ['MCX'],
      });
      expect(r.statusCode).toBe(200);
      expect(r.json().data).toMatchObject({
        holiday_type: 'TRADING_HOLIDAY',
        description,
        closed_exchanges: ['MCX'],
      });
      expect(await year(2026)).toHaveLength(17);
    });

    it('refuses bad dates, types, exchange codes, times and sessions, naming the problem', async () => {
      const base = {
        holiday_date: '2026-07-01',
        description: 'Test',
        holiday_type: 'TRADING_HOLIDAY',
        exchanges: ['NSE'],
      };
      const open = (o: object) => ({
        ...base,
        holiday_type: 'SPECIAL_SESSION',
        exchanges: [],
        open_exchanges: [o],
      });
      const cases: Array<[object, RegExp]> = [
        [{ ...base, holiday_date: '2026-02-30' }, /holiday_date must be a real calendar date/],
        [{ ...base, holiday_date: '2025-02-29' }, /holiday_date must be a real calendar date/],
        [{ ...base, holiday_date: 'tomorrow' }, /holiday_date must be a real calendar date/],
        [{ ...base, holiday_date: '2026-7-1' }, /holiday_date/],
        [{ ...base, holiday_date: '01-07-2026' }, /holiday_date/],
        [{ ...base, holiday_date: 20260701 }, /holiday_date/],
        [{ ...base, description: '' }, /description/],
        [{ ...base, description: '    ' }, /description must be 1 to 150 characters/],
        [{ ...base, description: 'x'.repeat(151) }, /description/],
        [{ ...base, description: 'tab\there' }, /description/],
        [{ ...base, holiday_type: 'HOLIDAY' }, /holiday_type: Must be one of: TRADING_HOLIDAY/],
        [{ ...base, exchanges: ['NYSE'] }, /unknown exchange code "NYSE"/],
        [{ ...base, exchanges: ['nse'] }, /unknown exchange code "nse"/],
        [{ ...base, exchanges: ['NSE', 'NCO'] }, /unknown exchange code "NCO"/],
        [{ ...base, exchanges: ['NSE', 'NSE'] }, /NSE is listed more than once/],
        [{ ...base, exchanges: 'NSE' }, /exchanges/],
        [{ ...base, exchanges: [] }, /must close \(or open a session on\) at least one exchange/],
        [{ ...base, holiday_type: 'SPECIAL_SESSION' }, /SPECIAL_SESSION needs at least one open exchange/],
        [
          open({ exchange: 'NSE', start_time: '25:00', end_time: '26:00' }),
          /start_time must be a time written HH:MM/,
        ],
        [
          open({ exchange: 'NSE', start_time: '18:00', end_time: '24:00' }),
          /end_time must be a time written HH:MM/,
        ],
        [open({ exchange: 'NSE', start_time: '9:15', end_time: '10:00' }), /start_time/],
        [
          open({ exchange: 'NSE', start_time: '19:15', end_time: '18:00' }),
          /NSE: start_time must be before end_time/,
        ],
        [
          open({ exchange: 'NSE', start_time: '18:00', end_time: '18:00' }),
          /start_time must be before end_time/,
        ],
        [open({ exchange: 'XYZ', start_time: '18:00', end_time: '19:00' }), /unknown exchange code "XYZ"/],
        [open({ exchange: 'NSE', start_time: '18:00' }), /end_time: Missing data/],
        [
          { ...base, open_exchanges: [{ exchange: 'NSE', start_time: '18:00', end_time: '19:00' }] },
          /more than once/,
        ],
        [{ ...base, extra: 1 }, /Must NOT have additional properties/],
      ];
      for (const [payload, msg] of cases) {
        const r = await post('/admin/api/holidays', payload);
        expect(r.statusCode, JSON.stringify(payload)).toBe(400);
        expect(r.json().message, JSON.stringify(payload)).toMatch(msg);
      }
      expect(await year(2026)).toHaveLength(16);
    });

    it('deletes a holiday with its exchange rows; an unknown id is 404', async () => {
      const holi = (await year(2026)).find((h) => h.holiday_date === '2026-03-03')!;
      expect(market().sessionOn('NSE', '2026-03-03')!.open).toBe(false);
      expect((await del(`/admin/api/holidays/${holi.id}`)).statusCode).toBe(200);
      expect((await year(2026)).map((h) => h.holiday_date)).not.toContain('2026-03-03');
      const left = await t.db.database.db
        .selectFrom('market_holiday_exchanges')
        .selectAll()
        .where('holiday_id', '=', holi.id)
        .execute();
      expect(left).toEqual([]);
      expect(market().sessionOn('NSE', '2026-03-03')!.open).toBe(true);
      const again = await del(`/admin/api/holidays/${holi.id}`);
      expect(again.statusCode).toBe(404);
      expect(again.json()).toMatchObject({ status: 'error', code: 'not_found' });
      expect((await del('/admin/api/holidays/abc')).statusCode).toBe(400);
    });
  });

  describe('timings: seeded from the spec, updated per exchange, checked by date', () => {
    it('seeds the spec table', async () => {
      const r = await get('/admin/api/timings');
      expect(r.statusCode).toBe(200);
      expect(r.json().data.map((x: { exchange: string; start_time: string; end_time: string }) => x)).toEqual(
        [
          ['NSE', '09:15', '15:30'],
          ['BSE', '09:15', '15:30'],
          ['NFO', '09:15', '15:40'],
          ['BFO', '09:15', '15:40'],
          ['CDS', '09:00', '17:00'],
          ['BCD', '09:00', '17:00'],
          ['MCX', '09:00', '23:55'],
          ['NCO', '09:00', '23:55'],
          ['CRYPTO', '00:00', '23:59'],
        ].map(([exchange, start_time, end_time]) => ({
          exchange,
          start_time,
          end_time,
          updated_at: new Date(t.clock.now()).toISOString(),
        })),
      );
    });

    it('updates an exchange (code case-insensitive); the calendar follows at once', async () => {
      expect(market().isMarketOpen('NSE', ist('2026-01-05', '15:45'))).toBe(false);
      t.clock.advance(1000);
      const r = await put('/admin/api/timings/nse', { start_time: '09:00', end_time: '16:00' });
      expect(r.statusCode).toBe(200);
      expect(r.json().data).toEqual({
        exchange: 'NSE',
        start_time: '09:00',
        end_time: '16:00',
        updated_at: new Date(t.clock.now()).toISOString(),
      });
      expect(market().isMarketOpen('NSE', ist('2026-01-05', '15:45'))).toBe(true);
      const check = (await post('/admin/api/timings/check', { date: '2026-01-05' })).json().data.sessions;
      expect(check.find((s: { exchange: string }) => s.exchange === 'NSE')).toMatchObject({
        start_time: '09:00',
        end_time: '16:00',
      });
    });

    it('refuses bad times and unknown exchanges', async () => {
      const cases: Array<[string, object, number, RegExp]> = [
        ['NSE', { start_time: '25:00', end_time: '26:00' }, 400, /start_time must be a time written HH:MM/],
        ['NSE', { start_time: '09:15', end_time: '25:00' }, 400, /end_time must be a time written HH:MM/],
        ['NSE', { start_time: '09:60', end_time: '15:30' }, 400, /start_time/],
        ['NSE', { start_time: '9:15', end_time: '15:30' }, 400, /start_time/],
        ['NSE', { start_time: '15:30', end_time: '09:15' }, 400, /start_time must be before end_time/],
        ['NSE', { start_time: '09:15', end_time: '09:15' }, 400, /start_time must be before end_time/],
        ['NSE', { start_time: 915, end_time: '15:30' }, 400, /start_time/],
        ['NSE', { start_time: '09:15' }, 400, /end_time: Missing data/],
        ['NYSE', { start_time: '09:15', end_time: '15:30' }, 404, /No timing for exchange "NYSE"/],
        ['%3Cscript%3E', { start_time: '09:15', end_time: '15:30' }, 404, /No timing for exchange/],
      ];
      for (const [exchange, payload, status, msg] of cases) {
        const r = await put(`/admin/api/timings/${exchange}`, payload);
        expect(r.statusCode, `${exchange} ${JSON.stringify(payload)}`).toBe(status);
        expect(r.json().message).toMatch(msg);
      }
      expect((await get('/admin/api/timings')).json().data[0]).toMatchObject({
        start_time: '09:15',
        end_time: '15:30',
      });
    });

    it("check: each exchange's session that day in IST", async () => {
      const check = async (date: string) => {
        const r = await post('/admin/api/timings/check', { date });
        expect(r.statusCode, date).toBe(200);
        const byExchange = Object.fromEntries(
          (r.json().data.sessions as Array<{ exchange: string }>).map((s) => [s.exchange, s]),
        );
        return { data: r.json().data, s: byExchange };
      };
      const monday = await check('2026-01-05');
      expect(monday.data).toMatchObject({ date: '2026-01-05', weekend: false });
      expect(monday.s.NFO).toEqual({
        exchange: 'NFO',
        open: true,
        reason: 'regular',
        start_time: '09:15',
        end_time: '15:40',
        start_ms: ist('2026-01-05', '09:15'),
        end_ms: ist('2026-01-05', '15:40'),
        holiday: null,
      });
      const saturday = await check('2026-01-10');
      expect(saturday.data.weekend).toBe(true);
      expect(saturday.s.NSE).toMatchObject({
        open: false,
        reason: 'weekend',
        start_time: null,
        start_ms: null,
      });
      expect(saturday.s.CRYPTO).toMatchObject({
        open: true,
        reason: 'regular',
        end_ms: ist('2026-01-11', '00:00'),
      });
      const republic = await check('2026-01-26');
      expect(republic.s.NSE).toMatchObject({ open: false, reason: 'holiday', holiday: 'Republic Day' });
      expect(republic.s.MCX).toMatchObject({ open: false, reason: 'holiday' });
      expect(republic.s.NCO).toMatchObject({ open: true, reason: 'regular' });
      const election = await check('2026-01-15');
      expect(election.s.NFO).toMatchObject({ open: false, reason: 'holiday' });
      expect(election.s.MCX).toMatchObject({
        open: true,
        reason: 'special_session',
        start_time: '17:00',
        end_time: '23:55',
        holiday: 'Municipal Corporation Election - Maharashtra',
      });
      const currency = await check('2025-02-19');
      expect(currency.s.CDS).toMatchObject({
        open: false,
        reason: 'holiday',
        holiday: 'Chhatrapati Shivaji Maharaj Jayanti',
      });
      expect(currency.s.NSE).toMatchObject({ open: true, reason: 'regular' });
      for (const date of ['2026-02-30', 'tomorrow', '2026-13-01', '2026-1-5', '', '2026-01-05T00:00']) {
        const r = await post('/admin/api/timings/check', { date });
        expect(r.statusCode, date).toBe(400);
        expect(r.json().message).toMatch(/date/);
      }
      expect((await post('/admin/api/timings/check', {})).statusCode).toBe(400);
      expect((await post('/admin/api/timings/check', { date: 20260105 })).statusCode).toBe(400);
    });
  });

  describe('stats: entry counts', () => {
    it('counts freeze entries, holidays and timings', async () => {
      await upload(file(NSE_CSV));
      await post('/admin/api/freeze', { exchange: 'MCX', symbol: 'GOLD', freeze_qty: 50 });
      expect((await get('/admin/api/stats')).json()).toEqual({
        status: 'success',
        data: { freeze_count: 214, holiday_count: 35, timing_count: 9 },
      });
    });
  });

  describe('caches: another instance on the same database follows every change through the bus', () => {
    it('freeze quantities, holidays and timings reload on the other instance', async () => {
      await t.close();
      const bus = new LocalInvalidationBus();
      t = await createTestApp(dialect, { bus });
      await createUser(t);
      admin = await login(t);
      const other = await createTestApp(dialect, { db: t.db, bus });
      try {
        const eventually = async (check: () => boolean) => {
          for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
          expect(check()).toBe(true);
        };
        await upload(file(NSE_CSV));
        await eventually(() => other.services.marketAdmin.freezeQty('NFO', 'NIFTY') === 1800);
        await put('/admin/api/timings/NSE', { start_time: '09:00', end_time: '16:00' });
        await eventually(() => other.services.marketAdmin.isMarketOpen('NSE', ist('2026-01-05', '15:45')));
        await post('/admin/api/holidays', {
          holiday_date: '2026-01-06',
          description: 'Test',
          exchanges: ['NSE'],
        });
        await eventually(() => other.services.marketAdmin.sessionOn('NSE', '2026-01-06')?.open === false);
        // Starting a second instance on a seeded database seeds nothing twice.
        expect((await get('/admin/api/stats')).json().data).toMatchObject({
          holiday_count: 36,
          timing_count: 9,
        });
      } finally {
        await other.close();
      }
    });
  });
});
