/**
 * Issue 7 part 4 at its edges: bodies without a declared length (rule 10 only refuses a declared
 * size unread), paths that are not a well-formed token, the order in which the checks decide,
 * every refusal audited, NUL, credential-looking values, the de-duplication claim of a refused
 * delivery, and a rotation racing a token lookup.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it, vi } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import { BATCH_PAIR, SIGNAL_SBIN, startStrategies, type StrategyHarness } from '../helpers/strategies.js';

let h: StrategyHarness;
afterEach(async () => {
  await h?.close();
});

const json = (res: { json(): unknown }) => res.json() as Record<string, unknown>;
const audited = async () => (await h.rows('webhook_deliveries')).map((d) => d.result);

/** POSTs `parts` over a real connection with chunked transfer encoding (no declared length). */
async function postChunked(path: string, parts: string[]): Promise<{ status: number; body: string }> {
  if (!h.t.app.server.listening) await h.t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = h.t.app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: Number(port),
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    // The server may close the connection on a body it will not read to the end.
    req.on('error', (err) => (req.writableEnded ? undefined : reject(err)));
    for (const p of parts) req.write(p);
    req.end();
  });
}

describeEachDb('rule 10: a body without a declared length is read up to 16,384 bytes', (dialect) => {
  it('a chunked body within the size is handled; one over it is rejected_payload (audited), however long it goes on', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create(SIGNAL_SBIN);
    const small = JSON.stringify({ action: 'long_entry' });
    const ok = await postChunked(`/strategy/webhook/${token}`, [small.slice(0, 5), small.slice(5)]);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ result: 'ok' });

    const big = JSON.stringify({ action: 'long_exit', pad: 'x'.repeat(17_000) });
    const over = await postChunked(`/strategy/webhook/${token}`, [big.slice(0, 9_000), big.slice(9_000)]);
    expect(over.status).toBe(400);
    expect(JSON.parse(over.body)).toMatchObject({ status: 'error', result: 'rejected_payload' });

    // A sender that keeps streaming (256 KiB) is answered from the first 16 KiB, not buffered.
    const endless = Array.from({ length: 64 }, () => 'y'.repeat(4_096));
    const stream = await postChunked(`/strategy/webhook/${token}`, [
      '{"action":"long_exit","pad":"',
      ...endless,
    ]);
    expect(stream.status).toBe(400);
    expect(await audited()).toEqual(['ok', 'rejected_payload', 'rejected_payload']);
    const rows = await h.rows('webhook_deliveries');
    expect(rows.at(-1)).toMatchObject({ http_status: 400, payload: null });
    // The over-size deliveries placed nothing: only the first signal's entry exists.
    expect(await h.rows('strategy_orders')).toHaveLength(1);
  });
});

describeEachDb(
  'rule 1: every path that is not a well-formed token is the same audited rejected_token',
  (dialect) => {
    it('too long, extra segments, a trailing slash, none at all: 404 rejected_token, never the 404 ban tracker', async () => {
      h = await startStrategies(dialect);
      const { token } = await h.create(SIGNAL_SBIN);
      const unknown = await h.hook('whk_' + 'A'.repeat(43), { action: 'long_entry' });
      expect(unknown.statusCode).toBe(404);
      const expected = json(unknown);
      for (const path of [
        `/strategy/webhook/${'x'.repeat(300)}`,
        `/strategy/webhook/${token}/extra`,
        `/strategy/webhook/${token}/`,
        '/strategy/webhook/',
        '/strategy/webhook',
      ]) {
        const res = await h.t.app.inject({
          method: 'POST',
          url: path,
          payload: { action: 'long_entry' },
          remoteAddress: '203.0.113.50',
        });
        expect(res.statusCode, path).toBe(404);
        expect(json(res), path).toEqual(expected);
      }
      expect(await audited()).toEqual(Array(6).fill('rejected_token'));
      expect((await h.rows('webhook_deliveries')).every((d) => d.strategy_id === null)).toBe(true);
      await h.t.services.security.trackers.flush();
      const tracked = await h.t.db.database.db.selectFrom('error_404_tracker').selectAll().execute();
      expect(tracked).toEqual([]);
      expect(await h.rows('strategy_orders')).toEqual([]);
    });
  },
);

