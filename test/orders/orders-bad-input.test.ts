/**
 * Orders issue, bad input: every placement route answers malformed JSON, wrong types, huge
 * bodies and hostile strings with a 4xx and a clear message, never a 500, writes nothing, and
 * never echoes the API key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import { MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';

const SBIN = `${MINI.SBIN.exchange}:${MINI.SBIN.symbol}`;

describeEachDb('placeorder and splitorder refuse bad input without writing anything', (dialect) => {
  let h: SandboxHarness;
  beforeAll(async () => {
    h = await startSandbox(dialect);
    h.t.clock.set(Date.parse('2026-01-05T10:00:00+05:30'));
    await h.tick({ [SBIN]: h.quote(800) });
  });
  afterAll(async () => {
    await h.close();
  });
  const counts = async () => {
    await h.t.services.orders.events.whenIdle();
    const db = h.t.db.database.db;
    const n = async (t: 'sandbox_orders' | 'pending_orders' | 'order_logs') =>
      Number(
        (
          await db
            .selectFrom(t)
            .select((e) => e.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return [await n('sandbox_orders'), await n('pending_orders'), await n('order_logs')];
  };
  const raw = (url: string, payload: string, type = 'application/json') =>
    h.t.app.inject({ method: 'POST', url, payload, headers: { 'content-type': type } });

  describe('malformed bodies', () => {
    it.each([
      ['malformed JSON', '{"apikey": "x",'],
      ['a JSON array', '[1,2,3]'],
      ['a JSON string', '"order"'],
      ['an empty body', ''],
    ])('%s → 400 with a message', async (_name, payload) => {
      const before = await counts();
      for (const url of ['/api/v1/placeorder', '/api/v1/splitorder']) {
        const res = await raw(url, payload);
        expect(res.statusCode, url).toBe(400);
        expect(res.json().status).toBe('error');
      }
      expect(await counts()).toEqual(before);
    });

    it('a body over 1 MiB → 413', async () => {
      const res = await raw(
        '/api/v1/placeorder',
        JSON.stringify({ apikey: h.apikey, pad: 'x'.repeat(1_100_000) }),
      );
      expect(res.statusCode).toBe(413);
    });
  });

  describe('hostile strings and wrong types', () => {
    const base = { strategy: 's', symbol: 'SBIN', exchange: 'NSE', action: 'BUY', quantity: 1 };
    it.each([
      ['symbol with markup', { symbol: '<script>alert(1)</script>' }],
      ['symbol with SQL', { symbol: "SBIN'; drop table sandbox_orders; --" }],
      ['symbol too long', { symbol: 'A'.repeat(65) }],
      ['strategy too long', { strategy: 's'.repeat(101) }],
      ['quantity as an object', { quantity: { $gt: 0 } }],
      ['quantity negative', { quantity: -5 }],
      ['quantity huge', { quantity: 1e12 }],
      ['price in exponent form', { pricetype: 'LIMIT', price: '1e5' }],
      ['price negative', { pricetype: 'LIMIT', price: -1 }],
      ['unicode action', { action: 'ＢＵＹ' }],
      ['splitsize 0', { splitsize: 0 }],
    ])('%s → 400, nothing written, no markup echoed', async (_name, extra) => {
      const before = await counts();
      const url = 'splitsize' in extra ? 'splitorder' : 'placeorder';
      const res = await h.api(url, { ...base, ...extra });
      expect(res.statusCode).toBe(400);
      expect(res.body).not.toContain('<script>');
      expect(res.body).not.toContain(h.apikey);
      expect(await counts()).toEqual(before);
    });

    it('a price with five decimals or off the tick → 400 from the sandbox, nothing written', async () => {
      const before = await counts();
      for (const price of ['800.00001', '800.03']) {
        const res = await h.api('placeorder', { ...base, pricetype: 'LIMIT', price });
        expect(res.statusCode, price).toBe(400);
      }
      expect((await counts())[0]).toBe(before[0]);
    });
  });

  describe('the API key never appears in a log line or a stored row', () => {
    it('after good and bad orders, neither logs nor tables hold the key', async () => {
      await h.api('placeorder', {
        strategy: 's',
        symbol: 'SBIN',
        exchange: 'NSE',
        action: 'BUY',
        quantity: 1,
      });
      await h.api('placeorder', {
        strategy: 's',
        symbol: 'NOPE',
        exchange: 'NSE',
        action: 'BUY',
        quantity: 1,
      });
      await h.t.services.orders.events.whenIdle();
      for (const line of h.t.logs) expect(line).not.toContain(h.apikey);
      const db = h.t.db.database.db;
      const rows = [
        ...(await db.selectFrom('analyzer_logs').selectAll().execute()),
        ...(await db.selectFrom('order_logs').selectAll().execute()),
      ];
      expect(rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows)).not.toContain(h.apikey);
    });
  });
});
