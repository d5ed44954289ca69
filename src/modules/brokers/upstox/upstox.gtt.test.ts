/**
 * Upstox v3 GTT through the Upstox adapter against a loopback Upstox whose GTT routes are written
 * from Upstox's GTT documentation (test/helpers/broker-gtt-stub-upstox.ts): the exact JSON of
 * place, modify and cancel, ABOVE/BELOW/IMMEDIATE from the last price, MARKET as market
 * protection, the OCO refusal, the live-only book with IST timestamps, and failures (Upstox's
 * error envelope, stale tokens, refusals before any I/O).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { BrokerGtt } from '../broker-adapter.js';
import type { BrokerAdapterOptions } from '../http/order-transport.js';
import type { QuoteInstrument } from '../quotes/quote-client.js';
import { UpstoxAdapter } from './upstox.adapter.js';
import { UPSTOX_NO_OCO, upstoxEpoch } from './upstox.gtt.js';
import {
  closeAfterEach,
  closeLater,
  loadQuoteInstruments,
  type UpstoxSet,
} from '../../../../test/helpers/broker-quote-fixtures.js';
import { upstoxError } from '../../../../test/helpers/broker-quote-stubs.js';
import { captureLogs, startUpstoxOrderStub } from '../../../../test/helpers/broker-order-stubs.js';
import { UPSTOX_GTT_EPOCH_US } from '../../../../test/helpers/broker-gtt-stub-upstox.js';

// Distinctive, so any leak into a message, a raw body or a log line is caught.
const CREDS = {
  clientId: 'upstoxCLIENTg7t1',
  clientSecret: 'upstoxSECRETgtt2P',
  redirectUri: 'http://127.0.0.1:5000/upstox/callback',
  accessToken: 'eyJ0eXAupstoxGTTtoken9',
};

let U: UpstoxSet;
beforeAll(async () => {
  ({ U } = await loadQuoteInstruments());
});
closeAfterEach();

async function setup(opts: Partial<BrokerAdapterOptions> = {}) {
  const stub = await startUpstoxOrderStub(CREDS);
  const { logger, logs } = captureLogs();
  const adapter = new UpstoxAdapter({
    ...{ apiKey: CREDS.clientId, apiSecret: CREDS.clientSecret, redirectUrl: CREDS.redirectUri },
    ...{ baseUrl: stub.url, logger },
    ...opts,
  });
  closeLater(() => stub.close());
  closeLater(() => adapter.close());
  return { stub, adapter, session: { accessToken: CREDS.accessToken }, logs };
}

/** A GTT on `i`: a single LIMIT CNC BUY 1 triggered at 790.5 under a last price of 812.35. */
function gttFor(i: QuoteInstrument, o: Partial<BrokerGtt> = {}): BrokerGtt {
  const { symbol, exchange, brsymbol, brexchange, token } = i;
  return {
    ...{ type: 'single', symbol, exchange, brsymbol, brexchange, token, tickSize: 0.05 },
    ...{ action: 'BUY', product: 'CNC', quantity: 1, priceType: 'LIMIT' },
    ...{ triggers: [790.5], prices: [790.5], lastPrice: 812.35 },
    ...o,
  };
}

const SBIN = 'NSE_EQ|INE062A01020';
const PLACE = '/v3/order/gtt/place';

