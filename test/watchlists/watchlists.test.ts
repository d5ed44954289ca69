/**
 * Market watch lists, docs/rules/watchlists.md, through the real app: the session routes under
 * `/watchlist/api/lists` (#watchlist-routes), lists per user and another user's the same 404 as
 * a missing one (#watchlist-ownership), names (#watchlist-names), the 20-list and 100-item limits
 * (#watchlist-limits), instruments of the live master contract (#watchlist-items) and the order
 * (#watchlist-order); bad input is a 4xx that writes nothing; a deleted user's lists go with them.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { importContract } from '../helpers/contracts.js';
import { miniKiteContract } from '../helpers/sandbox.js';
import {
  appWithAdmin,
  asBrowser,
  createUser,
  describeEachDb,
  login,
  type Browser,
  type TestApp,
} from '../helpers/test-app.js';
import type { Dialect } from '../../src/platform/db/database.js';

const BASE = '/watchlist/api/lists';
/** The admin surface's default window is 50 per second and the fake clock stands still. */
const ROOMY_LIMITS = { API_RATE_LIMIT: '100000 per second' };

interface Item {
  id: number;
  symbol: string;
  exchange: string;
}
interface List {
  id: number;
  name: string;
  items: Item[];
}
type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

interface World {
  t: TestApp;
  admin: Browser;
  bob: Browser;
  bobId: number;
  /** A request as a browser sends it: the session cookie and (unless `csrf: false`) the CSRF token. */
  call(
    method: Method,
    path: string,
    payload?: unknown,
    opts?: { as?: Browser | null; csrf?: boolean | string; headers?: Record<string, string> },
  ): Promise<LightMyRequestResponse>;
  /** Creates a list over HTTP (201 expected). */
  create(name: string, as?: Browser): Promise<List>;
  /** Adds an instrument over HTTP (201 expected). */
  add(listId: number, symbol: string, exchange: string, as?: Browser): Promise<Item>;
  /** The caller's lists over HTTP. */
  lists(as?: Browser): Promise<List[]>;
  /** Every row of both tables, in id order (to show nothing was written). */
  snapshot(): Promise<{ lists: unknown[]; items: unknown[] }>;
}

let w: World | undefined;
afterEach(async () => {
  await w?.t.close();
  w = undefined;
});

async function start(dialect: Dialect, env: Record<string, string> = ROOMY_LIMITS): Promise<World> {
  const { t, admin } = await appWithAdmin(dialect, { env });
  await importContract(t, 'zerodha', miniKiteContract());
  const bobUser = await createUser(t, 'bob');
  const bob = await login(t, 'bob');
  const db = t.db.database.db;
  const world: World = {
    t,
    admin,
    bob,
    bobId: bobUser.id,
    call(method, path, payload, opts = {}) {
      const as = opts.as === undefined ? admin : opts.as;
      const headers: Record<string, string> = { ...opts.headers };
      if (as) {
        headers.cookie = as.cookie;
        if (opts.csrf !== false)
          headers['x-csrf-token'] = typeof opts.csrf === 'string' ? opts.csrf : as.csrf;
      }
      return t.app.inject({
        method,
        url: `${BASE}${path}`,
        headers,
        ...(payload === undefined ? {} : { payload: payload as string }),
      });
    },
    async create(name, as = admin) {
      const res = await world.call('POST', '', { name }, { as });
      expect(res.statusCode, res.body).toBe(201);
      return (res.json() as { data: List }).data;
    },
    async add(listId, symbol, exchange, as = admin) {
      const res = await world.call('POST', `/${listId}/items`, { symbol, exchange }, { as });
      expect(res.statusCode, res.body).toBe(201);
      return (res.json() as { data: Item }).data;
    },
    async lists(as = admin) {
      const res = await world.call('GET', '', undefined, { as });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as { status: string; data: List[] };
      expect(body.status).toBe('success');
      return body.data;
    },
    async snapshot() {
      return {
        lists: await db.selectFrom('watchlists').selectAll().orderBy('id').execute(),
        items: await db.selectFrom('watchlist_items').selectAll().orderBy('id').execute(),
      };
    },
  };
  return world;
}

