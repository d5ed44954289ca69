/**
 * Scanner alerts at their edges (docs/rules/scanner.md): malformed and hostile bodies are an
 * audited 400 rejected_payload (#scanner-payload); a declared size over 16,384 bytes (413) and a
 * rate-limit refusal (429) are answered unread and unaudited (#scanner-limits); every path that is
 * not a live webhook id is the same audited 404 rejected_id, never the 404 ban tracker
 * (#scanner-webhook-id); the deliveries route (#scanner-audit); and the webhook id in no log,
 * audit, traffic row or answer after creation.
 */
import { afterEach, expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import {
  buyScanner,
  chartink,
  startScanner,
  type Delivery,
  type HookAnswer,
  type ScannerHarness,
} from '../helpers/scanner.js';

let h: ScannerHarness;
afterEach(async () => {
  await h?.close();
});

type Row = Record<string, unknown>;
const answer = (res: { json(): unknown }) => res.json() as HookAnswer;
const payloadOf = (d: Delivery): unknown =>
  typeof d.payload === 'string' ? JSON.parse(d.payload) : d.payload;

describeEachDb('scanner webhook: malformed and hostile bodies', (dialect) => {
  it('not JSON, not an object, missing or empty stocks, count mismatch, bad prices, bad symbols, bad fields: 400 rejected_payload, each audited', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(buyScanner({ quantity: 1 }));
    const bad: unknown[] = [
      '{"stocks":',
      '{"stocks":"SBIN","trigger_prices":"800"',
      'stocks=SBIN&trigger_prices=800',
      '',
      '[]',
      JSON.stringify([chartink()]),
      '"SBIN"',
      'null',
      '42',
      { trigger_prices: '800' },
      { stocks: 'SBIN' },
      { stocks: '', trigger_prices: '' },
      { stocks: '  ', trigger_prices: '800' },
      { stocks: ['SBIN'], trigger_prices: '800' },
      { stocks: 'SBIN,INFY', trigger_prices: '800' },
      { stocks: 'SBIN', trigger_prices: '800,1500' },
      { stocks: 'SBIN,', trigger_prices: '800,' },
      { stocks: 'SBIN', trigger_prices: '0' },
      { stocks: 'SBIN', trigger_prices: '-800' },
      { stocks: 'SBIN', trigger_prices: 'abc' },
      { stocks: 'SBIN', trigger_prices: 'NaN' },
      { stocks: 'SBIN,INFY', trigger_prices: '800,' },
      { stocks: 'SBIN;DROP TABLE scanners', trigger_prices: '800' },
      { stocks: '<script>alert(1)</script>', trigger_prices: '800' },
      { stocks: "O'NEIL", trigger_prices: '800' },
      { stocks: 'SB IN', trigger_prices: '800' },
      { stocks: 'X'.repeat(65), trigger_prices: '800' },
      { stocks: '../../etc/passwd', trigger_prices: '800' },
      chartink({ scan_name: 42 }),
      chartink({ triggered_at: { at: '10:05' } }),
      chartink({ alert_name: 'a'.repeat(1_001) }),
      '{"stocks":"SB\\u0000IN","trigger_prices":"800"}',
    ];
    for (const body of bad) {
      const label = (typeof body === 'string' ? body : JSON.stringify(body)).slice(0, 80);
      const res = await h.hook(webhookId, body);
      expect(res.statusCode, label).toBe(400);
      const a = answer(res);
      expect(a, label).toMatchObject({ status: 'error', result: 'rejected_payload' });
      expect(a.message, label).toEqual(expect.any(String));
      expect(a.message!.length, label).toBeGreaterThan(0);
      expect(a.results, label).toBeUndefined();
    }
    const audit = await h.deliveries(id, 500);
    expect(audit).toHaveLength(bad.length);
    expect(
      audit.every((d) => d.result === 'rejected_payload' && d.http_status === 400 && d.results === null),
    ).toBe(true);
    expect(await h.orders()).toEqual([]);
    expect(await h.rows('scanner_orders')).toEqual([]);
    // The message names the fault.
    const mismatch = answer(await h.hook(webhookId, { stocks: 'SBIN,INFY', trigger_prices: '800' }));
    expect(mismatch.message).toMatch(/trigger_prices|count|price/i);
    const noStocks = answer(await h.hook(webhookId, { trigger_prices: '800' }));
    expect(noStocks.message).toMatch(/stocks/i);
    // Still a working scanner afterwards.
    expect(
      answer(await h.hook(webhookId, chartink({ stocks: 'SBIN', trigger_prices: '800' }))),
    ).toMatchObject({
      result: 'ok',
    });
  });

  it('hostile but well-formed symbols are unknown symbols; a __proto__ key pollutes nothing', async () => {
    h = await startScanner(dialect);
    const { webhookId } = await h.create(buyScanner({ quantity: 1 }));
    const a = answer(
      await h.hook(webhookId, chartink({ stocks: '__proto__,constructor,SBIN', trigger_prices: '1,2,800' })),
    );
    expect(a).toMatchObject({ status: 'success', result: 'ok' });
    expect(a.results).toMatchObject([
      { symbol: '__PROTO__', status: 'error' },
      { symbol: 'CONSTRUCTOR', status: 'error' },
      { symbol: 'SBIN', status: 'success', quantity: 1 },
    ]);
    const res = await h.hook(
      webhookId,
      '{"__proto__":{"polluted":true,"stocks":"INFY"},"stocks":"RELIANCE","trigger_prices":"2400"}',
    );
    expect([200, 400]).toContain(res.statusCode);
    expect(({} as Row).polluted).toBeUndefined();
    expect(({} as Row).stocks).toBeUndefined();
    // Whatever the answer, INFY was not bought through the prototype.
    expect((await h.orders()).map((o) => o.symbol)).not.toContain('INFY');
  });

  it('a chunked body over 16,384 bytes (no declared length) is refused and places nothing', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(buyScanner({ quantity: 1 }));
    const big = JSON.stringify({ ...chartink(), pad: 'x'.repeat(17_000) });
    const res = await h.t.app.inject({
      method: 'POST',
      url: `/scanner/webhook/${webhookId}`,
      payload: big,
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    expect([400, 413]).toContain(res.statusCode);
    expect(await h.orders()).toEqual([]);
    if (res.statusCode === 400) {
      expect(answer(res)).toMatchObject({ result: 'rejected_payload' });
      expect((await h.deliveries(id)).map((d) => d.result)).toEqual(['rejected_payload']);
    }
  });
});

describeEachDb('scanner webhook: size and rate limits, answered unread and unaudited', (dialect) => {
  it('413 for a declared body over 16,384 bytes: nothing placed, no audit row; 16,384 bytes exactly is read', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(buyScanner({ quantity: 1 }));
    const over = JSON.stringify(chartink({ scan_name: 'x'.repeat(1_000) })).padEnd(16_385, ' ');
    const res = await h.hook(webhookId, over);
    expect(res.statusCode).toBe(413);
    expect(await h.deliveries(id)).toEqual([]);
    expect(await h.orders()).toEqual([]);
    // Exactly at the limit (trailing JSON whitespace): read and handled.
    const exact = JSON.stringify(chartink({ stocks: 'SBIN', trigger_prices: '800' })).padEnd(16_384, ' ');
    expect(Buffer.byteLength(exact)).toBe(16_384);
    const ok = await h.hook(webhookId, exact);
    expect(ok.statusCode).toBe(200);
    expect(answer(ok)).toMatchObject({ result: 'ok' });
    expect((await h.deliveries(id)).map((d) => d.result)).toEqual(['ok']);
  });

  it('429 rate_limited per webhook id and per sender address (WEBHOOK_RATE_LIMIT), never audited', async () => {
    h = await startScanner(dialect, { WEBHOOK_RATE_LIMIT: '2 per minute' });
    const { id, webhookId } = await h.create(buyScanner({ quantity: 1 }));
    const alert = (n: number) => chartink({ stocks: 'SBIN', trigger_prices: '800', triggered_at: `#${n}` });
    expect((await h.hook(webhookId, alert(1))).statusCode).toBe(200);
    expect((await h.hook(webhookId, alert(2))).statusCode).toBe(200);
    const limited = await h.hook(webhookId, alert(3));
    expect(limited.statusCode).toBe(429);
    expect(answer(limited)).toMatchObject({ status: 'error', result: 'rate_limited' });
    expect((await h.deliveries(id)).map((d) => d.result)).toEqual(['ok', 'ok']);
    expect(await h.orders()).toHaveLength(2);
    // Keyed by id: a sender on another address is refused for this id…
    expect((await h.hook(webhookId, alert(4), { ip: '203.0.113.9' })).statusCode).toBe(429);
    // …and by address: that sender may still use another scanner's id, twice.
    const other = await h.create(buyScanner({ name: 'other', quantity: 1 }));
    expect((await h.hook(other.webhookId, alert(5), { ip: '203.0.113.9' })).statusCode).toBe(200);
    expect((await h.hook(other.webhookId, alert(6), { ip: '198.51.100.4' })).statusCode).toBe(200);
    expect((await h.hook(other.webhookId, alert(7), { ip: '198.51.100.5' })).statusCode).toBe(429);
    expect((await h.deliveries(other.id)).map((d) => d.result)).toEqual(['ok', 'ok']);
    // A minute later the id is free again.
    await h.advance(61_000);
    expect((await h.hook(webhookId, alert(8))).statusCode).toBe(200);
  });
});

