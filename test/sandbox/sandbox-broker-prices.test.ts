/**
 * Issue 5, "Price source (a)": the sandbox priced by the connected broker's quote API (Kite
 * Connect v3 on loopback), and "No code path in analyzer mode can reach a live broker adapter's
 * order call": with a broker session in place, the only requests the broker receives from the
 * sandbox are quote reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZerodhaQuoteClient } from '../../src/modules/brokers/quotes/zerodha-quotes.js';
import { BrokerPriceSource } from '../../src/modules/sandbox/prices/broker-price-source.js';
import { describeEachDb } from '../helpers/test-app.js';
import { kiteQuote, startKiteQuoteStub, type KiteQuoteStub } from '../helpers/broker-quote-stubs.js';
import { MINI, startSandbox, type SandboxHarness } from '../helpers/sandbox.js';

const CREDS = { apiKey: 'kite-key-sandbox', accessToken: 'kite-token-sandbox-secret' };
/** Kite stamps quotes in IST wall-clock time without a zone. */
const kiteTime = (epochMs: number) =>
  new Date(epochMs + 330 * 60_000).toISOString().slice(0, 19).replace('T', ' ');

describeEachDb('sandbox priced by the broker quote API', (dialect) => {
  let h: SandboxHarness;
  let stub: KiteQuoteStub;
  let source: BrokerPriceSource;
  let client: ZerodhaQuoteClient;
  const sbin = (ltp: number, bid: number, ask: number) =>
    kiteQuote({
      instrumentToken: 779521,
      lastPrice: ltp,
      ohlc: { open: 800, high: 812, low: 785, close: 801 },
      bids: [[bid, 100, 3]],
      asks: [[ask, 80, 2]],
      timestamp: kiteTime(h.t.clock.now()),
    });

  beforeAll(async () => {
    stub = await startKiteQuoteStub(CREDS);
    h = await startSandbox(dialect);
    h.t.clock.set(Date.parse('2026-01-05T10:00:00+05:30'));
    client = new ZerodhaQuoteClient({ baseUrl: stub.url, ...CREDS, clock: h.t.clock });
    source = new BrokerPriceSource({
      client: () => client,
      pollMs: 60_000,
      freshMs: 5_000,
      clock: h.t.clock,
      logger: h.t.services.sandbox.engine['deps'].logger,
    });
    await h.t.services.sandbox.usePriceSource(source);
  });
  afterAll(async () => {
    await h?.close();
    await client?.close();
    await stub?.close();
  });

  describe('placement asks the broker for a quote when none is fresh', () => {
    it('a MARKET buy fills at the broker’s best ask', async () => {
      stub.quotes.set('NSE:SBIN', sbin(800, 799.95, 800.05));
      const r = await h.place({ ...MINI.SBIN, side: 'BUY', quantity: 10 });
      expect(r.ok).toBe(true);
      expect(r.order.status).toBe('complete');
      expect(r.order.averagePrice).toBe(8_000_500);
      expect(decodeURIComponent(stub.requests.at(-1)?.url ?? '')).toBe('/quote?i=NSE:SBIN');
      expect(stub.requests.at(-1)?.authOk).toBe(true);
    });
  });

  describe('each poll asks for every watched instrument in one call and matches on it', () => {
    it('a resting LIMIT fills when a poll brings a marketable ask', async () => {
      const r = await h.place({ ...MINI.SBIN, side: 'BUY', quantity: 10, priceType: 'LIMIT', price: 790 });
      expect(r.order.status).toBe('open');
      await h.t.services.sandbox.engine.whenIdle();
      stub.quotes.set('NSE:SBIN', sbin(789, 788.9, 789.5));
      await source.poll();
      await h.t.services.sandbox.engine.whenIdle();
      const o = await h.t.services.sandbox.service.order(1, Number(r.order.orderId));
      expect(o.status).toBe('complete');
      expect(o.averagePrice).toBe(7_895_000);
    });
  });

  describe('a failing quote API fills nothing and never logs the credential', () => {
    it('a refused token leaves the order resting; the next good poll fills it', async () => {
      const r = await h.place({ ...MINI.SBIN, side: 'SELL', quantity: 5, priceType: 'LIMIT', price: 795 });
      expect(r.order.status).toBe('open');
      await h.t.services.sandbox.engine.whenIdle();
      stub.credentials = { ...CREDS, accessToken: 'a-new-session' };
      stub.quotes.set('NSE:SBIN', sbin(796, 795.5, 796.1));
      h.t.clock.advance(10_000);
      await source.poll();
      await h.t.services.sandbox.engine.whenIdle();
      expect((await h.t.services.sandbox.service.order(1, Number(r.order.orderId))).status).toBe('open');
      expect(h.t.logs.some((l) => l.includes('broker quotes failed'))).toBe(true);
      stub.credentials = CREDS;
      await source.poll();
      await h.t.services.sandbox.engine.whenIdle();
      expect((await h.t.services.sandbox.service.order(1, Number(r.order.orderId))).status).toBe('complete');
      for (const line of h.t.logs) expect(line).not.toContain(CREDS.accessToken);
    });
  });

  describe('analyzer mode never reaches the broker’s order API', () => {
    it('after placing, modifying, cancelling and closing, the broker saw only quote reads', async () => {
      const r = await h.place({ ...MINI.SBIN, side: 'BUY', quantity: 1, priceType: 'LIMIT', price: 700 });
      await h.ok('modifyorder', {
        orderid: r.order.orderId,
        symbol: 'SBIN',
        exchange: 'NSE',
        action: 'BUY',
        product: 'MIS',
        pricetype: 'LIMIT',
        price: 701,
        quantity: 2,
      });
      await h.ok('cancelorder', { orderid: r.order.orderId });
      await h.ok('closeposition', {});
      await h.ok('cancelallorder', {});
      expect(stub.requests.length).toBeGreaterThan(0);
      for (const req of stub.requests) expect(`${req.method} ${req.path}`).toBe('GET /quote');
    });
  });
});
