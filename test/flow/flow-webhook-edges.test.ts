/**
 * Flow workflows at their edges (docs/rules/flow.md#flow-webhook): every path that is not a live
 * token is the same recorded 404 rejected_token, never the 404 ban tracker's; a declared size over
 * 16,384 bytes (413) and the rate limit (429) are answered unread and unrecorded; an engine failure
 * is a recorded 500 that tells nothing; and the token and the secret appear in no log, run row,
 * traffic row, view or runs answer after creation and rotation (query `?secret=` included).
 */
import { afterEach, expect, it } from 'vitest';
import { FakeTunnelDriver } from '../../src/modules/tunnel/fake-tunnel.driver.js';
import { asBrowser, createUser, describeEachDb, login, type TestApp } from '../helpers/test-app.js';
import { createTunnelApp, warnings, type TunnelTestApp } from '../helpers/tunnel-app.js';
import {
  FLOW_TOKEN,
  answer,
  flowOf,
  placed,
  signalFlow,
  startFlow,
  type FlowHarness,
} from '../helpers/flow.js';

let h: FlowHarness | undefined;
let tunnel: TunnelTestApp | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  await tunnel?.close();
  tunnel = undefined;
});

const go = (over: Record<string, unknown> = {}) => ({ signal: 'go', action: 'BUY', qty: 1, ...over });

describeEachDb('flow webhook: tokens and paths', (dialect) => {
  it('unknown, malformed, rotated, deleted, extra segments, none: the same 404 rejected_token, recorded without a flow, never the 404 ban tracker', async () => {
    h = await startFlow(dialect);
    const { id, token, secret } = await h.create(signalFlow());
    const gone = await h.create(signalFlow({ name: 'gone' }));
    const rotated = await h.create(signalFlow({ name: 'rotated' }));
    expect((await h.manage('DELETE', `/${gone.id}`)).statusCode).toBe(200);
    expect((await h.manage('POST', `/${rotated.id}/rotate`)).statusCode).toBe(200);
    const unknown = await h.hook(`flw_${'A'.repeat(43)}`, { ...go(), secret });
    expect(unknown.statusCode).toBe(404);
    const expected = answer(unknown);
    expect(expected).toEqual({ status: 'error', result: 'rejected_token', message: expect.any(String) });
    const paths = [
      `/flow/webhook/${gone.token}`,
      `/flow/webhook/${gone.token}/SBIN`,
      `/flow/webhook/${rotated.token}/SBIN`,
      `/flow/webhook/flw_${'A'.repeat(43)}/SBIN`,
      '/flow/webhook/flw_short',
      `/flow/webhook/scn_${token.slice(4)}`,
      `/flow/webhook/${token}x`,
      `/flow/webhook/${token.slice(0, -1)}`,
      `/flow/webhook/${token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase()}`,
      `/flow/webhook/${encodeURIComponent("flw_'; DROP TABLE flows; --")}`,
      `/flow/webhook/${'x'.repeat(300)}`,
      `/flow/webhook/${token}/SBIN/extra`,
      `/flow/webhook/${token}/SBIN/`,
      `/flow/webhook//${token}`,
      '/flow/webhook/',
      '/flow/webhook',
    ];
    for (const url of paths) {
      const res = await h.t.app.inject({
        method: 'POST',
        url: `${url}?secret=${encodeURIComponent(secret)}`,
        payload: JSON.stringify({ ...go(), secret }),
        headers: { 'content-type': 'application/json' },
        remoteAddress: '203.0.113.50',
      });
      expect(res.statusCode, url).toBe(404);
      expect(answer(res), url).toEqual(expected);
    }
    const recorded = await h.rows('flow_runs');
    expect(recorded).toHaveLength(paths.length + 1);
    expect(recorded.every((r) => r.result === 'rejected_token' && r.flow_id === null)).toBe(true);
    expect(
      recorded.every((r) => Number(r.http_status) === 404 && r.payload === null && r.nodes === null),
    ).toBe(true);
    // Never the 404 ban tracker's business; nothing run; the live token still works.
    await h.t.services.security.trackers.flush();
    expect(await h.t.db.database.db.selectFrom('error_404_tracker').selectAll().execute()).toEqual([]);
    expect(await h.orders()).toEqual([]);
    expect(answer(await h.hook(token, { ...go(), secret }, { symbol: 'SBIN' }))).toMatchObject({
      result: 'ok',
      flow_id: id,
    });
    // The rotated flow's runs hold none of the dead token's deliveries.
    expect(await h.runs(rotated.id)).toEqual([]);
  });

  it('a symbol segment that is not a symbol is a 400 rejected_payload (after the secret); M&M is a symbol', async () => {
    h = await startFlow(dialect);
    const { token, secret } = await h.create(signalFlow());
    for (const symbol of [
      'X'.repeat(65),
      encodeURIComponent('SB IN'),
      encodeURIComponent('<b>'),
      encodeURIComponent("'; DROP"),
    ]) {
      const res = await h.hook(token, { ...go(), secret }, { symbol });
      expect(res.statusCode, symbol).toBe(400);
      expect(answer(res), symbol).toMatchObject({ result: 'rejected_payload' });
    }
    // Symbols with & (M&M) and dots are symbols: the pipeline answers for them.
    const mm = await h.hook(token, { ...go(), secret }, { symbol: encodeURIComponent('M&M') });
    expect(mm.statusCode).toBe(200);
    expect(answer(mm)).toMatchObject({ result: 'failed', nodes: [{ status: 'done' }, { status: 'failed' }] });
    expect(await h.orders()).toEqual([]);
  });
});