describeEachDb('scanner webhook: ids and paths', (dialect) => {
  it('unknown, malformed, rotated, deleted, too long, extra segments, none: the same 404 rejected_id, audited without a scanner, never the 404 ban tracker', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(buyScanner({ quantity: 1 }));
    const gone = await h.create(buyScanner({ name: 'gone', quantity: 1 }));
    const rotated = await h.create(buyScanner({ name: 'rotated', quantity: 1 }));
    expect((await h.manage('DELETE', `/${gone.id}`)).statusCode).toBe(200);
    expect((await h.manage('POST', `/${rotated.id}/rotate`)).statusCode).toBe(200);
    const unknown = await h.hook(`scn_${'A'.repeat(43)}`, chartink());
    expect(unknown.statusCode).toBe(404);
    const expected = answer(unknown);
    expect(expected).toMatchObject({ status: 'error', result: 'rejected_id', message: expect.any(String) });
    expect(expected.scanner_id).toBeUndefined();
    const paths = [
      `/scanner/webhook/${gone.webhookId}`,
      `/scanner/webhook/${rotated.webhookId}`,
      '/scanner/webhook/scn_short',
      `/scanner/webhook/whk_${webhookId.slice(4)}`,
      `/scanner/webhook/${webhookId}x`,
      `/scanner/webhook/${encodeURIComponent("scn_'; DROP TABLE scanners; --")}`,
      `/scanner/webhook/${'x'.repeat(300)}`,
      `/scanner/webhook/${webhookId}/extra`,
      `/scanner/webhook/${webhookId}/`,
      '/scanner/webhook/',
      '/scanner/webhook',
    ];
    for (const url of paths) {
      const res = await h.t.app.inject({
        method: 'POST',
        url,
        payload: JSON.stringify(chartink()),
        headers: { 'content-type': 'application/json' },
        remoteAddress: '203.0.113.50',
      });
      expect(res.statusCode, url).toBe(404);
      expect(answer(res), url).toEqual(expected);
    }
    const audit = await h.rows('scanner_deliveries');
    expect(audit).toHaveLength(paths.length + 1);
    expect(audit.every((d) => d.result === 'rejected_id' && d.scanner_id === null)).toBe(true);
    expect(audit.every((d) => Number(d.http_status) === 404)).toBe(true);
    // Never the 404 ban tracker's business; nothing placed; the live id still works.
    await h.t.services.security.trackers.flush();
    expect(await h.t.db.database.db.selectFrom('error_404_tracker').selectAll().execute()).toEqual([]);
    expect(await h.orders()).toEqual([]);
    expect(answer(await h.hook(webhookId, chartink()))).toMatchObject({ result: 'ok', scanner_id: id });
  });
});

