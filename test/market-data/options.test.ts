/**
 * `/api/v1` options data (OpenAlgo's optionchain, syntheticfuture, optiongreeks,
 * multioptiongreeks) through the real app against a loopback Kite Connect v3: NIFTY options of the
 * real 2026-08-18 master, quoted by the stub; one batched broker call per greeks request; Black-76
 * figures checked against OpenAlgo's documented optiongreeks example.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kiteQuote, startKiteQuoteStub, type KiteQuoteStub } from '../helpers/broker-quote-stubs.js';
import { KITE_CREDS, kiteContract, startOrdersApp, type OrdersApp } from '../helpers/orders-app.js';

const STRIKES = [25_900, 25_950, 26_000, 26_050, 26_100];
const kiteSymbol = (strike: number, type: 'CE' | 'PE') => `NIFTY26818${strike}${type}`;
const symbol = (strike: number, type: 'CE' | 'PE') => `NIFTY18AUG26${strike}${type}`;
/** NIFTY's 18 Aug 2026 expiry: 15:30 IST. */
const EXPIRY_AT = Date.parse('2026-08-18T15:30:00+05:30');
const DAY = 86_400_000;

describe('options data through Zerodha (Kite Connect v3 on loopback)', () => {
  let stub: KiteQuoteStub;
  let o: OrdersApp;
  let token = 1;
  const quote = (key: string, ltp: number, extra: { bid?: number; ask?: number } = {}) =>
    stub.quotes.set(
      key,
      kiteQuote({
        instrumentToken: token++,
        lastPrice: ltp,
        ...(extra.bid ? { bids: [[extra.bid, 75]] } : {}),
        ...(extra.ask ? { asks: [[extra.ask, 150]] } : {}),
      }),
    );

  beforeAll(async () => {
    stub = await startKiteQuoteStub({ apiKey: KITE_CREDS.apiKey, accessToken: KITE_CREDS.accessToken });
    o = await startOrdersApp('sqlite', {
      broker: 'zerodha',
      stubUrl: stub.url,
      contract: kiteContract([
        'NIFTY 50',
        ...STRIKES.flatMap((s) => [kiteSymbol(s, 'CE'), kiteSymbol(s, 'PE')]),
      ]),
      timeoutMs: 300,
    });
    // OpenAlgo's example: 28.5071 days to expiry.
    o.t.clock.set(EXPIRY_AT - 28.5071 * DAY);
    STRIKES.forEach((s, n) => {
      quote(`NFO:${kiteSymbol(s, 'CE')}`, 300 - 40 * n, { bid: 299 - 40 * n, ask: 301 - 40 * n });
      quote(`NFO:${kiteSymbol(s, 'PE')}`, 150 + 40 * n);
    });
  });
  afterAll(async () => {
    await o?.close();
    await stub?.close();
  });

  it('optionchain: ATM from the underlying’s quote, strike_count strikes either side, labelled ITM/OTM', async () => {
    quote('NSE:NIFTY 50', 26_010);
    const before = stub.requests.length;
    const res = await o.api('optionchain', {
      underlying: 'NIFTY',
      exchange: 'NSE_INDEX',
      expiry_date: '18AUG26',
      strike_count: 1,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      status: 'success',
      underlying: 'NIFTY',
      underlying_ltp: 26_010,
      expiry_date: '18AUG26',
      atm_strike: 26_000,
    });
    expect(body.chain.map((c: { strike: number }) => c.strike)).toEqual([25_950, 26_000, 26_050]);
    expect(body.chain.map((c: { ce: { label: string } }) => c.ce.label)).toEqual(['ITM1', 'ATM', 'OTM1']);
    expect(body.chain.map((c: { pe: { label: string } }) => c.pe.label)).toEqual(['OTM1', 'ATM', 'ITM1']);
    expect(body.chain[1].ce).toEqual({
      symbol: symbol(26_000, 'CE'),
      label: 'ATM',
      ltp: 220,
      bid: 219,
      ask: 221,
      open: 220,
      high: 220,
      low: 220,
      prev_close: 220,
      volume: 0,
      oi: 0,
      lotsize: 65,
      tick_size: 0.05,
    });
    // The underlying, then every option of the chosen strikes in one call.
    expect(stub.requests.length - before).toBe(2);
    expect(stub.requests.at(-1)!.query.getAll('i')).toHaveLength(6);
  });

  it('optionchain without strike_count is the whole chain; an unknown expiry is 404', async () => {
    quote('NSE:NIFTY 50', 26_010);
    const all = await o.api('optionchain', {
      underlying: 'NIFTY',
      exchange: 'NSE_INDEX',
      expiry_date: '18AUG26',
    });
    expect(all.json().chain).toHaveLength(5);
    const none = await o.api('optionchain', {
      underlying: 'NIFTY',
      exchange: 'NSE_INDEX',
      expiry_date: '25AUG26',
    });
    expect(none.statusCode).toBe(404);
  });

  it('syntheticfuture: ATM strike + ATM call − ATM put', async () => {
    quote('NSE:NIFTY 50', 26_010);
    quote(`NFO:${kiteSymbol(26_000, 'CE')}`, 180);
    quote(`NFO:${kiteSymbol(26_000, 'PE')}`, 170.5);
    const res = await o.api('syntheticfuture', {
      underlying: 'NIFTY',
      exchange: 'NSE_INDEX',
      expiry_date: '18AUG26',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'success',
      underlying: 'NIFTY',
      underlying_ltp: 26_010,
      expiry: '18AUG26',
      atm_strike: 26_000,
      synthetic_future_price: 26_009.5,
    });
  });

  it('optiongreeks: OpenAlgo’s documented example (spot 25966.05, 26000 CE at 435, 28.5071 days, r 0)', async () => {
    quote('NSE:NIFTY 50', 25_966.05);
    quote(`NFO:${kiteSymbol(26_000, 'CE')}`, 435);
    const before = stub.requests.length;
    const res = await o.api('optiongreeks', {
      symbol: symbol(26_000, 'CE'),
      exchange: 'NFO',
      interest_rate: 0.0,
      underlying_symbol: 'NIFTY',
      underlying_exchange: 'NSE_INDEX',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      status: 'success',
      symbol: symbol(26_000, 'CE'),
      exchange: 'NFO',
      underlying: 'NIFTY',
      strike: 26_000,
      option_type: 'CE',
      expiry_date: '18-Aug-2026',
      days_to_expiry: 28.5071,
      spot_price: 25_966.05,
      option_price: 435,
      interest_rate: 0,
    });
    expect(body.implied_volatility).toBeCloseTo(15.6, 1);
    expect(body.greeks.delta).toBeCloseTo(0.4967, 3);
    expect(body.greeks.gamma).toBeCloseTo(0.000352, 6);
    expect(body.greeks.theta).toBeCloseTo(-7.919, 1);
    expect(body.greeks.vega).toBeCloseTo(28.9489, 1);
    expect(body.greeks.rho).toBeCloseTo(9.733994, 1);
    expect(stub.requests.length - before).toBe(1);
    expect(stub.requests.at(-1)!.query.getAll('i').sort()).toEqual(['NFO:NIFTY2681826000CE', 'NSE:NIFTY 50']);
  });

  it('optiongreeks: the underlying defaults to the option’s, on NSE_INDEX; forward_price skips it', async () => {
    quote('NSE:NIFTY 50', 25_966.05);
    quote(`NFO:${kiteSymbol(26_000, 'PE')}`, 460);
    const res = await o.api('optiongreeks', { symbol: symbol(26_000, 'PE'), exchange: 'NFO' });
    expect(res.statusCode).toBe(200);
    expect(res.json().greeks.delta).toBeLessThan(0);
    const before = stub.requests.length;
    const fwd = await o.api('optiongreeks', {
      symbol: symbol(26_000, 'PE'),
      exchange: 'NFO',
      forward_price: 26_050,
    });
    expect(fwd.json().spot_price).toBe(26_050);
    expect(stub.requests.at(-1)!.query.getAll('i')).toEqual(['NFO:NIFTY2681826000PE']);
    expect(stub.requests.length - before).toBe(1);
  });

  it('multioptiongreeks: every option and the underlying in ONE call; a bad item fails alone', async () => {
    quote('NSE:NIFTY 50', 25_966.05);
    const before = stub.requests.length;
    const res = await o.api('multioptiongreeks', {
      symbols: [
        { symbol: symbol(26_000, 'CE'), exchange: 'NFO' },
        { symbol: symbol(26_000, 'PE'), exchange: 'NFO' },
        { symbol: 'NIFTY18AUG2699999CE', exchange: 'NFO' },
      ],
      interest_rate: 7.0,
      expiry_time: '15:30',
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.summary).toEqual({ total: 3, success: 2, failed: 1 });
    expect(body.data[0]).toMatchObject({ status: 'success', symbol: symbol(26_000, 'CE'), interest_rate: 7 });
    expect(body.data[0].greeks.delta).toBeGreaterThan(0);
    expect(body.data[2]).toMatchObject({
      status: 'error',
      symbol: 'NIFTY18AUG2699999CE',
      message: expect.any(String),
    });
    expect(stub.requests.length - before).toBe(1);
    expect(stub.requests.at(-1)!.query.getAll('i')).toHaveLength(3);
  });

  it.each([
    ['optiongreeks', { symbol: 'SBIN', exchange: 'NSE' }],
    ['optiongreeks', { symbol: symbol(26_000, 'CE'), exchange: 'NFO', interest_rate: 150 }],
    ['optiongreeks', { symbol: symbol(26_000, 'CE'), exchange: 'NFO', expiry_time: '25:00' }],
    ['multioptiongreeks', { symbols: [] }],
    ['optionchain', { underlying: 'NIFTY', exchange: 'NSE_INDEX', expiry_date: '18AUG26', strike_count: 0 }],
    ['optionchain', { underlying: 'NIFTY', exchange: 'NSE_INDEX', expiry_date: 'someday' }],
  ] as const)('bad input: %s %j → 400, nothing asked', async (path, body) => {
    const before = stub.requests.length;
    const res = await o.api(path, body);
    expect(res.statusCode).toBe(400);
    expect(stub.requests.length).toBe(before);
  });

  it('without a broker session the options routes answer 403 naming it, even in analyzer mode', async () => {
    await o.t.services.brokers.sessions.clear(1);
    // The service-wide switch directly: the browser session lapsed when the clock was set.
    await o.t.services.sandbox.mode.set(true);
    for (const [path, body] of [
      ['optiongreeks', { symbol: symbol(26_000, 'CE'), exchange: 'NFO' }],
      ['optionchain', { underlying: 'NIFTY', exchange: 'NSE_INDEX', expiry_date: '18AUG26' }],
      ['syntheticfuture', { underlying: 'NIFTY', exchange: 'NSE_INDEX', expiry_date: '18AUG26' }],
    ] as const) {
      const res = await o.api(path, body);
      expect(res.statusCode, path).toBe(403);
      expect(res.json().message, path).toMatch(/needs a broker session/);
    }
    await o.t.services.sandbox.mode.set(false);
  });
});
