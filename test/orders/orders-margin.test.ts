/**
 * `POST /api/v1/margin` (OpenAlgo's margin calculator; docs/rules/orders.md#margin-calculator):
 * in live mode through the broker's calculator — Kite's `POST /margins/basket` and Upstox's
 * `POST /v2/charges/margin` on the loopback stubs, whose figures follow the fixed rule of
 * broker-margin-stubs.ts (so the expected rupees below are worked by hand) — and in analyzer
 * mode under the sandbox's margin rule against the sandbox account. Nothing is ever placed.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { kiteError } from '../helpers/broker-quote-stubs.js';
import { SLOWER_THAN_TIMEOUT_MS } from '../helpers/broker-stub.js';
import {
  startUpstoxOrderStub,
  type KiteOrderStub,
  type UpstoxOrderStub,
} from '../helpers/broker-order-stubs.js';
import {
  UPSTOX_CREDS,
  startKiteOrders,
  startOrdersApp,
  upstoxContract,
  type OrdersApp,
} from '../helpers/orders-app.js';
import { startSandbox, type SandboxHarness } from '../helpers/sandbox.js';
import { describeEachDb } from '../helpers/test-app.js';

type Json = Record<string, unknown>;
const SBIN_KEY = 'NSE_EQ|INE062A01020';

/** OpenAlgo's documented single-position example. */
const SBIN_LIMIT = {
  symbol: 'SBIN',
  exchange: 'NSE',
  action: 'BUY',
  product: 'MIS',
  pricetype: 'LIMIT',
  quantity: '10',
  price: '750.50',
  trigger_price: '0',
};