describeEachDb('the checks decide in the spec’s order, and every refusal is audited', (dialect) => {
  it('token → lock → allowlist → payload → action → live → dedupe → cooling-off', async () => {
    h = await startStrategies(dialect);
    const { id, token } = await h.create({ ...BATCH_PAIR, ip_allowlist: ['198.51.100.7'] });
    const inside = { ip: '198.51.100.7' };
    const outside = { ip: '203.0.113.9' };
    await h.manage('POST', `/${id}/lock`, { locked: true });
    // Locked wins over a sender outside the allowlist and a body that is not JSON.
    expect(json(await h.hook(token, '{bad', outside))).toMatchObject({ result: 'rejected_locked' });
    await h.manage('POST', `/${id}/lock`, { locked: false });
    // Outside the allowlist wins over a bad body.
    expect(json(await h.hook(token, '{bad', outside))).toMatchObject({ result: 'rejected_ip' });
    // A bad body wins over a bad action.
    expect(json(await h.hook(token, '[1]', inside))).toMatchObject({ result: 'rejected_payload' });
    // A bad action wins over live being disabled.
    expect(json(await h.hook(token, { action: 'long_entry', mode: 'live' }, inside))).toMatchObject({
      result: 'rejected_invalid_action',
    });
    expect(json(await h.hook(token, { action: 'start', mode: 'live' }, inside))).toMatchObject({
      result: 'rejected_live_disabled',
    });
    expect(json(await h.hook(token, { action: 'start', mode: 'sandbox' }, inside))).toMatchObject({
      result: 'ok',
    });
    h.t.clock.advance(1_000);
    expect(json(await h.hook(token, { action: 'stop' }, inside))).toMatchObject({ result: 'ok' });
    await h.t.services.strategies.stopper.whenIdle();
    // An identical stop within 60 s is a duplicate before anything else is looked at.
    expect(json(await h.hook(token, { action: 'stop' }, inside))).toMatchObject({
      result: 'rejected_dedupe',
    });
    h.t.clock.advance(1_000);
    // A start 2 s after the stop: a duplicate of the first start (within 60 s) wins over cooling-off.
    expect(json(await h.hook(token, { action: 'start', mode: 'sandbox' }, inside))).toMatchObject({
      result: 'rejected_dedupe',
    });
    expect(json(await h.hook(token, { action: 'start', mode: 'SANDBOX ' }, inside))).toMatchObject({
      result: 'rejected_dedupe',
    });
    expect(json(await h.hook(token, { action: 'start', mode: 'sandbox', note: 'x' }, inside))).toMatchObject({
      result: 'rejected_cooling_off',
    });
    expect(await audited()).toEqual([
      'rejected_locked',
      'rejected_ip',
      'rejected_payload',
      'rejected_invalid_action',
      'rejected_live_disabled',
      'ok',
      'ok',
      'rejected_dedupe',
      'rejected_dedupe',
      'rejected_dedupe',
      'rejected_cooling_off',
    ]);
    const rows = await h.rows('webhook_deliveries');
    expect(rows.map((r) => r.http_status)).toEqual([403, 403, 400, 400, 403, 200, 200, 200, 200, 200, 409]);
    expect(rows.every((r) => r.strategy_id === id)).toBe(true);
  });

  it('a delivery refused after its de-duplication claim gives the claim back: the retry is judged afresh', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create(BATCH_PAIR);
    await h.hook(token, { action: 'start', mode: 'sandbox', n: 1 });
    h.t.clock.advance(1_000);
    await h.hook(token, { action: 'stop' });
    await h.t.services.strategies.stopper.whenIdle();
    h.t.clock.advance(5_000);
    const start = { action: 'start', mode: 'sandbox' };
    expect(json(await h.hook(token, start))).toMatchObject({ result: 'rejected_cooling_off' });
    h.t.clock.advance(30_000);
    // 35 s after the refused start, well within 60 s: the same body starts a run.
    expect(json(await h.hook(token, start))).toMatchObject({ result: 'ok', run_id: expect.any(Number) });

    // An engine failure gives its claim back too.
    h.t.clock.advance(1_000);
    const stopper = h.t.services.strategies.stopper;
    const stop = stopper.stop.bind(stopper);
    stopper.stop = () => Promise.reject(new Error('engine down'));
    expect(json(await h.hook(token, { action: 'stop', n: 2 }))).toMatchObject({
      result: 'rejected_engine_error',
    });
    stopper.stop = stop;
    expect(json(await h.hook(token, { action: 'stop', n: 2 }))).toMatchObject({
      result: 'ok',
      stop_pending: true,
    });
  });
});

