/**
 * Issue 7 part 4: `POST /strategy/webhook/<token>` — the rows of the spec's result-code table,
 * in the pipeline's order, with the audit rule (every terminal result admitted to the validation
 * pipeline is audited; the declared-size and rate-limit refusals are not). The windows behind
 * rejected_dedupe (60 s) and rejected_cooling_off (30 s) are tested on the webhook service:
 * strategies-pipeline.service.test.ts.
 */
import { afterEach, expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';
import { BATCH_PAIR, SIGNAL_SBIN, startStrategies, type StrategyHarness } from '../helpers/strategies.js';

let h: StrategyHarness;
afterEach(async () => {
  await h?.close();
});

const body = (res: { json(): unknown }) => res.json() as Record<string, unknown>;

describeEachDb('strategy webhook: result codes', (dialect) => {
  it('rejected_token: malformed, unknown and rotated tokens get the same 404 body, audited without a strategy', async () => {
    h = await startStrategies(dialect);
    const { id, token } = await h.create(SIGNAL_SBIN);
    const rotated = await h.manage('POST', `/${id}/rotate-token`);
    const fresh = (rotated.json() as { data: { webhook_token: string } }).data.webhook_token;
    const answers = [];
    for (const t of ['short', `whk_${'A'.repeat(43)}`, token, "whk_'; DROP TABLE strategies; --"]) {
      const res = await h.hook(encodeURIComponent(t), { action: 'long_entry' });
      expect(res.statusCode).toBe(404);
      answers.push(body(res));
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]).toEqual({ status: 'error', result: 'rejected_token', message: 'Unknown webhook URL' });
    expect((await h.hook(fresh, { action: 'long_exit' })).statusCode).toBe(200);
    const audit = await h.rows('webhook_deliveries');
    expect(audit.filter((d) => d.result === 'rejected_token').map((d) => d.strategy_id)).toEqual([
      null,
      null,
      null,
      null,
    ]);
    // Never the 404 ban tracker's business.
    await h.t.services.security.trackers.flush();
    expect(await h.t.db.database.db.selectFrom('error_404_tracker').selectAll().execute()).toEqual([]);
  });

  it('rejected_locked (403), then ok once unlocked', async () => {
    h = await startStrategies(dialect);
    const { id, token } = await h.create(SIGNAL_SBIN);
    await h.manage('POST', `/${id}/lock`, { locked: true });
    const res = await h.hook(token, { action: 'long_entry' });
    expect(res.statusCode).toBe(403);
    expect(body(res)).toMatchObject({ status: 'error', result: 'rejected_locked', strategy_id: id });
    await h.manage('POST', `/${id}/lock`, { locked: false });
    expect(body(await h.hook(token, { action: 'long_entry' }))).toMatchObject({ result: 'ok' });
  });

  it('rejected_ip (403) outside the allowlist; bare addresses count as /32 and /128', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create({
      ...SIGNAL_SBIN,
      ip_allowlist: ['52.89.214.238', '10.0.0.0/8', '2001:db8::1'],
    });
    expect(body(await h.hook(token, { action: 'long_entry' }, { ip: '52.89.214.239' }))).toMatchObject({
      result: 'rejected_ip',
    });
    expect((await h.hook(token, { action: 'long_entry' }, { ip: '8.8.8.8' })).statusCode).toBe(403);
    expect(body(await h.hook(token, { action: 'long_entry' }, { ip: '52.89.214.238' }))).toMatchObject({
      result: 'ok',
    });
    expect(body(await h.hook(token, { action: 'long_exit' }, { ip: '10.1.2.3' }))).toMatchObject({
      result: 'ok',
    });
    expect(body(await h.hook(token, { action: 'long_exit' }, { ip: '2001:db8::1' }))).toMatchObject({
      result: 'ok',
    });
  });

  it('rejected_payload (400): not JSON, not an object, over 16,384 bytes — each audited', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create(SIGNAL_SBIN);
    for (const payload of ['{"action":', '[]', '"long_entry"', 'null', '']) {
      const res = await h.hook(token, payload);
      expect(res.statusCode, payload).toBe(400);
      expect(body(res), payload).toMatchObject({ status: 'error', result: 'rejected_payload' });
    }
    // Over the size without a declared length (chunked): refused by the pipeline, audited.
    const big = JSON.stringify({ action: 'long_entry', pad: 'x'.repeat(17_000) });
    const chunked = await h.t.app.inject({
      method: 'POST',
      url: `/strategy/webhook/${token}`,
      payload: big,
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    expect([400, 413]).toContain(chunked.statusCode);
    const audit = await h.rows('webhook_deliveries');
    expect(audit.filter((d) => d.result === 'rejected_payload').length).toBeGreaterThanOrEqual(5);
  });

  it('413 without a result for a declared body over 16,384 bytes, and 429 rate_limited: neither audited', async () => {
    h = await startStrategies(dialect, { WEBHOOK_RATE_LIMIT: '2 per minute' });
    const { token } = await h.create(SIGNAL_SBIN);
    const big = await h.hook(token, JSON.stringify({ action: 'long_entry', pad: 'x'.repeat(16_400) }));
    expect(big.statusCode).toBe(413);
    expect(body(big).result).toBeUndefined();
    expect((await h.hook(token, { action: 'long_entry' })).statusCode).toBe(200);
    expect((await h.hook(token, { action: 'long_exit' })).statusCode).toBe(200);
    const limited = await h.hook(token, { action: 'long_entry' });
    expect(limited.statusCode).toBe(429);
    expect(body(limited)).toMatchObject({ status: 'error', result: 'rate_limited' });
    expect(limited.headers['retry-after']).toBeDefined();
    expect((await h.rows('webhook_deliveries')).map((d) => d.result)).toEqual(['ok', 'ok']);
    // Keyed by token as well: a sender on another address is refused for this token…
    expect((await h.hook(token, { action: 'long_exit' }, { ip: '203.0.113.9' })).statusCode).toBe(429);
    // …and by address: that sender is still free to use another strategy's token.
    const other = await h.create({ ...SIGNAL_SBIN, name: 'other' });
    expect((await h.hook(other.token, { action: 'long_exit' }, { ip: '203.0.113.9' })).statusCode).toBe(200);
    expect((await h.hook(other.token, { action: 'long_exit' })).statusCode).toBe(429);
  });

  it('takes TradingView’s text/plain bodies and bodies with no content type like JSON ones', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create(SIGNAL_SBIN);
    for (const type of ['text/plain; charset=utf-8', undefined]) {
      const res = await h.t.app.inject({
        method: 'POST',
        url: `/strategy/webhook/${token}`,
        payload: JSON.stringify({ action: 'long_exit' }),
        headers: type ? { 'content-type': type } : {},
      });
      expect(res.statusCode, String(type)).toBe(200);
      expect(body(res)).toMatchObject({ result: 'ok' });
    }
  });

  it('rejected_invalid_action (400): vocabularies per kind, batch start without mode, bad mode', async () => {
    h = await startStrategies(dialect);
    const signal = await h.create(SIGNAL_SBIN);
    const batch = await h.create(BATCH_PAIR);
    const cases: [string, unknown][] = [
      [signal.token, { action: 'start', mode: 'sandbox' }],
      [signal.token, { action: 'buy' }],
      [signal.token, {}],
      [signal.token, { action: 42 }],
      [batch.token, { action: 'long_entry' }],
      [batch.token, { action: 'start' }],
      [batch.token, { action: 'start', mode: 'paper' }],
      [signal.token, { action: 'long_entry', leg_id: -1 }],
      [signal.token, { action: 'long_entry', symbol: 'SBIN' }],
      [signal.token, { action: 'long_entry', symbol: 'TCS', exchange: 'NSE' }],
    ];
    for (const [token, payload] of cases) {
      const res = await h.hook(token, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(body(res).result, JSON.stringify(payload)).toBe('rejected_invalid_action');
    }
    // Trimmed and lower-cased before validation (rule 2).
    expect(body(await h.hook(batch.token, { action: '  START ', mode: ' SandBox' }))).toMatchObject({
      result: 'ok',
    });
  });

  it('rejected_live_disabled (403) until live batch start is enabled', async () => {
    h = await startStrategies(dialect);
    const { id, token } = await h.create(BATCH_PAIR);
    const res = await h.hook(token, { action: 'start', mode: 'live' });
    expect(res.statusCode).toBe(403);
    expect(body(res)).toMatchObject({ result: 'rejected_live_disabled' });
    await h.manage('POST', `/${id}/live`, { enabled: true });
    // Enabled: accepted (the live broker is not logged in, so the entries are refused, not the start).
    const live = await h.hook(token, { action: 'start', mode: 'live' });
    expect(body(live)).toMatchObject({ result: 'ok', strategy_id: id });
  });

  it('rejected_engine_error (500) when the engine throws, audited', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create(SIGNAL_SBIN);
    const runner = h.t.services.strategies.runner;
    const original = runner.claim.bind(runner);
    runner.claim = () => Promise.reject(new Error('database on fire'));
    const res = await h.hook(token, { action: 'long_entry' });
    runner.claim = original;
    expect(res.statusCode).toBe(500);
    expect(body(res)).toMatchObject({ status: 'error', result: 'rejected_engine_error' });
    expect(res.body).not.toContain('database on fire');
    expect((await h.rows('webhook_deliveries')).at(-1)).toMatchObject({
      result: 'rejected_engine_error',
      http_status: 500,
    });
  });

  it('audits extra fields with credential-looking ones redacted; the token appears in no log, audit or traffic row', async () => {
    h = await startStrategies(dialect);
    const { token } = await h.create(SIGNAL_SBIN);
    await h.hook(token, {
      action: 'long_entry',
      apikey: 'sekrit-api-key',
      passphrase: 'p4ss',
      nested: { auth_token: 'tok-123' },
      note: 'tv alert',
    });
    const [audit] = await h.rows('webhook_deliveries');
    const payload = JSON.parse(String(audit!.payload)) as Record<string, unknown>;
    expect(payload).toMatchObject({
      action: 'long_entry',
      apikey: '[redacted]',
      passphrase: '[redacted]',
      nested: { auth_token: '[redacted]' },
      note: 'tv alert',
    });
    await h.t.services.observability.traffic.flush();
    const everything = JSON.stringify([
      h.t.logs,
      await h.rows('webhook_deliveries'),
      await h.rows('strategy_events'),
      await h.t.db.database.db.selectFrom('traffic_log').selectAll().execute(),
    ]);
    for (const secret of [token, token.slice(4), 'sekrit-api-key', 'p4ss', 'tok-123'])
      expect(everything).not.toContain(secret);
    expect(everything).toContain('/strategy/webhook/[redacted]');
  });
});