describeEachDb('margin in live mode through Kite', (dialect) => {
  let stub: KiteOrderStub;
  let o: OrdersApp;
  let ce: string;
  let pe: string;
  beforeAll(async () => {
    ({ stub, o } = await startKiteOrders(dialect, ['SBIN', 'NIFTY26AUG26000CE', 'NIFTY26AUG26000PE'], {
      timeoutMs: 300,
    }));
    await o.setMode(false);
    const contracts = o.t.services.market.contracts;
    // Kite's monthly NIFTY26AUG26000CE (expiry 25 Aug 2026) in OpenAlgo's symbol format.
    ce = 'NIFTY25AUG2626000CE';
    pe = 'NIFTY25AUG2626000PE';
    expect((await contracts.get(ce, 'NFO'))?.brsymbol).toBe('NIFTY26AUG26000CE');
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });
  const margin = (positions: unknown, opts?: { apikey?: string | null }) =>
    o.api('margin', { positions }, opts);

  it('the documented example: the broker’s figures in OpenAlgo’s fields, nothing placed', async () => {
    stub.reset();
    const res = await margin([SBIN_LIMIT]);
    expect(res.statusCode, res.body).toBe(200);
    // 10 × 750.50 = 7,505 intraday: a fifth, 1,501.
    expect(res.json()).toEqual({
      status: 'success',
      data: { total_margin_required: 1501, span_margin: 0, exposure_margin: 0, initial_total_margin: 1501 },
    });
    const calls = stub.requests.filter((r) => r.path === '/margins/basket');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.query.get('consider_positions')).toBe('true');
    expect(JSON.parse(calls[0]!.body)).toEqual([
      {
        exchange: 'NSE',
        tradingsymbol: 'SBIN',
        transaction_type: 'BUY',
        variety: 'regular',
        product: 'MIS',
        order_type: 'LIMIT',
        quantity: 10,
        price: 750.5,
        trigger_price: 0,
      },
    ]);
    expect(stub.orders.size).toBe(0);
  });

  it('a spread: the final figure after the hedge benefit, the initial one before it', async () => {
    const res = await margin([
      {
        symbol: ce,
        exchange: 'NFO',
        action: 'SELL',
        product: 'NRML',
        pricetype: 'LIMIT',
        quantity: 65,
        price: 150.75,
      },
      {
        symbol: pe,
        exchange: 'NFO',
        action: 'BUY',
        product: 'NRML',
        pricetype: 'LIMIT',
        quantity: 65,
        price: 125.5,
      },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    // CE sold: 9,798.75 → SPAN 1,175.85 + exposure 293.96; PE bought: premium 8,157.50.
    // Spread: 70 % of the SPAN off the final figure (823.095 in floating point is 823.09).
    expect(res.json().data).toEqual({
      total_margin_required: 8804.22,
      span_margin: 352.76,
      exposure_margin: 293.96,
      initial_total_margin: 9627.31,
    });
    const sent = JSON.parse(stub.requests.filter((r) => r.path === '/margins/basket').at(-1)!.body);
    expect(sent.map((l: Json) => [l.tradingsymbol, l.exchange, l.transaction_type])).toEqual([
      ['NIFTY26AUG26000CE', 'NFO', 'SELL'],
      ['NIFTY26AUG26000PE', 'NFO', 'BUY'],
    ]);
  });

  it('a MARKET leg goes with price 0 (the broker prices it)', async () => {
    stub.prices.set('SBIN', 800);
    const res = await margin([{ ...SBIN_LIMIT, pricetype: 'MARKET', price: '0', product: 'CNC' }]);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.total_margin_required).toBe(8000);
    const sent = JSON.parse(stub.requests.filter((r) => r.path === '/margins/basket').at(-1)!.body);
    expect(sent[0]).toMatchObject({ order_type: 'MARKET', price: 0, product: 'CNC' });
  });

  it('an unknown symbol is a 400 naming the position, and the broker is not called', async () => {
    stub.reset();
    const res = await margin([SBIN_LIMIT, { ...SBIN_LIMIT, symbol: 'NOSUCH' }]);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      status: 'error',
      message: 'Position 2: Invalid symbol: NOSUCH on exchange: NSE',
    });
    expect(stub.requests.filter((r) => r.path === '/margins/basket')).toHaveLength(0);
  });

  it('the broker’s refusal passes through with its status; a timeout is 504', async () => {
    stub.failNext(400, kiteError('Invalid `tradingsymbol`.', 'InputException'));
    const refused = await margin([SBIN_LIMIT]);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().status).toBe('error');
    expect(refused.json().message).toContain('Invalid `tradingsymbol`.');
    stub.delayNext(SLOWER_THAN_TIMEOUT_MS);
    const slow = await margin([SBIN_LIMIT]);
    expect(slow.statusCode).toBe(504);
    expect(slow.json().message).toMatch(/Zerodha/);
  });

  it('bad input is a 400 with a message; a bad key 403; nothing reaches the broker', async () => {
    stub.reset();
    const cases: unknown[] = [
      [],
      Array.from({ length: 51 }, () => SBIN_LIMIT),
      [{ ...SBIN_LIMIT, product: undefined }],
      [{ ...SBIN_LIMIT, quantity: 'ten' }],
      [{ ...SBIN_LIMIT, quantity: 0 }],
      [{ ...SBIN_LIMIT, action: 'HOLD' }],
      [{ ...SBIN_LIMIT, exchange: 'NYSE' }],
      [{ ...SBIN_LIMIT, price: '-1' }],
      [{ ...SBIN_LIMIT, symbol: '<script>alert(1)</script>' }],
      'SBIN',
    ];
    for (const positions of cases) {
      const res = await margin(positions);
      expect(res.statusCode, JSON.stringify(positions)).toBe(400);
      expect(res.json().status).toBe('error');
      expect(JSON.stringify(res.json().message).length).toBeGreaterThan(5);
    }
    const raw = await o.t.app.inject({
      method: 'POST',
      url: '/api/v1/margin',
      headers: { 'content-type': 'application/json' },
      payload: '{"apikey": "x", "positions": [',
    });
    expect(raw.statusCode).toBe(400);
    const badKey = await margin([SBIN_LIMIT], { apikey: 'not-a-key' });
    expect(badKey.statusCode).toBe(403);
    expect(stub.requests.filter((r) => r.path === '/margins/basket')).toHaveLength(0);
  });

  it('in analyzer mode the sandbox answers; cash equity never asks the broker’s calculator', async () => {
    stub.reset();
    await o.setMode(true);
    try {
      const res = await margin([SBIN_LIMIT]);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        status: 'success',
        data: {
          total_margin_required: 1501,
          span_margin: 0,
          exposure_margin: 0,
          initial_total_margin: 1501,
          method: 'Position 1: trade value ÷ leverage',
        },
        mode: 'analyze',
      });
      expect(stub.requests.filter((r) => r.path === '/margins/basket')).toHaveLength(0);
    } finally {
      await o.setMode(false);
    }
  });

  it('in analyzer mode a short option is margined by Kite’s calculator, and the order blocks its figure (docs/rules/sandbox.md#margins-like-a-broker)', async () => {
    stub.reset();
    await o.setMode(true);
    try {
      const leg = { symbol: ce, exchange: 'NFO', product: 'NRML', pricetype: 'LIMIT', trigger_price: '0' };
      const res = await margin([{ ...leg, action: 'SELL', quantity: '65', price: '150' }]);
      expect(res.statusCode, res.body).toBe(200);
      // The stub's rule: a sold option blocks SPAN 12 % + exposure 3 % of 65 × 150 = 9,750.
      expect(res.json()).toMatchObject({
        data: {
          total_margin_required: 1462.5,
          span_margin: 1170,
          exposure_margin: 292.5,
          method: "Position 1: Zerodha's margin calculator",
        },
        mode: 'analyze',
      });
      const calls = stub.requests.filter((r) => r.path === '/margins/basket');
      expect(calls).toHaveLength(1);
      expect(JSON.parse(calls[0]!.body)).toMatchObject([
        { exchange: 'NFO', tradingsymbol: 'NIFTY26AUG26000CE', transaction_type: 'SELL', quantity: 65 },
      ]);

      // Placed, the sandbox order blocks what Kite answered.
      const placed = await o.api('placeorder', {
        strategy: 'margin',
        symbol: ce,
        exchange: 'NFO',
        action: 'SELL',
        quantity: 65,
        pricetype: 'LIMIT',
        price: 150,
        product: 'NRML',
      });
      expect(placed.statusCode, placed.body).toBe(200);
      const funds = await o.api('funds', {});
      expect((funds.json() as { data: Json }).data.utiliseddebits).toBe(1462.5);
    } finally {
      await o.setMode(false);
    }
  });
});

