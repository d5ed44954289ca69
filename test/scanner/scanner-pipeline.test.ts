/**
 * Scanner alerts: a scanner's orders go through the placeorder pipeline
 * (docs/rules/scanner.md#scanner-action, #scanner-delivery): a refused order is that symbol's
 * error with the pipeline's message and the others are still placed; the pipeline's order events
 * are written; an unexpected failure is an audited 500 rejected_engine_error that leaks nothing;
 * an audit or order record that cannot be written is logged and does not change the answer
 * (#scanner-audit); the sender's address is audited.
 */
import { afterEach, expect, it } from 'vitest';
import type { ScannerRepository } from '../../src/modules/scanner/scanner.repository.js';
import type { WebhooksRepository } from '../../src/modules/webhooks/webhooks.repository.js';
import { describeEachDb } from '../helpers/test-app.js';
import {
  buyScanner,
  chartink,
  startScanner,
  type HookAnswer,
  type ScannerHarness,
} from '../helpers/scanner.js';

let h: ScannerHarness;
afterEach(async () => {
  await h?.close();
});

const answer = (res: { json(): unknown }) => res.json() as HookAnswer;
/** The repository the webhook writes through (shared with the square-off). */
const repo = () => (h.scanner().webhook as unknown as { deps: { repo: ScannerRepository } }).deps.repo;
/** The deliveries' audit and de-duplication claims (the webhooks module's repository). */
const audit = () =>
  (h.scanner().webhook as unknown as { deps: { webhooks: WebhooksRepository } }).deps.webhooks;
/** Log records at warn level or above. */
const problems = () => h.t.logs.filter((l) => (JSON.parse(l) as { level: number }).level >= 40);

describeEachDb('scanner orders through the placeorder pipeline', (dialect) => {
  it('a refused order is that symbol’s error with the pipeline’s message; the others are placed; each order is an order event', async () => {
    h = await startScanner(dialect);
    // 20,000 SBIN on delivery (≈ ₹1.6 crore) is more than the sandbox's funds; INFY is overridden small.
    const { id, webhookId } = await h.create(
      buyScanner({ product: 'CNC', quantity: 20_000, overrides: { INFY: 2 } }),
    );
    const a = answer(await h.hook(webhookId, chartink({ stocks: 'SBIN,INFY', trigger_prices: '800,1500' })));
    expect(a).toMatchObject({ status: 'success', result: 'ok', scanner_id: id });
    expect(a.results).toMatchObject([
      { symbol: 'SBIN', status: 'error', message: expect.stringMatching(/^Insufficient funds/) },
      { symbol: 'INFY', status: 'success', quantity: 2 },
    ]);
    expect(await h.position('INFY', 'CNC')).toBe(2);
    expect((await h.rows('scanner_orders')).map((r) => r.symbol)).toEqual(['INFY']);
    // The pipeline wrote its analyzer log: INFY placed, SBIN refused.
    await h.t.services.orders.events.whenIdle();
    const logs = await h.t.db.database.db.selectFrom('analyzer_logs').selectAll().orderBy('id').execute();
    expect(logs.find((l) => l.event === 'order.placed')).toMatchObject({
      order_id: a.results![1]!.orderid,
    });
    expect(logs).toHaveLength(2);
    expect(logs.map((l) => JSON.parse(l.request) as Record<string, unknown>)).toMatchObject([
      { symbol: 'SBIN', action: 'BUY', product: 'CNC', pricetype: 'MARKET' },
      { symbol: 'INFY', action: 'BUY', product: 'CNC', pricetype: 'MARKET' },
    ]);
  });

  it('an unexpected failure is 500 rejected_engine_error, audited, with no internals in the answer', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(buyScanner({ quantity: 1 }));
    const r = audit();
    const claim = r.claim.bind(r);
    r.claim = () => Promise.reject(new Error('database on fire'));
    const res = await h.hook(webhookId, chartink());
    r.claim = claim;
    expect(res.statusCode).toBe(500);
    expect(answer(res)).toMatchObject({ status: 'error', result: 'rejected_engine_error' });
    expect(res.body).not.toContain('database on fire');
    expect(await h.orders()).toEqual([]);
    expect((await h.deliveries(id)).map((d) => [d.result, d.http_status])).toEqual([
      ['rejected_engine_error', 500],
    ]);
    expect(problems().length).toBeGreaterThan(0);
  });

  it('an audit row that cannot be written is logged and changes nothing: the orders are placed and answered', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(buyScanner({ quantity: 3 }));
    const r = audit();
    const insert = r.openDelivery.bind(r);
    const complete = r.completeDelivery.bind(r);
    r.openDelivery = () => Promise.reject(new Error('disk full'));
    r.completeDelivery = () => Promise.reject(new Error('disk full'));
    const before = problems().length;
    const res = await h.hook(webhookId, chartink());
    r.openDelivery = insert;
    r.completeDelivery = complete;
    expect(res.statusCode).toBe(200);
    expect(answer(res)).toMatchObject({ status: 'success', result: 'ok', scanner_id: id });
    expect(answer(res).results!.map((x) => x.status)).toEqual(['success', 'success', 'success']);
    expect(await h.orders()).toHaveLength(3);
    expect(problems().length).toBeGreaterThan(before);
    // A refusal with its audit row lost is answered as usual too.
    r.openDelivery = () => Promise.reject(new Error('disk full'));
    r.completeDelivery = () => Promise.reject(new Error('disk full'));
    const bad = await h.hook(webhookId, '{"stocks":');
    r.openDelivery = insert;
    r.completeDelivery = complete;
    expect(bad.statusCode).toBe(400);
    expect(answer(bad)).toMatchObject({ result: 'rejected_payload' });
  });

  it('an order placed but not recorded is still answered as placed, and logged', async () => {
    h = await startScanner(dialect);
    const { webhookId } = await h.create(buyScanner({ quantity: 1 }));
    const r = repo();
    const insertOrder = r.insertOrder.bind(r);
    r.insertOrder = () => Promise.reject(new Error('disk full'));
    const before = problems().length;
    const a = answer(await h.hook(webhookId, chartink({ stocks: 'SBIN', trigger_prices: '800' })));
    r.insertOrder = insertOrder;
    expect(a).toMatchObject({ result: 'ok', results: [{ symbol: 'SBIN', status: 'success', quantity: 1 }] });
    expect(await h.position('SBIN')).toBe(1);
    expect(problems().length).toBeGreaterThan(before);
  });

  it('the audit keeps the sender’s address and a duration', async () => {
    h = await startScanner(dialect);
    const { id, webhookId } = await h.create(buyScanner({ quantity: 1 }));
    await h.hook(webhookId, chartink({ stocks: 'SBIN', trigger_prices: '800' }), { ip: '52.89.214.238' });
    await h.hook(webhookId, '[]', { ip: '2001:db8::7' });
    const audit = await h.deliveries(id);
    expect(audit.map((d) => d.ip)).toEqual(['2001:db8::7', '52.89.214.238']);
    expect(audit.every((d) => typeof d.duration_ms === 'number' && d.duration_ms >= 0)).toBe(true);
    expect(audit.every((d) => typeof d.ts === 'number' && d.ts === h.t.clock.now())).toBe(true);
  });
});