describeEachDb('scanner deliveries route', (dialect) => {
  it('newest first, exactly the documented fields, the limit honoured, the payload kept (redacted)', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(buyScanner({ quantity: 1, max_symbols: 2 }));
    await h.hook(webhookId, chartink());
    await h.advance(1_000);
    await h.hook(webhookId, chartink());
    await h.advance(1_000);
    await h.hook(webhookId, '{"stocks":');
    const all = await h.deliveries(id);
    expect(all.map((d) => d.result)).toEqual(['rejected_payload', 'rejected_dedupe', 'ok']);
    for (const d of all)
      expect(Object.keys(d).sort()).toEqual(
        [
          'action',
          'duration_ms',
          'http_status',
          'id',
          'ip',
          'message',
          'payload',
          'results',
          'result',
          'ts',
        ].sort(),
      );
    const ok = all[2]!;
    expect(ok).toMatchObject({ http_status: 200, action: 'BUY', ip: expect.any(String) });
    expect(ok.results).toMatchObject([
      { symbol: 'SBIN', status: 'success', quantity: 1 },
      { symbol: 'RELIANCE', status: 'success', quantity: 1 },
      { symbol: 'INFY', status: 'skipped' },
    ]);
    expect(payloadOf(ok)).toMatchObject({ stocks: 'SBIN,RELIANCE,INFY', trigger_prices: '800,2400.5,1500' });
    expect(all[0]).toMatchObject({ http_status: 400, results: null });
    expect(all[0]!.id).toBeGreaterThan(all[1]!.id);
    expect(all[1]!.id).toBeGreaterThan(all[2]!.id);
    expect((await h.deliveries(id, 1)).map((d) => d.result)).toEqual(['rejected_payload']);
    expect((await h.deliveries(id, 2)).map((d) => d.id)).toEqual([all[0]!.id, all[1]!.id]);
    for (const limit of ['0', '501', 'abc', '-1']) {
      const res = await h.manage('GET', `/${id}/deliveries?limit=${limit}`);
      expect(res.statusCode, limit).toBe(400);
    }
  });
});