describeEachDb('flow webhook: size, rate limits and engine errors', (dialect) => {
  it('413 for a declared body over 16,384 bytes: nothing run, no run row; exactly 16,384 bytes is read; a chunked oversize body is refused', async () => {
    h = await startFlow(dialect);
    const { id, token, secret } = await h.create(signalFlow());
    const over = JSON.stringify({ ...go(), secret, pad: 'x'.repeat(1_000) }).padEnd(16_385, ' ');
    const res = await h.hook(token, over, { symbol: 'SBIN' });
    expect(res.statusCode).toBe(413);
    expect(await h.rows('flow_runs')).toEqual([]);
    expect(await h.orders()).toEqual([]);
    const exact = JSON.stringify({ ...go(), secret }).padEnd(16_384, ' ');
    expect(Buffer.byteLength(exact)).toBe(16_384);
    const ok = await h.hook(token, exact, { symbol: 'SBIN' });
    expect(ok.statusCode).toBe(200);
    expect(answer(ok)).toMatchObject({ result: 'ok' });
    // Chunked (no declared length) past the limit: read up to it, then refused as a payload fault —
    // after the secret (in the query here; the body is not read).
    const chunked = await h.t.app.inject({
      method: 'POST',
      url: `/flow/webhook/${token}/SBIN?secret=${encodeURIComponent(secret)}`,
      payload: JSON.stringify({ ...go({ qty: 2 }), pad: 'x'.repeat(17_000) }),
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    expect([400, 413]).toContain(chunked.statusCode);
    if (chunked.statusCode === 400) expect(answer(chunked)).toMatchObject({ result: 'rejected_payload' });
    expect(await placed(h)).toEqual(['BUY SBIN×1 MIS']);
    expect((await h.runs(id)).at(-1)).toMatchObject({ result: 'ok' });
  });

  it('429 rate_limited per token and per sender address (WEBHOOK_RATE_LIMIT), never recorded', async () => {
    h = await startFlow(dialect, { WEBHOOK_RATE_LIMIT: '2 per minute' });
    const { id, token, secret } = await h.create(signalFlow());
    const body = (n: number) => ({ ...go({ n }), secret });
    expect((await h.hook(token, body(1), { symbol: 'SBIN' })).statusCode).toBe(200);
    expect((await h.hook(token, body(2), { symbol: 'SBIN' })).statusCode).toBe(200);
    const limited = await h.hook(token, body(3), { symbol: 'SBIN' });
    expect(limited.statusCode).toBe(429);
    expect(answer(limited)).toMatchObject({ status: 'error', result: 'rate_limited' });
    // By token: another address is refused for it too.
    expect((await h.hook(token, body(4), { symbol: 'SBIN', ip: '203.0.113.9' })).statusCode).toBe(429);
    expect((await h.runs(id)).map((r) => r.result)).toEqual(['ok', 'ok']);
    expect(await h.orders()).toHaveLength(2);
    // By address: that sender may still use another flow, twice.
    const other = await h.create(signalFlow({ name: 'other' }));
    const ob = (n: number) => ({ ...go({ n }), secret: other.secret });
    expect((await h.hook(other.token, ob(5), { symbol: 'SBIN', ip: '203.0.113.9' })).statusCode).toBe(200);
    expect((await h.hook(other.token, ob(6), { symbol: 'SBIN', ip: '198.51.100.4' })).statusCode).toBe(200);
    expect((await h.hook(other.token, ob(7), { symbol: 'SBIN', ip: '198.51.100.5' })).statusCode).toBe(429);
    await h.advance(61_000);
    expect((await h.hook(token, body(8), { symbol: 'SBIN' })).statusCode).toBe(200);
  });

  it('an engine failure (an unreadable stored definition) is a recorded 500 rejected_engine_error that tells nothing', async () => {
    h = await startFlow(dialect);
    const { id, token, secret } = await h.create(signalFlow());
    await h.t.db.database.db
      .updateTable('flows')
      .set({ definition: '{"nodes":' })
      .where('id', '=', id)
      .execute();
    const res = await h.hook(token, { ...go(), secret }, { symbol: 'SBIN' });
    expect(res.statusCode).toBe(500);
    const a = answer(res);
    expect(a).toEqual({
      status: 'error',
      result: 'rejected_engine_error',
      message: expect.any(String),
      flow_id: id,
    });
    expect(res.body).not.toMatch(/JSON|SyntaxError|position|stack/i);
    const recorded = await h.rows('flow_runs');
    expect(recorded.map((r) => [r.result, Number(r.http_status)])).toEqual([['rejected_engine_error', 500]]);
    expect(h.t.logs.some((l) => l.includes('flow webhook: engine error'))).toBe(true);
  });
});

describeEachDb('flow webhook: deeply nested bodies', (dialect) => {
  // The de-duplication fingerprint reads a body to a bounded depth (webhook-body.ts canonical()).
  it('a body nested 8,000 levels deep (under 16,384 bytes) is run or refused as a payload, never a 500', async () => {
    h = await startFlow(dialect);
    const { token, secret } = await h.create(signalFlow());
    const deep = `{"secret":${JSON.stringify(secret)},"signal":"no","a":${'['.repeat(8_000)}${']'.repeat(8_000)}}`;
    expect(Buffer.byteLength(deep)).toBeLessThan(16_384);
    const res = await h.hook(token, deep, { symbol: 'SBIN' });
    expect([200, 400]).toContain(res.statusCode);
  });
});

describeEachDb('flow webhook: the token and the secret stay secret', (dialect) => {
  it('never in a log, run row, traffic row, view or runs answer — accepted, refused, limited, query or body', async () => {
    h = await startFlow(dialect, { WEBHOOK_RATE_LIMIT: '9 per minute' });
    const created = await h.create(signalFlow());
    const { id, token, secret, url } = created;
    // Creation shows them once (and only there).
    expect(created.res.body).toContain(token);
    const rotated = await h.manage('POST', `/${id}/rotate`);
    const fresh = rotated.json() as { webhook_token: string; webhook_url: string; secret: string };
    expect(fresh.webhook_token).toMatch(FLOW_TOKEN);
    const q = `secret=${encodeURIComponent(fresh.secret)}`;
    const hook = h.hook.bind(h);
    // The old pair: refused.
    expect((await hook(token, { ...go(), secret }, { symbol: 'SBIN' })).statusCode).toBe(404);
    expect((await hook(fresh.webhook_token, { ...go(), secret }, { symbol: 'SBIN' })).statusCode).toBe(403);
    // Accepted with the secret in the body, the URL echoed in the body as some senders do.
    const accepted = await hook(
      fresh.webhook_token,
      { ...go(), secret: fresh.secret, webhook_url: fresh.webhook_url, note: `from ${url}` },
      { symbol: 'SBIN' },
    );
    expect(answer(accepted)).toMatchObject({ result: 'ok' });
    for (const s of [fresh.webhook_token, fresh.secret, token, secret])
      expect(accepted.body).not.toContain(s);
    // Accepted with the secret in the query.
    expect(
      answer(await hook(fresh.webhook_token, go({ qty: 2 }), { symbol: 'INFY', query: q })),
    ).toMatchObject({
      result: 'ok',
    });
    // Refused after the secret: payload, dedupe; a failed run.
    expect((await hook(fresh.webhook_token, '{"x":', { symbol: 'SBIN', query: q })).statusCode).toBe(400);
    expect(
      answer(await hook(fresh.webhook_token, go({ qty: 2 }), { symbol: 'INFY', query: q })),
    ).toMatchObject({
      result: 'rejected_dedupe',
    });
    expect(
      answer(await hook(fresh.webhook_token, go({ qty: 'x' }), { symbol: 'SBIN', query: q })),
    ).toMatchObject({
      result: 'failed',
    });
    // Over the size, and a malformed path carrying the token and the secret.
    expect((await hook(fresh.webhook_token, 'x'.repeat(20_000), { query: q })).statusCode).toBe(413);
    const extra = await h.t.app.inject({
      method: 'POST',
      url: `/flow/webhook/${fresh.webhook_token}/SBIN/x?${q}`,
      payload: {},
    });
    expect(extra.statusCode).toBe(404);
    let limited = 0;
    for (let i = 0; i < 12 && limited === 0; i++) {
      const res = await hook(fresh.webhook_token, go({ n: i }), { symbol: 'SBIN', query: q });
      if (res.statusCode === 429) limited++;
    }
    expect(limited).toBe(1);
    await h.t.services.observability.traffic.flush();
    await h.t.services.orders.events.whenIdle();
    const db = h.t.db.database.db;
    const runs = await h.manage('GET', `/${id}/runs?limit=500`);
    expect(runs.statusCode).toBe(200);
    // The accepted body is kept, its secret removed and the echoed URL redacted.
    const stored = (runs.json() as { data: { result: string; payload: Record<string, unknown> }[] }).data
      .filter((r) => r.result === 'ok')
      .at(-1)!.payload;
    expect(stored).toMatchObject({ signal: 'go', action: 'BUY', qty: 1 });
    expect(stored).not.toHaveProperty('secret');
    const traffic = await db.selectFrom('traffic_log').selectAll().execute();
    const hookRows = traffic.filter((r) => String(r.path).startsWith('/flow/webhook'));
    expect(hookRows.length).toBeGreaterThanOrEqual(8);
    const everything = JSON.stringify([
      h.t.logs,
      await h.rows('flows'),
      await h.rows('flow_runs'),
      await h.rows('flow_dedupe'),
      traffic,
      await db.selectFrom('analyzer_logs').selectAll().execute(),
      await db.selectFrom('order_logs').selectAll().execute(),
      runs.body,
      (await h.manage('GET', '')).body,
      (await h.manage('GET', `/${id}`)).body,
      (await h.manage('PUT', `/${id}`, { name: 'renamed' })).body,
    ]);
    for (const s of [
      token,
      fresh.webhook_token,
      token.slice(4),
      fresh.webhook_token.slice(4),
      secret,
      fresh.secret,
    ])
      expect(everything).not.toContain(s);
    // The logs did see the webhook traffic (the token masked), so the check above means something.
    expect(h.t.logs.some((l) => l.includes('/flow/webhook/'))).toBe(true);
  });
});

describeEachDb('flow webhook URLs and the public tunnel', (dialect) => {
  it('the URL is on the tunnel’s public URL; the start-up check sees both flow routes without a warning; a delivery over the socket runs', async () => {
    tunnel = await createTunnelApp({
      env: { TUNNEL_ALLOW: 'true', HOST_SERVER: 'https://desk.example.com' },
      driver: new FakeTunnelDriver(),
      dialect,
    });
    const publicUrl = await tunnel.listen();
    expect(publicUrl).toMatch(/^https:\/\//);
    const app = tunnel as unknown as TestApp;
    await createUser(app);
    const admin = await login(app);
    const res = await tunnel.app.inject({
      method: 'POST',
      url: '/flow/api/flows',
      headers: asBrowser(admin),
      payload: flowOf('check', [
        {
          id: 'is-one',
          type: 'condition',
          when: { kind: 'compare', left: '{{webhook.x}}', op: 'eq', right: 1 },
        },
      ]),
    });
    expect(res.statusCode).toBe(200);
    const created = res.json() as {
      data: { id: number };
      webhook_token: string;
      webhook_url: string;
      secret: string;
    };
    expect(created.webhook_url).toBe(`${publicUrl}/flow/webhook/${created.webhook_token}`);
    const routes = tunnel.services.tunnel.webhookRoutes;
    expect(routes).toContainEqual({ method: 'POST', url: expect.stringMatching(/^\/flow\/webhook\/:\w+$/) });
    expect(routes).toContainEqual({
      method: 'POST',
      url: expect.stringMatching(/^\/flow\/webhook\/:\w+\/:\w+$/),
    });
    expect(routes.filter((r) => r.url === '/flow/webhook' || r.url.endsWith('*'))).toEqual([]);
    expect(warnings(tunnel.logs).filter((w) => w.includes('/flow/webhook'))).toEqual([]);
    const over = await fetch(`${tunnel.base}/flow/webhook/${created.webhook_token}/SBIN`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ x: 1, secret: created.secret }),
    });
    expect(over.status).toBe(200);
    expect(await over.json()).toMatchObject({
      status: 'success',
      result: 'ok',
      nodes: [{ id: 'is-one', status: 'done', result: true }],
    });
  });
});