describe('place: POST /v3/order/gtt/place with the JSON Upstox documents', () => {
  it.each([
    { name: 'a trigger under the last price is BELOW', trigger: 790.5, type: 'BELOW' },
    { name: 'a trigger over the last price is ABOVE', trigger: 830, type: 'ABOVE' },
    { name: 'a trigger at the last price is IMMEDIATE', trigger: 812.35, type: 'IMMEDIATE' },
  ])('$name; CNC is product D; no limit-price field', async ({ trigger, type }) => {
    const { stub, adapter, session } = await setup();

    const result = await adapter.placeGtt(gttFor(U.sbin, { quantity: 10, triggers: [trigger] }), session);

    expect(stub.gtt.bodies(PLACE)).toEqual([
      {
        type: 'SINGLE',
        quantity: 10,
        product: 'D',
        instrument_token: SBIN,
        transaction_type: 'BUY',
        rules: [{ strategy: 'ENTRY', trigger_type: type, trigger_price: trigger }],
      },
    ]);
    const id = [...stub.gtt.orders.keys()][0]!;
    expect(id).toMatch(/^GTT-/);
    expect(result).toEqual({ ok: true, data: { triggerId: id }, roundTripMs: expect.any(Number) });
  });

  it('goes to api.upstox.com (not the order host) with Bearer, Accept and Content-Type JSON', async () => {
    const { stub, adapter, session } = await setup({ orderBaseUrl: 'http://127.0.0.1:1' });

    const result = await adapter.placeGtt(gttFor(U.sbin), session);

    expect(result.ok).toBe(true);
    const http = stub.requests.find((r) => r.path === PLACE)!;
    expect(stub.credentialOf(http)).toBe('exact');
    expect(http.headers.accept).toBe('application/json');
    expect(http.headers['content-type']).toBe('application/json');
  });

  it('a NRML SELL on a future is product D, side SELL', async () => {
    const { stub, adapter, session } = await setup();

    const gtt = gttFor(U.fut, {
      action: 'SELL',
      product: 'NRML',
      quantity: 30,
      triggers: [47900],
      lastPrice: 48210,
    });
    await adapter.placeGtt(gtt, session);

    expect(stub.gtt.bodies(PLACE)[0]).toMatchObject({
      product: 'D',
      instrument_token: U.fut.token,
      transaction_type: 'SELL',
      rules: [{ strategy: 'ENTRY', trigger_type: 'BELOW', trigger_price: 47900 }],
    });
  });

  it('MARKET carries market_protection 2 on its ENTRY rule', async () => {
    const { stub, adapter, session } = await setup();

    await adapter.placeGtt(gttFor(U.sbin, { priceType: 'MARKET', triggers: [830], prices: [0] }), session);

    expect(stub.gtt.bodies(PLACE)[0]!.rules).toEqual([
      { strategy: 'ENTRY', trigger_type: 'ABOVE', trigger_price: 830, market_protection: 2 },
    ]);
  });

  it('a two-leg (OCO) GTT is refused with 400 and why, before any I/O (place and modify)', async () => {
    const { stub, adapter, session } = await setup();
    const oco = gttFor(U.sbin, { type: 'two-leg', action: 'SELL', triggers: [780, 850], prices: [779, 851] });

    const results = [await adapter.placeGtt(oco, session), await adapter.modifyGtt('GTT-1', oco, session)];

    for (const r of results)
      expect(r).toEqual({ ok: false, httpStatus: 400, message: UPSTOX_NO_OCO, roundTripMs: 0 });
    expect(UPSTOX_NO_OCO).toBe(
      "Upstox's GTT has no exit-only OCO: every multi-leg Upstox GTT opens a position first. Place two SINGLE GTTs instead.",
    );
    expect(stub.requests).toHaveLength(0);
  });
});

describe('modify and cancel: PUT /v3/order/gtt/modify, DELETE /v3/order/gtt/cancel with a JSON body', () => {
  it('modify sends {type, quantity, gtt_order_id, rules}: no instrument, product, side or protection', async () => {
    const { stub, adapter, session } = await setup();
    const placed = await adapter.placeGtt(gttFor(U.sbin, { priceType: 'MARKET', prices: [0] }), session);
    const id = placed.ok ? placed.data.triggerId : '';

    const gtt = gttFor(U.sbin, {
      priceType: 'MARKET',
      prices: [0],
      quantity: 3,
      triggers: [845],
      lastPrice: 820,
    });
    const result = await adapter.modifyGtt(id, gtt, session);

    expect(result).toEqual({ ok: true, data: { triggerId: id }, roundTripMs: expect.any(Number) });
    expect(stub.gtt.bodies('/v3/order/gtt/modify')).toEqual([
      {
        type: 'SINGLE',
        quantity: 3,
        gtt_order_id: id,
        rules: [{ strategy: 'ENTRY', trigger_type: 'ABOVE', trigger_price: 845 }],
      },
    ]);
    const book = await adapter.gttBook(session);
    expect(book.ok && book.data.map((g) => [g.triggerId, g.triggers, g.legs[0]!.quantity])).toEqual([
      [id, [845], 3],
    ]);
  });

  it('cancel sends DELETE with the JSON body {gtt_order_id}; the GTT leaves the book', async () => {
    const { stub, adapter, session } = await setup();
    const placed = await adapter.placeGtt(gttFor(U.sbin), session);
    const id = placed.ok ? placed.data.triggerId : '';

    const result = await adapter.cancelGtt(id, session);

    expect(result).toEqual({ ok: true, data: { triggerId: id }, roundTripMs: expect.any(Number) });
    expect(stub.gtt.received.filter((r) => r.method === 'DELETE')).toEqual([
      { method: 'DELETE', path: '/v3/order/gtt/cancel', body: { gtt_order_id: id } },
    ]);
    expect(await adapter.gttBook(session)).toMatchObject({ ok: true, data: [] });
  });

  it('an id Upstox refuses comes back with its code and message (UDAPI1135)', async () => {
    const { adapter, session } = await setup();

    expect(await adapter.cancelGtt('221130000253265', session)).toEqual({
      ok: false,
      httpStatus: 400,
      message: "UDAPI1135: GTT order ID must start with 'GTT-'",
      roundTripMs: expect.any(Number),
    });
  });
});