describeEachDb('margin in live mode through Upstox', (dialect) => {
  let stub: UpstoxOrderStub;
  let o: OrdersApp;
  beforeAll(async () => {
    stub = await startUpstoxOrderStub(UPSTOX_CREDS);
    stub.symbols.set(SBIN_KEY, 'SBIN');
    o = await startOrdersApp(dialect, {
      broker: 'upstox',
      stubUrl: stub.url,
      contract: upstoxContract([SBIN_KEY]),
    });
    await o.setMode(false);
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });

  it('the documented example: instrument key, product code and price as Upstox takes them', async () => {
    const res = await o.api('margin', { positions: [SBIN_LIMIT] });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      status: 'success',
      data: { total_margin_required: 1501, span_margin: 0, exposure_margin: 0, initial_total_margin: 1501 },
    });
    expect(stub.bodies('/v2/charges/margin')).toEqual([
      {
        instruments: [
          { instrument_key: SBIN_KEY, quantity: 10, transaction_type: 'BUY', product: 'I', price: 750.5 },
        ],
      },
    ]);
  });

  it('more positions than Upstox takes in one request: slices of 20, figures added', async () => {
    stub.reset();
    const res = await o.api('margin', { positions: Array.from({ length: 25 }, () => SBIN_LIMIT) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.total_margin_required).toBe(25 * 1501);
    expect(stub.bodies('/v2/charges/margin').map((b) => (b.instruments as unknown[]).length)).toEqual([
      20, 5,
    ]);
  });
});

