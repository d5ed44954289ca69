/**
 * The simulated price source through the real app (docs/rules/sandbox.md#simulated-prices): on a
 * fresh install with no broker configured and the default configuration, a paper MARKET order
 * placed through `POST /api/v1/placeorder` in analyzer mode fills at a simulated price once the
 * instrument has a reference price: the price its instrument file states (Upstox's does), else
 * the first LIMIT price placed on it; before that it is refused saying how to give one. In live
 * mode the same configuration sends the order to the broker and the sandbox prices nothing.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { effectivePriceSource } from '../../src/config-sandbox.js';
import { SimulatedPriceSource } from '../../src/modules/sandbox/prices/simulated-price-source.js';
import { startKiteOrderStub, type KiteOrderStub } from '../helpers/broker-order-stubs.js';
import { importContract } from '../helpers/contracts.js';
import { upstoxContract } from '../helpers/orders-app.js';
import { ist, miniKiteContract } from '../helpers/sandbox.js';
import { appWithAdmin, asBrowser, describeEachDb, type Browser, type TestApp } from '../helpers/test-app.js';

const order = (extra: Record<string, unknown> = {}) => ({
  strategy: 'first-trade',
  symbol: 'SBIN',
  exchange: 'NSE',
  action: 'BUY',
  quantity: 2,
  pricetype: 'MARKET',
  product: 'MIS',
  ...extra,
});
const FILL_LINE = 'sandbox fill at a simulated price (demo prices, not market data)';
/** SBIN's real row in the Upstox fixture: `last_price` 1064.2, tick ₹0.10. */
const UPSTOX_SBIN = 'NSE_EQ|INE062A01020';
/** ₹1064.20 in money units, and SBIN's ₹0.10 tick on Upstox. */
const SBIN_FILE_PRICE = 10_642_000;
const SBIN_UPSTOX_TICK = 1_000;