describe('book: GET /v3/order/gtt, the GTTs with a live rule, mapped to neutral rows', () => {
  it('epoch microseconds read as IST wall-clock time', () => {
    expect(upstoxEpoch(UPSTOX_GTT_EPOCH_US)).toBe('2026-08-18 09:15:00');
    expect(upstoxEpoch(1781029799000000)).toBe('2026-06-09 23:59:59');
    expect(upstoxEpoch(undefined)).toBe('');
  });

  it('keeps SCHEDULED/PENDING/OPEN/INACTIVE GTTs; a MULTIPLE one shows its exits as two legs', async () => {
    const { stub, adapter, session } = await setup();
    const rule = (
      strategy: string,
      status: string,
      trigger_type: string,
      trigger_price: number,
      side: string,
    ) => ({
      strategy,
      status,
      message: '',
      trigger_type,
      trigger_price,
      transaction_type: side,
      order_id: null,
    });
    const single = stub.gtt.add({ created_at: 1781029799000000, expires_at: 1812565799000000 });
    stub.gtt.add({ rules: [rule('ENTRY', 'COMPLETED', 'BELOW', 80, 'BUY')] });
    stub.gtt.add({ rules: [rule('ENTRY', 'CANCELLED', 'BELOW', 80, 'BUY')] });
    stub.gtt.add({ rules: [rule('ENTRY', 'EXPIRED', 'BELOW', 80, 'BUY')] });
    const fo = 'NSE_FO|59175';
    const multi = stub.gtt.add({
      type: 'MULTIPLE',
      instrument_token: fo,
      exchange: 'NSE_FO',
      trading_symbol: 'BANKNIFTY FUT 24 FEB 26',
      quantity: 30,
      rules: [
        rule('ENTRY', 'OPEN', 'BELOW', 48000, 'BUY'),
        rule('TARGET', 'INACTIVE', 'IMMEDIATE', 49000, 'SELL'),
        rule('STOPLOSS', 'INACTIVE', 'IMMEDIATE', 47500, 'SELL'),
      ],
    });

    const book = await adapter.gttBook(session);

    expect(book).toEqual({
      ok: true,
      roundTripMs: expect.any(Number),
      data: [
        {
          triggerId: single,
          type: 'single',
          status: 'active',
          brsymbol: 'INE848E01016',
          brexchange: 'NSE_EQ',
          token: 'NSE_EQ|INE848E01016',
          triggers: [80],
          lastPrice: 0,
          legs: [{ action: 'BUY', quantity: 1, price: 80, priceType: 'LIMIT', product: 'CNC' }],
          createdAt: '2026-06-09 23:59:59',
          updatedAt: '',
          expiresAt: '2027-06-09 23:59:59',
        },
        {
          triggerId: multi,
          type: 'two-leg',
          status: 'active',
          brsymbol: 'BANKNIFTY FUT 24 FEB 26',
          brexchange: 'NSE_FO',
          token: fo,
          triggers: [47500, 49000],
          lastPrice: 0,
          legs: [
            { action: 'SELL', quantity: 30, price: 47500, priceType: 'LIMIT', product: 'NRML' },
            { action: 'SELL', quantity: 30, price: 49000, priceType: 'LIMIT', product: 'NRML' },
          ],
          createdAt: expect.stringMatching(/^2026-08-18 09:15:0\d$/),
          updatedAt: '',
          expiresAt: expect.stringMatching(/^2027-08-18 09:15:0\d$/),
        },
      ],
    });
    expect(stub.requests.find((r) => r.path === '/v3/order/gtt')!.query.has('gtt_order_id')).toBe(false);
  });
});