const body = (res: LightMyRequestResponse) => res.json() as { status: string; message: string; code: string };

/** Asserts an error answer: its status, `status: 'error'` and a message matching `message`. */
function refused(res: LightMyRequestResponse, status: number, message?: RegExp | string): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const b = body(res);
  expect(b.status).toBe('error');
  expect(typeof b.message).toBe('string');
  if (message !== undefined) expect(b.message).toMatch(message);
}

describeEachDb('watch lists', (dialect) => {
  describe('lists: create, rename, delete', () => {
    it('creates empty lists at the end, trims names, lists them in order with their items', async () => {
      w = await start(dialect);
      expect(await w.lists()).toEqual([]);
      const res = await w.call('POST', '', { name: '  Banks  ' });
      expect(res.statusCode).toBe(201);
      const made = (res.json() as { status: string; data: List }).data;
      expect(res.json()).toEqual({ status: 'success', data: { id: made.id, name: 'Banks', items: [] } });
      const it2 = await w.create('IT');
      const idx = await w.create('Indices');
      expect(await w.lists()).toEqual([
        { id: made.id, name: 'Banks', items: [] },
        { id: it2.id, name: 'IT', items: [] },
        { id: idx.id, name: 'Indices', items: [] },
      ]);
      const rows = (await w.snapshot()).lists as { name: string; position: number }[];
      expect(rows.map((r) => [r.name, r.position])).toEqual([
        ['Banks', 0],
        ['IT', 1],
        ['Indices', 2],
      ]);
    });

    it('renames a list (same checks as a new name) and keeps its items', async () => {
      w = await start(dialect);
      const list = await w.create('Banks');
      const sbin = await w.add(list.id, 'SBIN', 'NSE');
      await w.create('Other');
      const res = await w.call('PATCH', `/${list.id}`, { name: ' PSU banks ' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        status: 'success',
        data: { id: list.id, name: 'PSU banks', items: [{ id: sbin.id, symbol: 'SBIN', exchange: 'NSE' }] },
      });
      refused(
        await w.call('PATCH', `/${list.id}`, { name: 'Other' }),
        409,
        'You already have a watch list named "Other"',
      );
      refused(await w.call('PATCH', `/${list.id}`, { name: '   ' }), 400, /must not be blank/);
      // Renaming to its own name is no conflict.
      expect((await w.call('PATCH', `/${list.id}`, { name: 'PSU banks' })).statusCode).toBe(200);
      expect((await w.lists()).map((l) => l.name)).toEqual(['PSU banks', 'Other']);
    });

    it('deletes a list and its items; a second delete is a 404', async () => {
      w = await start(dialect);
      const keep = await w.create('Keep');
      await w.add(keep.id, 'INFY', 'NSE');
      const gone = await w.create('Gone');
      await w.add(gone.id, 'SBIN', 'NSE');
      await w.add(gone.id, 'RELIANCE', 'NSE');
      const res = await w.call('DELETE', `/${gone.id}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'success', data: { id: gone.id } });
      const snap = await w.snapshot();
      expect(snap.lists).toHaveLength(1);
      expect(
        (snap.items as { watchlist_id: number; symbol: string }[]).map((i) => [i.watchlist_id, i.symbol]),
      ).toEqual([[keep.id, 'INFY']]);
      refused(await w.call('DELETE', `/${gone.id}`), 404, 'No such watch list');
      // The name is free again.
      expect((await w.create('Gone')).name).toBe('Gone');
    });

    it('refuses a duplicate name for the same user (409), not for another user', async () => {
      w = await start(dialect);
      await w.create('Banks');
      refused(
        await w.call('POST', '', { name: 'Banks' }),
        409,
        'You already have a watch list named "Banks"',
      );
      refused(await w.call('POST', '', { name: '  Banks ' }), 409, /already have a watch list named "Banks"/);
      // Names are compared as stored (NFC): a decomposed é is the same name.
      await w.create('Caf\u00e9');
      refused(await w.call('POST', '', { name: 'Cafe\u0301' }), 409, /already have/);
      expect((await w.create('Banks', w.bob)).name).toBe('Banks');
      expect((await w.lists()).map((l) => l.name)).toEqual(['Banks', 'Café']);
    });

    it('accepts printable names of up to 40 characters verbatim, hostile-looking or not', async () => {
      w = await start(dialect);
      const names = [
        '<script>alert(1)</script>',
        "'; DROP TABLE watchlists; --",
        '📈'.repeat(40),
        'x'.repeat(40),
        'नमस्ते बाज़ार',
        '${7*7} {{7*7}} %s %n',
      ];
      for (const name of names) expect((await w.create(name)).name).toBe(name);
      expect((await w.lists()).map((l) => l.name)).toEqual(names);
    });
  });

  describe('items: add, remove, reorder', () => {
    it('adds instruments of the live master contract at the end, index and derivative exchanges included', async () => {
      w = await start(dialect);
      const list = await w.create('Mixed');
      const res = await w.call('POST', `/${list.id}/items`, { symbol: ' sbin ', exchange: 'NSE' });
      expect(res.statusCode, res.body).toBe(201);
      const sbin = (res.json() as { data: Item }).data;
      expect(res.json()).toEqual({
        status: 'success',
        data: { id: sbin.id, symbol: 'SBIN', exchange: 'NSE' },
      });
      const nifty = await w.add(list.id, 'NIFTY', 'NSE_INDEX');
      const ce = await w.add(list.id, 'NIFTY18AUG2626000CE', 'NFO');
      expect(await w.lists()).toEqual([
        {
          id: list.id,
          name: 'Mixed',
          items: [
            { id: sbin.id, symbol: 'SBIN', exchange: 'NSE' },
            { id: nifty.id, symbol: 'NIFTY', exchange: 'NSE_INDEX' },
            { id: ce.id, symbol: 'NIFTY18AUG2626000CE', exchange: 'NFO' },
          ],
        },
      ]);
    });

    it('refuses an instrument the master contract lacks (404 naming it) and one the list holds (409)', async () => {
      w = await start(dialect);
      const list = await w.create('Banks');
      refused(
        await w.call('POST', `/${list.id}/items`, { symbol: 'NOSUCH', exchange: 'NSE' }),
        404,
        'NOSUCH is not in the NSE master contract',
      );
      // SBIN is NSE's only: not BSE's, not an index.
      refused(
        await w.call('POST', `/${list.id}/items`, { symbol: 'SBIN', exchange: 'BSE' }),
        404,
        'SBIN is not in the BSE master contract',
      );
      refused(
        await w.call('POST', `/${list.id}/items`, { symbol: 'NIFTY', exchange: 'BSE_INDEX' }),
        404,
        'NIFTY is not in the BSE_INDEX master contract',
      );
      await w.add(list.id, 'SBIN', 'NSE');
      refused(
        await w.call('POST', `/${list.id}/items`, { symbol: 'sbin', exchange: 'NSE' }),
        409,
        'SBIN (NSE) is already in this watch list',
      );
      // The same instrument in another list is fine.
      const other = await w.create('Other');
      await w.add(other.id, 'SBIN', 'NSE');
      expect((await w.snapshot()).items).toHaveLength(2);
    });

    it('removes an item; the rest keep their order; a second removal is a 404', async () => {
      w = await start(dialect);
      const list = await w.create('Three');
      const a = await w.add(list.id, 'SBIN', 'NSE');
      const b = await w.add(list.id, 'RELIANCE', 'NSE');
      const c = await w.add(list.id, 'INFY', 'NSE');
      const res = await w.call('DELETE', `/${list.id}/items/${b.id}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ status: 'success', data: { id: b.id } });
      expect((await w.lists())[0]!.items.map((i) => i.id)).toEqual([a.id, c.id]);
      refused(await w.call('DELETE', `/${list.id}/items/${b.id}`), 404, 'No such item in this watch list');
      // An item is removed through its own list only.
      const other = await w.create('Other');
      refused(await w.call('DELETE', `/${other.id}/items/${a.id}`), 404, 'No such item in this watch list');
      // Added again after removal: at the end.
      const again = await w.add(list.id, 'RELIANCE', 'NSE');
      expect((await w.lists())[0]!.items.map((i) => i.id)).toEqual([a.id, c.id, again.id]);
    });

    it('reorders a list to exactly the order given, and answers the reordered list', async () => {
      w = await start(dialect);
      const list = await w.create('Order');
      const other = await w.create('Untouched');
      const o1 = await w.add(other.id, 'SBIN', 'NSE');
      const o2 = await w.add(other.id, 'INFY', 'NSE');
      const a = await w.add(list.id, 'SBIN', 'NSE');
      const b = await w.add(list.id, 'RELIANCE', 'NSE');
      const c = await w.add(list.id, 'INFY', 'NSE');
      const d = await w.add(list.id, 'NIFTY', 'NSE_INDEX');
      const res = await w.call('PUT', `/${list.id}/order`, { item_ids: [d.id, b.id, a.id, c.id] });
      expect(res.statusCode, res.body).toBe(200);
      expect((res.json() as { data: List }).data.items.map((i) => i.symbol)).toEqual([
        'NIFTY',
        'RELIANCE',
        'SBIN',
        'INFY',
      ]);
      const [first, second] = await w.lists();
      expect(first!.items.map((i) => i.id)).toEqual([d.id, b.id, a.id, c.id]);
      expect(second!.items.map((i) => i.id)).toEqual([o1.id, o2.id]);
      // A later addition goes after the new last one.
      const e = await w.add(list.id, 'NIFTY25AUG26FUT', 'NFO');
      expect((await w.lists())[0]!.items.map((i) => i.id)).toEqual([d.id, b.id, a.id, c.id, e.id]);
      // An empty list takes the empty order.
      const empty = await w.create('Empty');
      expect((await w.call('PUT', `/${empty.id}/order`, { item_ids: [] })).statusCode).toBe(200);
    });

    it('refuses a reorder that is not a permutation of the list (400 saying which) and moves nothing', async () => {
      w = await start(dialect);
      const list = await w.create('Order');
      const a = await w.add(list.id, 'SBIN', 'NSE');
      const b = await w.add(list.id, 'RELIANCE', 'NSE');
      const c = await w.add(list.id, 'INFY', 'NSE');
      const other = await w.create('Other');
      const foreign = await w.add(other.id, 'SBIN', 'NSE');
      const before = await w.snapshot();
      const cases: [unknown, RegExp][] = [
        [{ item_ids: [c.id, a.id] }, new RegExp(`missing ${b.id}`)],
        [{ item_ids: [c.id, b.id, a.id, 999_999] }, /not in this list 999999/],
        [{ item_ids: [c.id, b.id, a.id, foreign.id] }, new RegExp(`not in this list ${foreign.id}`)],
        [{ item_ids: [c.id, b.id, a.id, a.id] }, new RegExp(`repeated ${a.id}`)],
        [{ item_ids: [c.id, c.id, a.id] }, new RegExp(`missing ${b.id}.*repeated ${c.id}`)],
        [{ item_ids: [] }, /exactly once/],
      ];
      for (const [payload, message] of cases) {
        const res = await w.call('PUT', `/${list.id}/order`, payload);
        refused(res, 400, message);
        expect(body(res).message).toMatch(/item_ids must name each of the list's 3 items exactly once/);
      }
      expect(await w.snapshot()).toEqual(before);
      expect((await w.lists())[0]!.items.map((i) => i.id)).toEqual([a.id, b.id, c.id]);
    });
  });

  describe('limits', () => {
    it('keeps at most 20 lists per user (409 naming the limit); another user is not counted', async () => {
      w = await start(dialect);
      for (let i = 1; i <= 20; i++) await w.create(`List ${i}`);
      refused(await w.call('POST', '', { name: 'List 21' }), 409, /most allowed is 20/);
      expect((await w.snapshot()).lists).toHaveLength(20);
      expect((await w.create('Mine', w.bob)).name).toBe('Mine');
      // Deleting one frees a place.
      const first = (await w.lists())[0]!;
      expect((await w.call('DELETE', `/${first.id}`)).statusCode).toBe(200);
      expect((await w.create('List 21')).name).toBe('List 21');
    });

    it('never passes 20 lists, nor gives one name twice, under concurrent requests', async () => {
      w = await start(dialect);
      const world = w;
      const many = await Promise.all(
        Array.from({ length: 26 }, (_, i) => world.call('POST', '', { name: `Concurrent ${i}` })),
      );
      expect(many.filter((r) => r.statusCode === 201)).toHaveLength(20);
      expect(many.filter((r) => r.statusCode === 409)).toHaveLength(6);
      const same = await Promise.all(
        Array.from({ length: 5 }, () => world.call('POST', '', { name: 'Twin' }, { as: world.bob })),
      );
      expect(same.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409]);
      const lists = (await w.snapshot()).lists as { user_id: number }[];
      expect(lists.filter((l) => l.user_id !== w!.bobId)).toHaveLength(20);
      expect(lists.filter((l) => l.user_id === w!.bobId)).toHaveLength(1);
    });

    it('holds at most 100 instruments per list (409 naming the limit)', async () => {
      w = await start(dialect);
      const list = await w.create('Full');
      // 99 rows written directly (the limit counts rows), then the 100th over HTTP.
      await w.t.db.database.db
        .insertInto('watchlist_items')
        .values(
          Array.from({ length: 99 }, (_, i) => ({
            watchlist_id: list.id,
            symbol: `FILL${i}`,
            exchange: 'NSE',
            position: i,
            created_at: 0,
          })),
        )
        .execute();
      const hundredth = await w.add(list.id, 'SBIN', 'NSE');
      refused(
        await w.call('POST', `/${list.id}/items`, { symbol: 'INFY', exchange: 'NSE' }),
        409,
        /holds 100 instruments, the most allowed is 100/,
      );
      const items = (await w.lists())[0]!.items;
      expect(items).toHaveLength(100);
      expect(items.at(-1)).toEqual(hundredth);
      // A full list still reorders (100 ids is the largest order).
      const reversed = items.map((i) => i.id).reverse();
      const res = await w.call('PUT', `/${list.id}/order`, { item_ids: reversed });
      expect(res.statusCode, res.body).toBe(200);
      expect((await w.lists())[0]!.items.map((i) => i.id)).toEqual(reversed);
    });
  });

  describe('ownership and the session', () => {
    it("answers another user's list or item exactly as a missing one: 404, and changes nothing", async () => {
      w = await start(dialect);
      const mine = await w.create('Admin only');
      const item = await w.add(mine.id, 'SBIN', 'NSE');
      const bobs = await w.create('Bob list', w.bob);
      const before = await w.snapshot();
      expect(await w.lists(w.bob)).toEqual([{ id: bobs.id, name: 'Bob list', items: [] }]);
      const asBob = { as: w.bob };
      const attempts: [Method, string, unknown][] = [
        ['PATCH', `/${mine.id}`, { name: 'Taken over' }],
        ['DELETE', `/${mine.id}`, undefined],
        ['POST', `/${mine.id}/items`, { symbol: 'INFY', exchange: 'NSE' }],
        ['DELETE', `/${mine.id}/items/${item.id}`, undefined],
        ['PUT', `/${mine.id}/order`, { item_ids: [item.id] }],
      ];
      for (const [method, path, payload] of attempts) {
        const theirs = await w.call(method, path, payload, asBob);
        const missing = await w.call(method, path.replace(String(mine.id), '987654321'), payload, asBob);
        refused(theirs, 404, 'No such watch list');
        expect(theirs.body).toBe(missing.body);
      }
      // Admin's item through Bob's own list: no such item.
      refused(await w.call('DELETE', `/${bobs.id}/items/${item.id}`, undefined, asBob), 404, 'No such item');
      refused(
        await w.call('PUT', `/${bobs.id}/order`, { item_ids: [item.id] }, asBob),
        400,
        /not in this list/,
      );
      // Bob's unknown instrument on Admin's list is still the list's 404 (nothing is revealed).
      refused(
        await w.call('POST', `/${mine.id}/items`, { symbol: 'NOSUCH', exchange: 'NSE' }, asBob),
        404,
        'No such watch list',
      );
      expect(await w.snapshot()).toEqual(before);
    });

    it('answers 401 without a session on every route, and 403 without the CSRF token on every change', async () => {
      w = await start(dialect);
      const list = await w.create('Guarded');
      const item = await w.add(list.id, 'SBIN', 'NSE');
      const before = await w.snapshot();
      const routes: [Method, string, unknown][] = [
        ['GET', '', undefined],
        ['POST', '', { name: 'New' }],
        ['PATCH', `/${list.id}`, { name: 'Renamed' }],
        ['DELETE', `/${list.id}`, undefined],
        ['POST', `/${list.id}/items`, { symbol: 'INFY', exchange: 'NSE' }],
        ['DELETE', `/${list.id}/items/${item.id}`, undefined],
        ['PUT', `/${list.id}/order`, { item_ids: [item.id] }],
      ];
      for (const [method, path, payload] of routes) {
        const none = await w.call(method, path, payload, { as: null });
        refused(none, 401);
        expect(body(none).code).toBe('session_required');
        const forged = await w.call(method, path, payload, {
          headers: { cookie: 'algodesk_session=forged' },
          as: null,
        });
        refused(forged, 401);
        if (method === 'GET') continue;
        const noCsrf = await w.call(method, path, payload, { csrf: false });
        refused(noCsrf, 403, /CSRF/);
        expect(body(noCsrf).code).toBe('csrf_failed');
        // Another session's token is no token.
        refused(await w.call(method, path, payload, { csrf: w.bob.csrf }), 403, /CSRF/);
      }
      // A read needs no token.
      expect((await w.call('GET', '', undefined, { csrf: false })).statusCode).toBe(200);
      expect(await w.snapshot()).toEqual(before);
    });

    it('deletes a user’s lists and their items with the user; other users keep theirs', async () => {
      w = await start(dialect);
      const bobs = await w.create('Bob list', w.bob);
      await w.add(bobs.id, 'SBIN', 'NSE', w.bob);
      await w.add(bobs.id, 'NIFTY', 'NSE_INDEX', w.bob);
      const mine = await w.create('Admin list');
      await w.add(mine.id, 'INFY', 'NSE');
      const res = await w.t.app.inject({
        method: 'DELETE',
        url: `/admin/api/users/${w.bobId}`,
        headers: asBrowser(w.admin),
      });
      expect(res.statusCode, res.body).toBe(200);
      const snap = await w.snapshot();
      expect((snap.lists as { id: number }[]).map((l) => l.id)).toEqual([mine.id]);
      expect((snap.items as { watchlist_id: number }[]).map((i) => i.watchlist_id)).toEqual([mine.id]);
      refused(await w.call('GET', '', undefined, { as: w.bob }), 401);
    });

    it('counts against the administration rate limit (429 with Retry-After)', async () => {
      w = await start(dialect, {});
      let first429: LightMyRequestResponse | undefined;
      let passed = 0;
      for (let i = 0; i < 60 && !first429; i++) {
        const res = await w.call('GET', '');
        if (res.statusCode === 429) first429 = res;
        else {
          expect(res.statusCode).toBe(200);
          passed++;
        }
      }
      expect(first429).toBeDefined();
      expect(passed).toBeGreaterThanOrEqual(40);
      refused(first429!, 429, /Rate limit exceeded/);
      expect(body(first429!).code).toBe('rate_limited');
      expect(Number(first429!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    });
  });

  describe('bad input: a 4xx with a clear message, never a 500, nothing written', () => {
    it('refuses malformed bodies, wrong types, bad names and hostile strings', async () => {
      w = await start(dialect);
      const list = await w.create('Existing');
      const item = await w.add(list.id, 'SBIN', 'NSE');
      const before = await w.snapshot();
      const json = { 'content-type': 'application/json' };
      /** [method, path, payload (a string is sent as is), status, message]. */
      const cases: [Method, string, unknown, number, RegExp][] = [
        ['POST', '', '{"name": "unterminated', 400, /Malformed JSON/],
        ['POST', '', '', 400, /empty|must be a JSON object/i],
        ['POST', '', '[]', 400, /must be a JSON object/],
        ['POST', '', '"Banks"', 400, /must be a JSON object/],
        ['POST', '', '{"__proto__": {"admin": true}, "name": "x"}', 400, /./],
        ['POST', '', {}, 400, /name: Missing data for required field/],
        ['POST', '', { name: 42 }, 400, /name: Must be string/],
        ['POST', '', { name: null }, 400, /name: Must be string/],
        ['POST', '', { name: ['Banks'] }, 400, /name: Must be string/],
        ['POST', '', { name: { $ne: '' } }, 400, /name: Must be string/],
        ['POST', '', { name: 'Banks', admin: true }, 400, /Must NOT have additional properties/],
        ['POST', '', { name: '' }, 400, /name/],
        ['POST', '', { name: ' \t ' }, 400, /name/],
        ['POST', '', { name: 'x'.repeat(41) }, 400, /at most 40 characters/],
        ['POST', '', { name: '📈'.repeat(41) }, 400, /at most 40 characters/],
        ['POST', '', { name: 'y'.repeat(201) }, 400, /name: Must NOT have more than 200 characters/],
        ['POST', '', { name: 'nul\u0000byte' }, 400, /NUL/],
        ['POST', '', { name: 'tab\there' }, 400, /printable/],
        ['POST', '', { name: 'bell\u0007' }, 400, /printable/],
        ['POST', '', { name: 'evil\u202Egnp.exe' }, 400, /printable/],
        ['POST', '', { name: 'zero\u200Bwidth' }, 400, /printable/],
        ['POST', '', { name: 'lone \uD800 surrogate' }, 400, /printable/],
        ['POST', '', { name: 'line\u2028break' }, 400, /printable/],
        ['POST', '', { name: 'private\uE000use' }, 400, /printable/],
        ['PATCH', `/${list.id}`, { name: 'x'.repeat(41) }, 400, /at most 40 characters/],
        ['PATCH', `/${list.id}`, { name: 'evil\u202E' }, 400, /printable/],
        ['PATCH', `/${list.id}`, { title: 'x' }, 400, /name: Missing data/],
        ['PATCH', `/${list.id}`, 'not json at all {', 400, /./],
        ['POST', `/${list.id}/items`, { symbol: 'INFY' }, 400, /exchange: Missing data/],
        [
          'POST',
          `/${list.id}/items`,
          { symbol: 'INFY', exchange: 'NASDAQ' },
          400,
          /exchange: Must be one of: NSE, BSE, .*NSE_INDEX, BSE_INDEX/,
        ],
        ['POST', `/${list.id}/items`, { symbol: 'INFY', exchange: 'nse' }, 400, /exchange/],
        ['POST', `/${list.id}/items`, { symbol: 7, exchange: 'NSE' }, 400, /symbol: Must be string/],
        ['POST', `/${list.id}/items`, { symbol: '', exchange: 'NSE' }, 400, /symbol/],
        ['POST', `/${list.id}/items`, { symbol: '   ', exchange: 'NSE' }, 400, /symbol must not be blank/],
        ['POST', `/${list.id}/items`, { symbol: 'X'.repeat(65), exchange: 'NSE' }, 400, /symbol/],
        ['POST', `/${list.id}/items`, { symbol: 'SB\nIN', exchange: 'NSE' }, 400, /symbol/],
        ['POST', `/${list.id}/items`, { symbol: "SBIN' OR 1=1 --", exchange: 'NSE' }, 404, /master contract/],
        ['PUT', `/${list.id}/order`, { item_ids: String(item.id) }, 400, /item_ids: Must be array/],
        ['PUT', `/${list.id}/order`, { item_ids: [String(item.id)] }, 400, /item_ids\.0: Must be integer/],
        ['PUT', `/${list.id}/order`, { item_ids: [1.5] }, 400, /Must be integer/],
        ['PUT', `/${list.id}/order`, { item_ids: [-item.id] }, 400, /Must be >= 1/],
        [
          'PUT',
          `/${list.id}/order`,
          { item_ids: Array.from({ length: 101 }, (_, i) => i + 1) },
          400,
          /more than 100 items/,
        ],
        ['PUT', `/${list.id}/order`, {}, 400, /item_ids: Missing data/],
      ];
      for (const [method, path, payload, status, message] of cases) {
        const res = await w.call(method, path, payload, typeof payload === 'string' ? { headers: json } : {});
        refused(res, status, message);
      }
      expect(await w.snapshot()).toEqual(before);
    });

    it('refuses huge bodies with 413 before reading them', async () => {
      w = await start(dialect);
      const list = await w.create('Existing');
      const before = await w.snapshot();
      refused(await w.call('POST', '', { name: 'x'.repeat(20_000) }), 413, 'Request body is too large');
      refused(await w.call('PATCH', `/${list.id}`, { name: 'x'.repeat(2_000_000) }), 413, /too large/);
      refused(
        await w.call('PUT', `/${list.id}/order`, {
          item_ids: Array.from({ length: 5_000 }, (_, i) => i + 1),
        }),
        413,
        /too large/,
      );
      expect(await w.snapshot()).toEqual(before);
    });

    it('validates ids in paths: positive integers, else 400; unknown ones 404', async () => {
      w = await start(dialect);
      const list = await w.create('Existing');
      const item = await w.add(list.id, 'SBIN', 'NSE');
      const before = await w.snapshot();
      const bad = ['abc', '0', '-1', '1.5', '99999999999999999999', '%27%20OR%201%3D1', '1;DROP'];
      for (const id of bad) {
        refused(await w.call('PATCH', `/${id}`, { name: 'x' }), 400, /id/);
        refused(await w.call('DELETE', `/${id}`), 400, /id/);
        refused(await w.call('POST', `/${id}/items`, { symbol: 'INFY', exchange: 'NSE' }), 400, /id/);
        refused(await w.call('PUT', `/${id}/order`, { item_ids: [] }), 400, /id/);
        refused(await w.call('DELETE', `/${list.id}/items/${id}`), 400, /itemId/);
      }
      refused(await w.call('PATCH', '/424242', { name: 'x' }), 404, 'No such watch list');
      refused(await w.call('DELETE', `/${list.id}/items/424242`), 404, 'No such item in this watch list');
      expect(await w.snapshot()).toEqual(before);
      expect(item.symbol).toBe('SBIN');
    });
  });
});