describeEachDb('simulated prices on a fresh install with no broker', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  let stub: KiteOrderStub | undefined;
  afterEach(async () => {
    await t?.close();
    await stub?.close();
    stub = undefined;
  });

  /**
   * The real app, default configuration plus `env`, a contract (the Kite mini contract, whose file
   * states no prices, unless another is given), an API key, the clock at 10:00 IST.
   */
  async function start(
    env: Record<string, string> = {},
    contract: { broker: string; bytes: Buffer } = { broker: 'zerodha', bytes: miniKiteContract() },
  ) {
    ({ t, admin } = await appWithAdmin(dialect, {
      env: {
        API_RATE_LIMIT: '100000 per second',
        ORDER_RATE_LIMIT: '100000 per second',
        // The product's default, not the test helpers' quiet one (empty is unset).
        SANDBOX_PRICE_SOURCE: '',
        ...env,
      },
    }));
    await importContract(t, contract.broker, contract.bytes);
    const apikey = (await t.services.auth.apiKeys.regenerate(1)).apikey;
    t.clock.set(ist('2026-01-05', '10:00'));
    const place = (body: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: '/api/v1/placeorder', payload: { apikey, ...body } });
    const setMode = async (analyze: boolean) => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/settings/analyze-mode/${analyze ? 1 : 0}`,
        headers: asBrowser(admin),
      });
      expect(res.statusCode).toBe(200);
    };
    return { place, setMode };
  }
  const fillLines = () => t.logs.filter((l) => l.includes(FILL_LINE));

  it('the default is the simulated source: a MARKET order is refused until a LIMIT gives SBIN a reference, then fills at a simulated price', async () => {
    const { place, setMode } = await start();
    expect(t.config.sandbox.priceSource).toBe('auto');
    expect(effectivePriceSource(t.config)).toBe('simulated');
    expect(t.services.sandbox.prices()).toBeInstanceOf(SimulatedPriceSource);
    await setMode(true);

    const refused = await place(order());
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      mode: 'analyze',
      message: expect.stringMatching(
        /^No price for NSE:SBIN: the simulated price source has no reference price for it yet \(the instrument file states none\)\. Place a LIMIT order for it first/,
      ),
    });

    // A LIMIT: its price becomes SBIN's reference (it rests or fills as the walk goes).
    const limit = await place(order({ pricetype: 'LIMIT', price: '800', quantity: 1 }));
    expect(limit.statusCode).toBe(200);

    const res = await place(order());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'success', orderid: expect.any(String), mode: 'analyze' });
    const filled = await t.services.sandbox.service.order(1, Number(res.json().orderid));
    expect(filled.status).toBe('complete');
    // The ask of the walk at this instant: within 5 % of ₹800, on SBIN's ₹0.05 grid.
    const sbin = (await t.services.market.contracts.get('SBIN', 'NSE'))!;
    const quote = await (t.services.sandbox.prices() as SimulatedPriceSource).quoteAt(sbin, t.clock.now());
    expect(filled.averagePrice).toBe(Math.round(quote!.ask! * 10_000));
    expect(Math.abs(filled.averagePrice - 8_000_000)).toBeLessThanOrEqual(400_000 + 500);
    expect(filled.averagePrice % 500).toBe(0);
    // Nobody mistakes it for a market price: the fill is logged as simulated.
    const orderId = Number(res.json().orderid);
    expect(fillLines().filter((l) => l.includes(`"orderId":${orderId},`))).toHaveLength(1);

    // The engine's next update prices the resting LIMIT's instrument too (watched).
    t.clock.advance(60_000);
    await t.services.sandbox.engine.tick();
    await t.services.sandbox.engine.whenIdle();
    expect(t.services.sandbox.prices().latest('NSE:SBIN')?.timestamp).toBe(t.clock.now());
  });

  /** The walk's quote of SBIN at the clock's time, as the app's simulated source gives it. */
  async function sbinQuote() {
    const sbin = (await t.services.market.contracts.get('SBIN', 'NSE'))!;
    return (await (t.services.sandbox.prices() as SimulatedPriceSource).quoteAt(sbin, t.clock.now()))!;
  }

  /** Within the ±5 % band of the file's ₹1064.20 (one tick more for the spread), on the ₹0.10 grid. */
  function expectNearFilePrice(price: number) {
    const band = Math.floor((SBIN_FILE_PRICE * 5) / 100 / SBIN_UPSTOX_TICK) * SBIN_UPSTOX_TICK;
    expect(Math.abs(price - SBIN_FILE_PRICE)).toBeLessThanOrEqual(band + SBIN_UPSTOX_TICK);
    expect(price % SBIN_UPSTOX_TICK).toBe(0);
  }

  it('an instrument file that states a price (Upstox): the very first paper MARKET order fills near it, with no LIMIT before it', async () => {
    const { place, setMode } = await start({}, { broker: 'upstox', bytes: upstoxContract([UPSTOX_SBIN]) });
    expect(effectivePriceSource(t.config)).toBe('simulated');
    expect(await t.services.market.contracts.referencePrice('SBIN', 'NSE')).toBe(1064.2);
    await setMode(true);

    const res = await place(order());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'success', orderid: expect.any(String), mode: 'analyze' });
    const orders = await t.services.sandbox.service.repo.ordersOf(1);
    expect(orders.map((o) => [o.price_type, o.status])).toEqual([['MARKET', 'complete']]);
    const filled = await t.services.sandbox.service.order(1, Number(res.json().orderid));
    expect(filled.status).toBe('complete');
    // A MARKET buy pays the walk's ask at this instant.
    expect(filled.averagePrice).toBe(Math.round((await sbinQuote()).ask! * 10_000));
    expectNearFilePrice(filled.averagePrice);
    expect(t.logs.some((l) => l.includes('reference price set') && l.includes('"reference":1064.2'))).toBe(
      true,
    );
    expect(fillLines()).toHaveLength(1);

    // A sell a minute later gets the bid of the same walk.
    t.clock.advance(60_000);
    const sell = await place(order({ action: 'SELL' }));
    expect(sell.statusCode).toBe(200);
    const sold = await t.services.sandbox.service.order(1, Number(sell.json().orderid));
    expect(sold.averagePrice).toBe(Math.round((await sbinQuote()).bid! * 10_000));
    expectNearFilePrice(sold.averagePrice);
  });

  it('a file stating no price (Kite’s 0.0) leaves the first LIMIT as the reference until a contract stating one goes live', async () => {
    const { place, setMode } = await start();
    await setMode(true);
    expect((await place(order())).statusCode).toBe(400);
    expect((await place(order({ pricetype: 'LIMIT', price: '800', quantity: 1 }))).statusCode).toBe(200);
    const before = await place(order());
    expect(before.statusCode).toBe(200);
    const nearLimit = await t.services.sandbox.service.order(1, Number(before.json().orderid));
    expect(Math.abs(nearLimit.averagePrice - 8_000_000)).toBeLessThanOrEqual(400_000 + 500);
    // The new contract goes live on the bus: its file's price is the reference from the next quote.
    await importContract(t, 'upstox', upstoxContract([UPSTOX_SBIN]));
    const res = await place(order());
    expect(res.statusCode).toBe(200);
    const filled = await t.services.sandbox.service.order(1, Number(res.json().orderid));
    expect(filled.status).toBe('complete');
    expect(filled.averagePrice).toBe(Math.round((await sbinQuote()).ask! * 10_000));
    expectNearFilePrice(filled.averagePrice);
  });

  it('after a restart the reference is found again from the orders kept', async () => {
    const { place, setMode } = await start();
    await setMode(true);
    expect((await place(order({ pricetype: 'LIMIT', price: '700', quantity: 1 }))).statusCode).toBe(200);
    // A source that has seen nothing yet (a restarted instance) reads the first LIMIT's price.
    const sbin = (await t.services.market.contracts.get('SBIN', 'NSE'))!;
    const fresh = new SimulatedPriceSource({
      clock: t.clock,
      logger: pino({ level: 'silent' }),
      pollMs: 1000,
      reference: (i) => t.services.sandbox.service.repo.firstLimitPrice(i.symbol, i.exchange),
    });
    await t.services.sandbox.usePriceSource(fresh);
    const res = await place(order({ action: 'SELL' }));
    expect(res.statusCode).toBe(200);
    const filled = await t.services.sandbox.service.order(1, Number(res.json().orderid));
    expect(filled.status).toBe('complete');
    expect(filled.averagePrice).toBe(Math.round((await fresh.quoteAt(sbin, t.clock.now()))!.bid! * 10_000));
    expect(Math.abs(filled.averagePrice - 7_000_000)).toBeLessThanOrEqual(350_000 + 500);
  });

  it('never in live mode: with SANDBOX_PRICE_SOURCE=simulated a live MARKET order goes to the broker, the sandbox records and prices nothing', async () => {
    stub = await startKiteOrderStub({
      apiKey: 'kiteSIMkey',
      apiSecret: 'kiteSIMsecret',
      accessToken: 'kiteSIMtoken',
    });
    const { place, setMode } = await start({ ...stub.appEnv(), SANDBOX_PRICE_SOURCE: 'simulated' });
    await t.services.brokers.sessions.set(1, 'zerodha', { accessToken: 'kiteSIMtoken' });
    expect(effectivePriceSource(t.config)).toBe('simulated');
    // A reference exists (a paper LIMIT placed earlier in analyzer mode), so the source could price SBIN.
    await setMode(true);
    expect((await place(order({ pricetype: 'LIMIT', price: '800', quantity: 1 }))).statusCode).toBe(200);
    await setMode(false);
    expect(t.services.sandbox.engine.isRunning).toBe(false);
    const before = await t.services.sandbox.service.repo.ordersOf(1);

    const res = await place(order());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'success', orderid: expect.stringMatching(/^\d{15}$/) });
    expect(stub.forms('/orders/regular').at(-1)).toMatchObject({
      tradingsymbol: 'SBIN',
      order_type: 'MARKET',
      transaction_type: 'BUY',
      quantity: '2',
    });
    expect(await t.services.sandbox.service.repo.ordersOf(1)).toEqual(before);
    expect(fillLines()).toEqual([]);
    // Nor does a simulated price pick a live strategy leg's strike (a sandbox run may use it).
    const contract = t.services.strategies.runner.deps.contract;
    expect(await contract.underlyingLtp('SBIN', 'NFO', true)).toBeUndefined();
    expect(await contract.underlyingLtp('SBIN', 'NFO', false)).toBeGreaterThan(0);
  });
});

describe('the auto default with a broker configured', () => {
  it('is the broker’s quotes, not simulated prices', async () => {
    const { t } = await appWithAdmin('sqlite', {
      env: {
        SANDBOX_PRICE_SOURCE: '',
        BROKER_NAME: 'zerodha',
        BROKER_API_KEY: 'k',
        BROKER_API_SECRET: 's',
        BROKER_REDIRECT_URL: 'http://127.0.0.1:5000/zerodha/callback',
      },
    });
    try {
      expect(effectivePriceSource(t.config)).toBe('broker');
      expect(t.services.sandbox.prices()).not.toBeInstanceOf(SimulatedPriceSource);
      expect(t.services.sandbox.prices().demo).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});