describe('failures: Upstox’s envelope read as "CODE: message", no credential anywhere', () => {
  it.each([
    [
      'snake_case fields',
      {
        status: 'error',
        errors: [
          {
            error_code: 'UDAPI1158',
            message: 'Market orders blocked; use limit orders with market protection',
            property_path: 'rules[0]',
            invalid_value: null,
          },
        ],
      },
    ],
    [
      'camelCase fields',
      {
        status: 'error',
        errors: [
          {
            errorCode: 'UDAPI1158',
            message: 'Market orders blocked; use limit orders with market protection',
            propertyPath: 'rules[0]',
            invalidValue: null,
          },
        ],
      },
    ],
  ])('%s', async (_name, body) => {
    const { stub, adapter, session } = await setup();
    stub.failNext(400, body);

    expect(await adapter.placeGtt(gttFor(U.sbin), session)).toEqual({
      ok: false,
      httpStatus: 400,
      message: 'UDAPI1158: Market orders blocked; use limit orders with market protection',
      roundTripMs: expect.any(Number),
    });
  });

  it('a 5xx keeps its status', async () => {
    const { stub, adapter, session } = await setup();
    stub.failNext(503, upstoxError('UDAPI100500', 'Something went wrong'));

    expect(await adapter.gttBook(session)).toMatchObject({
      ok: false,
      httpStatus: 503,
      message: 'UDAPI100500: Something went wrong',
    });
  });

  it('a stale session gets 401 UDAPI100050 on every call; the token is in no result or log', async () => {
    const { adapter, logs } = await setup();
    const stale = { accessToken: 'eyJSTALEupstoxGTT42' };

    const results = [
      await adapter.placeGtt(gttFor(U.sbin), stale),
      await adapter.modifyGtt('GTT-1', gttFor(U.sbin), stale),
      await adapter.cancelGtt('GTT-1', stale),
      await adapter.gttBook(stale),
    ];

    for (const r of results)
      expect(r).toMatchObject({
        ok: false,
        httpStatus: 401,
        message: 'UDAPI100050: Invalid token used to access API',
      });
    for (const text of [JSON.stringify(results), logs()]) expect(text).not.toContain('eyJSTALEupstoxGTT42');
  });

  it('a broker message echoing the token is redacted', async () => {
    const { stub, adapter, session } = await setup();
    stub.failNext(401, upstoxError('UDAPI100050', `Invalid token Bearer ${CREDS.accessToken}`));

    const result = await adapter.cancelGtt('GTT-1', session);

    expect(result).toMatchObject({
      ok: false,
      httpStatus: 401,
      message: expect.stringContaining('[redacted]'),
    });
    for (const secret of Object.values(CREDS)) expect(JSON.stringify(result)).not.toContain(secret);
  });

  it('a success without an id is a 502 failure', async () => {
    const { stub, adapter, session } = await setup();
    stub.failNext(200, { status: 'success', data: { gtt_order_ids: [] } });

    expect(await adapter.placeGtt(gttFor(U.sbin), session)).toMatchObject({
      ok: false,
      httpStatus: 502,
      message: 'Upstox answered success without a GTT order id',
    });
  });

  it('no token, no last price or an empty id are refused without I/O', async () => {
    const { stub, adapter, session } = await setup();

    const results = [
      await adapter.placeGtt(gttFor(U.sbin), { accessToken: ' ' }),
      await adapter.placeGtt(gttFor(U.sbin, { lastPrice: 0 }), session),
      await adapter.modifyGtt('', gttFor(U.sbin), session),
      await adapter.cancelGtt('', session),
    ];

    expect(results.map((r) => (r.ok ? 200 : r.httpStatus))).toEqual([401, 400, 400, 400]);
    expect(stub.requests).toHaveLength(0);
  });
});