describeEachDb('margin in analyzer mode (the sandbox’s rule)', (dialect) => {
  let h: SandboxHarness;
  beforeAll(async () => {
    h = await startSandbox(dialect);
    await h.at('2026-08-18', '10:00');
    await h.tick({ 'NSE:SBIN': h.quote(800) });
  });
  afterAll(() => h?.close());

  const margin = async (positions: unknown[]) => {
    const res = await h.api('margin', { positions });
    return { status: res.statusCode, body: res.json() as Json };
  };
  const total = async (positions: unknown[]) => {
    const r = await margin(positions);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.mode).toBe('analyze');
    return r.body.data as Json;
  };
  const fut = { symbol: 'NIFTY25AUG26FUT', exchange: 'NFO', product: 'NRML', pricetype: 'LIMIT' };

  it('prices each leg as placement would: leverage for cash and bought options, SPAN + exposure for the rest', async () => {
    expect(await total([SBIN_LIMIT])).toEqual({
      total_margin_required: 1501,
      span_margin: 0,
      exposure_margin: 0,
      initial_total_margin: 1501,
      method: 'Position 1: trade value ÷ leverage',
    });
    expect((await total([{ ...SBIN_LIMIT, product: 'CNC' }])).total_margin_required).toBe(7505);
    // A NIFTY future without a quote of NIFTY or of itself: the approximation on the order's price,
    // 5.5 % + 2 % of 65 × 25,000 = 89,375 + 32,500.
    expect(await total([{ ...fut, action: 'BUY', quantity: 65, price: 25_000 }])).toMatchObject({
      total_margin_required: 121_875,
      span_margin: 89_375,
      exposure_margin: 32_500,
      method: expect.stringContaining('SPAN + exposure approximation: 5.5 % + 2 % of the index underlying'),
    });
    // An option sold, NIFTY unquoted: on its strike, 7.5 % of 65 × 26,000 = 1,26,750.
    const opt = { symbol: 'NIFTY18AUG2626000CE', exchange: 'NFO', product: 'NRML', pricetype: 'LIMIT' };
    expect((await total([{ ...opt, action: 'SELL', quantity: 65, price: 150 }])).total_margin_required).toBe(
      126_750,
    );
    // Bought, it blocks its premium (option buy leverage 1×).
    expect((await total([{ ...opt, action: 'BUY', quantity: 65, price: 150 }])).total_margin_required).toBe(
      9750,
    );
  });

  it('a MARKET leg is priced at the quote’s execution price; without a quote it is a 400', async () => {
    // BUY at the ask, 800.05: 10 × 800.05 ÷ 5.
    expect((await total([{ ...SBIN_LIMIT, pricetype: 'MARKET', price: '0' }])).total_margin_required).toBe(
      1600.1,
    );
    const r = await margin([{ ...SBIN_LIMIT, symbol: 'INFY', pricetype: 'MARKET', price: '0' }]);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(
      'Position 1: no price is available for NSE:INFY; give a LIMIT price to price a MARKET order',
    );
  });

  it('a leg that reduces an earlier leg or the account’s position blocks nothing', async () => {
    const both = await total([
      { ...SBIN_LIMIT, price: 800 },
      { ...SBIN_LIMIT, action: 'SELL', price: 800 },
    ]);
    expect(both).toMatchObject({ total_margin_required: 1600, initial_total_margin: 3200 });
    const before = (await h.ok<{ data: { orders: unknown[] } }>('orderbook')).data.orders.length;
    expect(before).toBe(0);
    await h.place({ symbol: 'SBIN', exchange: 'NSE', side: 'BUY', quantity: 10 });
    const exit = await total([{ ...SBIN_LIMIT, action: 'SELL', price: 800 }]);
    expect(exit).toMatchObject({ total_margin_required: 0, initial_total_margin: 1600 });
  });

  it('input the sandbox refuses is a 400 naming the position; nothing is written', async () => {
    const before = (await h.ok<{ data: { orders: unknown[] } }>('orderbook')).data.orders.length;
    const lot = await margin([SBIN_LIMIT, { ...fut, action: 'BUY', quantity: 10, price: 25_000 }]);
    expect(lot.status).toBe(400);
    expect(lot.body.message).toBe('Position 2: quantity must be a multiple of the lot size 65');
    const unknown = await margin([{ ...SBIN_LIMIT, symbol: 'NOSUCH' }]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/^Position 1: Symbol 'NOSUCH' not found on exchange NSE/);
    expect(unknown.body.mode).toBe('analyze');
    const after = (await h.ok<{ data: { orders: unknown[] } }>('orderbook')).data.orders.length;
    expect(after).toBe(before);
  });
});
