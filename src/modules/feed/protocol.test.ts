import { describe, expect, it } from 'vitest';
import { marketDataMessage, parseClientMessage, parseMode, PROTOCOL_LIMITS, tickData } from './protocol.js';
import type { Tick } from './feed.types.js';

const parse = (v: unknown) => parseClientMessage(typeof v === 'string' ? v : JSON.stringify(v));

describe('feed protocol: client messages (docs/rules/market-data.md#feed-protocol)', () => {
  it('authenticate takes api_key or apikey, under action or type, and auth as an alias', () => {
    expect(parse({ action: 'authenticate', api_key: 'k1' })).toEqual({
      action: 'authenticate',
      apiKey: 'k1',
    });
    expect(parse({ type: 'auth', apikey: 'k2' })).toEqual({ action: 'authenticate', apiKey: 'k2' });
    expect(parse({ action: 'authenticate' })).toMatchObject({
      code: 'AUTHENTICATION_ERROR',
      message: 'API key is required',
    });
    expect(parse({ action: 'auth', api_key: 'x'.repeat(PROTOCOL_LIMITS.apiKeyLength + 1) })).toMatchObject({
      code: 'AUTHENTICATION_ERROR',
    });
  });

  it('modes: 1, 2, 3 or LTP, Quote, Depth in any case; Quote by default; anything else INVALID_MODE', () => {
    expect([1, 2, 3, 'ltp', 'QUOTE', 'Depth', ' depth ', '2'].map(parseMode)).toEqual([
      1, 2, 3, 1, 2, 3, 3, 2,
    ]);
    expect([0, 4, 'full', null, true, 2.5].map(parseMode)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    const sub = parse({ action: 'subscribe', symbols: [{ symbol: 'sbin', exchange: 'nse' }] });
    expect(sub).toEqual({
      action: 'subscribe',
      symbols: [{ symbol: 'SBIN', exchange: 'NSE' }],
      mode: 2,
      depth: 5,
    });
    expect(
      parse({ action: 'subscribe', symbols: [{ symbol: 'SBIN', exchange: 'NSE' }], mode: 'Full' }),
    ).toMatchObject({
      status: 'error',
      code: 'INVALID_MODE',
    });
  });

  it('subscribe: symbols, the published alias instruments, or one top-level symbol; depth and request_id', () => {
    const one = { symbol: 'NIFTY', exchange: 'NSE_INDEX' };
    expect(parse({ action: 'subscribe', instruments: [one], mode: 3, depth: 20, request_id: 'r-1' })).toEqual(
      {
        action: 'subscribe',
        symbols: [one],
        mode: 3,
        depth: 20,
        requestId: 'r-1',
      },
    );
    expect(parse({ action: 'subscribe', ...one, mode: 'LTP' })).toMatchObject({ symbols: [one], mode: 1 });
    expect(parse({ action: 'subscribe' })).toMatchObject({
      code: 'INVALID_PARAMETERS',
      message: 'At least one symbol must be specified',
    });
    expect(parse({ action: 'subscribe', symbols: [] })).toMatchObject({ code: 'INVALID_PARAMETERS' });
    expect(parse({ action: 'subscribe', symbols: [{ symbol: 5, exchange: 'NSE' }] })).toMatchObject({
      code: 'INVALID_PARAMETERS',
      message: expect.stringContaining('symbols[0]'),
    });
    expect(parse({ action: 'subscribe', symbols: [one], depth: 0 })).toMatchObject({
      code: 'INVALID_PARAMETERS',
    });
  });

  it('a subscribe of more symbols than one message may carry is refused as a whole', () => {
    const many = Array.from({ length: PROTOCOL_LIMITS.symbolsPerMessage + 1 }, (_, i) => ({
      symbol: `S${i}`,
      exchange: 'NSE',
    }));
    expect(parse({ action: 'subscribe', symbols: many })).toMatchObject({
      code: 'INVALID_PARAMETERS',
      message: expect.stringContaining(`at most ${PROTOCOL_LIMITS.symbolsPerMessage}`),
    });
  });

  it('unsubscribe: the mode per entry (Quote by default), or the single form with a top-level mode', () => {
    expect(
      parse({
        action: 'unsubscribe',
        symbols: [
          { symbol: 'SBIN', exchange: 'NSE', mode: 'Depth' },
          { symbol: 'TCS', exchange: 'NSE' },
        ],
      }),
    ).toEqual({
      action: 'unsubscribe',
      symbols: [
        { symbol: 'SBIN', exchange: 'NSE', mode: 3 },
        { symbol: 'TCS', exchange: 'NSE', mode: 2 },
      ],
    });
    expect(parse({ action: 'unsubscribe', symbol: 'SBIN', exchange: 'NSE', mode: 1 })).toEqual({
      action: 'unsubscribe',
      symbols: [{ symbol: 'SBIN', exchange: 'NSE', mode: 1 }],
    });
    expect(parse({ action: 'unsubscribe_all' })).toEqual({ action: 'unsubscribe_all' });
  });

  it('ping echoes a small timestamp and _pingId; an oversized one is dropped, not echoed', () => {
    expect(parse({ action: 'ping', timestamp: 17, _pingId: 'a' })).toEqual({
      action: 'ping',
      timestamp: 17,
      pingId: 'a',
    });
    expect(parse({ action: 'ping', _pingId: 'x'.repeat(65) })).toEqual({ action: 'ping' });
  });

  it('malformed input: INVALID_JSON and INVALID_ACTION with a short printable echo', () => {
    expect(parse('{not json')).toEqual({
      status: 'error',
      code: 'INVALID_JSON',
      message: 'Invalid JSON message',
    });
    expect(parse('[1,2]')).toMatchObject({ code: 'INVALID_JSON' });
    expect(parse({ symbols: [] })).toMatchObject({ code: 'INVALID_ACTION', message: 'action is required' });
    const hostile = parse({ action: `drop\u0000table${'x'.repeat(100)}` });
    expect(hostile).toMatchObject({ code: 'INVALID_ACTION' });
    expect((hostile as { message: string }).message).toBe(`Invalid action: drop?table${'x'.repeat(30)}`);
  });
});

describe('feed protocol: market data by mode', () => {
  const tick: Tick = {
    ltp: 812.5,
    ltt: 1_764_300_000_000,
    timestamp: 1_764_300_000_500,
    open: 800,
    high: 815,
    low: 799,
    close: 805,
    volume: 1200,
    depth: {
      buy: [
        { price: 812.45, quantity: 10, orders: 2 },
        { price: 812.4, quantity: 5, orders: 1 },
      ],
      sell: [{ price: 812.55, quantity: 7, orders: 1 }],
    },
  };

  it('LTP carries ltp, ltt and timestamp only', () => {
    expect(tickData(tick, 1, 5)).toEqual({ ltp: 812.5, ltt: tick.ltt, timestamp: tick.timestamp });
  });

  it('Quote adds every quote field; what the source did not give is null; change from the previous close', () => {
    expect(tickData(tick, 2, 5)).toEqual({
      ltp: 812.5,
      ltt: tick.ltt,
      timestamp: tick.timestamp,
      open: 800,
      high: 815,
      low: 799,
      close: 805,
      volume: 1200,
      average_price: null,
      avg_trade_price: null,
      last_quantity: null,
      last_trade_quantity: null,
      total_buy_quantity: null,
      total_sell_quantity: null,
      oi: null,
      change: 7.5,
      change_percent: 0.93,
    });
    expect(tickData({ ltp: 1, ltt: null, timestamp: 1 }, 2, 5)).toMatchObject({
      close: null,
      change: null,
      change_percent: null,
    });
  });

  it('Depth adds the book, cut to the levels the subscriber asked for', () => {
    const d = tickData(tick, 3, 1) as { depth: { buy: unknown[]; sell: unknown[] } };
    expect(d.depth).toEqual({
      buy: [{ price: 812.45, quantity: 10, orders: 2 }],
      sell: [{ price: 812.55, quantity: 7, orders: 1 }],
    });
  });

  it('the market_data message names the instrument, the mode as a number and the broker', () => {
    expect(JSON.parse(marketDataMessage('SBIN', 'NSE', 1, 5, tick, 'simulated'))).toEqual({
      type: 'market_data',
      symbol: 'SBIN',
      exchange: 'NSE',
      mode: 1,
      data: { ltp: 812.5, ltt: tick.ltt, timestamp: tick.timestamp },
      broker: 'simulated',
    });
  });
});