describeEachDb('audited payloads: no NUL, no credentials', (dialect) => {
  it('a body holding NUL is rejected_payload and audited (PostgreSQL text cannot hold it)', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create(SIGNAL_SBIN);
    for (const raw of ['{"action":"long_\\u0000entry"}', '{"action":"long_entry","x\\u0000":1}']) {
      const res = await h.hook(token, raw);
      expect(res.statusCode).toBe(400);
      expect(json(res)).toMatchObject({ result: 'rejected_payload' });
    }
    expect(await audited()).toEqual(['rejected_payload', 'rejected_payload']);
  });

  it('credential-looking text inside values is redacted: a pasted webhook URL, a JWT, a bearer header, an API key', async () => {
    h = await startStrategies(dialect);
    const { token, url } = await h.create(SIGNAL_SBIN);
    const apiKey = 'a1b2c3d4'.repeat(8);
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijkl';
    await h.hook(token, {
      action: 'long_entry',
      comment: `fired from ${url}`,
      note: `Authorization: Bearer ${jwt}`,
      notes: [`key ${apiKey}`, 'plain words stay'],
      price: 812.5,
    });
    const stored = String((await h.rows('webhook_deliveries'))[0]!.payload);
    for (const secret of [token, jwt, apiKey]) expect(stored).not.toContain(secret);
    expect(JSON.parse(stored)).toMatchObject({
      action: 'long_entry',
      comment: expect.stringContaining('[redacted]'),
      notes: [expect.stringContaining('[redacted]'), 'plain words stay'],
      price: 812.5,
    });
  });
});

describeEachDb('token lookups and rotation', (dialect) => {
  it('a rotation landing while a lookup reads the database is not undone by the lookup’s cache entry', async () => {
    h = await startStrategies(dialect);
    const { id, token } = await h.create(SIGNAL_SBIN);
    const repo = h.t.services.strategies.strategies.repo;
    const findByDigest = repo.findByDigest.bind(repo);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let reads = 0;
    repo.findByDigest = async (digest: string) => {
      const row = await findByDigest(digest);
      if (reads++ === 0) await gate;
      return row;
    };
    const inFlight = h.hook(token, { action: 'long_entry' });
    await vi.waitFor(() => expect(reads).toBe(1));
    expect((await h.manage('POST', `/${id}/rotate-token`)).statusCode).toBe(200);
    release();
    await inFlight; // decided on what it read before the rotation
    repo.findByDigest = findByDigest;
    expect(json(await h.hook(token, { action: 'long_exit' }))).toMatchObject({ result: 'rejected_token' });
  });
});

describeEachDb(
  'the token stays out of every log, audit and traffic row on the refusal paths too',
  (dialect) => {
    it('rotated (404), declared over size (413), rate-limited (429), extra segments, an entry and an exit', async () => {
      h = await startStrategies(dialect, { WEBHOOK_RATE_LIMIT: '4 per minute', LOG_LEVEL: 'trace' });
      const { id, token } = await h.create(SIGNAL_SBIN);
      const rotated = json(await h.manage('POST', `/${id}/rotate-token`)).data as { webhook_token: string };
      const fresh = rotated.webhook_token;
      expect((await h.hook(token, { action: 'long_entry' })).statusCode).toBe(404);
      expect((await h.hook(fresh, { action: 'long_entry' })).statusCode).toBe(200);
      expect((await h.hook(fresh, { action: 'long_exit' })).statusCode).toBe(200);
      expect((await h.hook(fresh, 'x'.repeat(20_000))).statusCode).toBe(413);
      const extra = await h.t.app.inject({
        method: 'POST',
        url: `/strategy/webhook/${fresh}/x`,
        payload: {},
      });
      expect(extra.statusCode).toBe(404);
      expect((await h.hook(fresh, { action: 'long_entry' })).statusCode).toBe(429);
      await h.t.services.observability.traffic.flush();
      await h.t.services.orders.events.whenIdle();
      const db = h.t.db.database.db;
      const everything = JSON.stringify([
        h.t.logs,
        await h.rows('webhook_deliveries'),
        await h.rows('strategy_events'),
        await h.rows('strategy_orders'),
        await db.selectFrom('traffic_log').selectAll().execute(),
        await db.selectFrom('analyzer_logs').selectAll().execute(),
        await db.selectFrom('order_logs').selectAll().execute(),
      ]);
      for (const secret of [token, fresh, token.slice(4), fresh.slice(4)])
        expect(everything).not.toContain(secret);
      expect(everything).toContain('/strategy/webhook/[redacted]');
    });
  },
);

