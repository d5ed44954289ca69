/**
 * Freeze quantities through `/admin/api/freeze` on each database: entries added (exchange and
 * symbol normalised), listed, updated and deleted, with the in-memory lookup following every
 * change; duplicates refused however they are spelled or raced; bad input refused by name.
 */
import { describe, expect, it } from 'vitest';
import { FreezeRepository, isUniqueViolation } from '../../src/modules/market/freeze.repository.js';
import { useMarketAdmin } from '../helpers/market-admin-world.js';
import { asBrowser, describeEachDb } from '../helpers/test-app.js';

describeEachDb('market admin', (dialect) => {
  const w = useMarketAdmin(dialect);
  const { get, post, put, del, freezeRows, market } = w;

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
      const err = await new FreezeRepository(w.t.db.database.db)
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
      const bad = await w.t.app.inject({
        method: 'POST',
        url: '/admin/api/freeze',
        payload: '{"exchange": "NFO", "symbol": ',
        headers: { ...asBrowser(w.admin), 'content-type': 'application/json' },
      });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().message).toBe('Malformed JSON in request body');
      expect(await freezeRows()).toHaveLength(1);
    });
  });
});
