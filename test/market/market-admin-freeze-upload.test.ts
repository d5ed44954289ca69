/**
 * `POST /admin/api/freeze/upload` on each database: NSE's qtyfreeze CSV (the real December 2025
 * file) replaces one exchange's freeze quantities in one transaction; junk lines are skipped with
 * their reason; unusable, oversized or malformed uploads change nothing; uploads are rate limited.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { csv, NSE_CSV, useMarketAdmin } from '../helpers/market-admin-world.js';
import { asBrowser, describeEachDb } from '../helpers/test-app.js';

describeEachDb('market admin', (dialect) => {
  const w = useMarketAdmin(dialect);
  const { get, post, upload, file, freezeRows, market } = w;

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
      const broken = await w.t.app.inject({
        method: 'POST',
        url: '/admin/api/freeze/upload',
        payload: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nS.No.,SYM',
        headers: { 'content-type': 'multipart/form-data; boundary=xyz', ...asBrowser(w.admin) },
      });
      expect(broken.statusCode).toBe(400);
      const noBoundary = await w.t.app.inject({
        method: 'POST',
        url: '/admin/api/freeze/upload',
        payload: 'abc',
        headers: { 'content-type': 'multipart/form-data', ...asBrowser(w.admin) },
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
      w.t.clock.advance(60_000);
      expect((await upload(file(csv('SYMBOL,VOL_FRZ_QTY', 'NIFTY,1')))).statusCode).toBe(200);
    });
  });
});