describeEachDb('rule 5: mode belongs to batch start; a signal strategy ignores it', (dialect) => {
  it('a signal carrying mode live or any other mode trades in the service’s mode (analyzer → sandbox)', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create(SIGNAL_SBIN);
    expect(json(await h.hook(token, { action: 'long_entry', mode: 'live' }))).toMatchObject({ result: 'ok' });
    expect(json(await h.hook(token, { action: 'long_exit', mode: 'whatever' }))).toMatchObject({
      result: 'ok',
    });
    const runs = await h.rows('strategy_runs');
    expect(runs.map((r) => r.mode)).toEqual(['sandbox']);
    const orders = await h.rows('strategy_orders');
    expect(orders.map((o) => `${o.action}:${o.status === 'rejected' ? 'rejected' : 'sent'}`)).toEqual([
      'BUY:sent',
      'SELL:sent',
    ]);
  });
});

/** Holds every order placement of the strategy runner until the returned function is called. */
function holdPlacements(): () => void {
  const runner = h.t.services.strategies.runner;
  const place = runner.place.bind(runner);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  runner.place = async (...args: Parameters<typeof place>) => {
    await gate;
    return place(...args);
  };
  return release;
}

describeEachDb('a sender that goes away before its answer', (dialect) => {
  it('is still audited, and the traffic log keeps its request with status 499', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create(SIGNAL_SBIN);
    const release = holdPlacements();
    if (!h.t.app.server.listening) await h.t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.t.app.server.address() as AddressInfo;
    const req = request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `/strategy/webhook/${token}`,
      headers: { 'content-type': 'application/json' },
    });
    req.on('error', () => undefined);
    req.end(JSON.stringify({ action: 'long_entry' }));
    await vi.waitFor(async () => expect(await h.rows('strategy_runs')).toHaveLength(1));
    req.destroy();
    await new Promise((r) => setTimeout(r, 50));
    release();
    await vi.waitFor(async () => expect(await audited()).toEqual(['ok']));
    await vi.waitFor(async () => {
      await h.t.services.observability.traffic.flush();
      const rows = await h.t.db.database.db.selectFrom('traffic_log').selectAll().execute();
      expect(rows.filter((r) => r.path === '/strategy/webhook/[redacted]').map((r) => r.status)).toEqual([
        499,
      ]);
    });
  });
});

describeEachDb('shutdown lets requests in flight finish first', (dialect) => {
  it('a delivery still being handled when the app closes is answered, audited and in the traffic log', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create(SIGNAL_SBIN);
    const release = holdPlacements();
    const answer = h.hook(token, { action: 'long_entry' });
    await vi.waitFor(async () => expect(await h.rows('strategy_runs')).toHaveLength(1));
    let closed = false;
    const closing = h.t.app.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(false);
    release();
    expect((await answer).statusCode).toBe(200);
    await closing;
    expect(await audited()).toEqual(['ok']);
    const traffic = await h.t.db.database.db.selectFrom('traffic_log').selectAll().execute();
    expect(traffic.filter((r) => r.path === '/strategy/webhook/[redacted]').map((r) => r.status)).toEqual([
      200,
    ]);
    expect((await h.rows('strategy_orders')).map((o) => o.status)).toEqual(['filled']);
  });
});