describeEachDb('the webhook id stays secret', (dialect) => {
  it('never in a log, audit row, traffic row, deliveries answer or view — on the accepted and the refusal paths', async () => {
    h = await startScanner(dialect, { WEBHOOK_RATE_LIMIT: '6 per minute' });
    const { id, webhookId, url } = await h.create(buyScanner({ quantity: 1 }));
    const rotated = await h.manage('POST', `/${id}/rotate`);
    const fresh = (rotated.json() as { webhook_id: string; webhook_url: string }).webhook_id;
    const freshUrl = (rotated.json() as { webhook_id: string; webhook_url: string }).webhook_url;
    expect((await h.hook(webhookId, chartink())).statusCode).toBe(404);
    // Chartink sends the webhook URL back in the body: the audit keeps the payload, redacted.
    const accepted = await h.hook(fresh, chartink({ webhook_url: freshUrl, alert_name: `from ${url}` }));
    expect(answer(accepted)).toMatchObject({ result: 'ok' });
    expect(accepted.body).not.toContain(fresh.slice(4));
    expect((await h.hook(fresh, '{"stocks":')).statusCode).toBe(400);
    expect((await h.hook(fresh, 'x'.repeat(20_000))).statusCode).toBe(413);
    const extra = await h.t.app.inject({ method: 'POST', url: `/scanner/webhook/${fresh}/x`, payload: {} });
    expect(extra.statusCode).toBe(404);
    let limited = 0;
    for (let i = 0; i < 8 && limited === 0; i++) {
      const res = await h.hook(
        fresh,
        chartink({ stocks: 'SBIN', trigger_prices: '800', triggered_at: `#${i}` }),
      );
      if (res.statusCode === 429) limited++;
    }
    expect(limited).toBe(1);
    await h.t.services.observability.traffic.flush();
    await h.t.services.orders.events.whenIdle();
    const db = h.t.db.database.db;
    const deliveries = await h.manage('GET', `/${id}/deliveries`);
    // Newest first: the first accepted alert (the one carrying the URLs) is the last `ok`.
    const stored = (deliveries.json() as { data: Delivery[] }).data.filter((d) => d.result === 'ok').at(-1);
    expect(payloadOf(stored!)).toMatchObject({
      stocks: 'SBIN,RELIANCE,INFY',
      scan_name: 'Breakout',
      webhook_url: expect.stringContaining('[redacted]'),
    });
    const traffic = await db.selectFrom('traffic_log').selectAll().execute();
    const hookRows = traffic.filter((r) => String(r.path).startsWith('/scanner/webhook'));
    expect(hookRows.length).toBeGreaterThanOrEqual(5);
    const everything = JSON.stringify([
      h.t.logs,
      await h.rows('scanners'),
      await h.rows('scanner_deliveries'),
      await h.rows('scanner_orders'),
      traffic,
      await db.selectFrom('analyzer_logs').selectAll().execute(),
      await db.selectFrom('order_logs').selectAll().execute(),
      deliveries.body,
      (await h.manage('GET', '')).body,
      (await h.manage('GET', `/${id}`)).body,
    ]);
    for (const secret of [webhookId, fresh, webhookId.slice(4), fresh.slice(4)])
      expect(everything).not.toContain(secret);
    // The logs did see the webhook traffic (with the id masked), so the check above means something.
    expect(h.t.logs.some((l) => l.includes('/scanner/webhook/'))).toBe(true);
  });
});
