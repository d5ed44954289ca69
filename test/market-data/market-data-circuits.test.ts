/**
 * The day's circuit limits in `/api/v1` quotes, multiquotes and depth
 * (`docs/rules/market-data.md#circuit-limits`), through the real app against a loopback Kite
 * Connect v3: Kite's `upper_circuit_limit` and `lower_circuit_limit` answered as `upper_circuit`
 * and `lower_circuit` after OpenAlgo's documented keys; Kite's 0, or no limit at all, is null; and
 * an answer from the live feed's cache (a tick carries no circuits) is null too.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Tick } from '../../src/modules/feed/feed.types.js';
import { kiteQuote } from '../helpers/broker-quote-stubs.js';
import { SBIN_TOKEN, useKiteMarketData } from '../helpers/market-data-world.js';

const QUOTE_KEYS = ['open', 'high', 'low', 'ltp', 'ask', 'bid', 'prev_close', 'volume', 'oi'];
const DEPTH_KEYS = [
  'open',
  'high',
  'low',
  'ltp',
  'ltq',
  'prev_close',
  'volume',
  'oi',
  'totalbuyqty',
  'totalsellqty',
  'asks',
  'bids',
];
const CIRCUIT_KEYS = ['upper_circuit', 'lower_circuit'];

const band = (data: Record<string, unknown>) => [data.upper_circuit, data.lower_circuit];

describe('circuit limits through Zerodha (Kite Connect v3 on loopback)', () => {
  const k = useKiteMarketData();
  afterEach(() => {
    vi.restoreAllMocks();
  });

  function quote(symbol: string, circuits: { upper?: number | null; lower?: number | null }): void {
    k.stub.quotes.set(
      `NSE:${symbol}`,
      kiteQuote({
        instrumentToken: symbol === 'SBIN' ? Number(SBIN_TOKEN) : 408065,
        lastPrice: 800,
        bids: [[799.9, 10]],
        asks: [[800.1, 20]],
        upperCircuitLimit: circuits.upper,
        lowerCircuitLimit: circuits.lower,
      }),
    );
  }

  it('quotes and depth pass Kite’s circuit limits through, after OpenAlgo’s documented keys', async () => {
    quote('SBIN', { upper: 880.05, lower: 720.05 });

    const q = await k.o.api('quotes', { symbol: 'SBIN', exchange: 'NSE' });
    expect(q.statusCode).toBe(200);
    expect(Object.keys(q.json().data)).toEqual([...QUOTE_KEYS, ...CIRCUIT_KEYS]);
    expect(band(q.json().data)).toEqual([880.05, 720.05]);

    const d = await k.o.api('depth', { symbol: 'SBIN', exchange: 'NSE' });
    expect(d.statusCode).toBe(200);
    expect(Object.keys(d.json().data)).toEqual([...DEPTH_KEYS, ...CIRCUIT_KEYS]);
    expect(band(d.json().data)).toEqual([880.05, 720.05]);
  });

  it('multiquotes: each item carries its own circuits; Kite’s 0 and a missing limit are null', async () => {
    quote('SBIN', { upper: 880.05, lower: 0 });
    quote('INFY', { upper: null, lower: null });

    const res = await k.o.api('multiquotes', {
      symbols: [
        { symbol: 'SBIN', exchange: 'NSE' },
        { symbol: 'INFY', exchange: 'NSE' },
      ],
    });

    expect(res.statusCode).toBe(200);
    const [sbin, infy] = res.json().results as { data: Record<string, unknown> }[];
    expect(Object.keys(sbin!.data)).toEqual([...QUOTE_KEYS, ...CIRCUIT_KEYS]);
    expect(band(sbin!.data)).toEqual([880.05, null]);
    expect(band(infy!.data)).toEqual([null, null]);
  });

  it('an answer from the live feed’s fresh Depth tick has null circuits (ticks carry none); Kite is not asked', async () => {
    quote('SBIN', { upper: 880.05, lower: 720.05 });
    const tick: Tick = {
      ltp: 801,
      ltt: Date.now(),
      timestamp: Date.now(),
      open: 795,
      high: 805,
      low: 790,
      close: 798,
      volume: 1000,
      last_quantity: 5,
      total_buy_quantity: 100,
      total_sell_quantity: 200,
      oi: 0,
      depth: {
        buy: [{ price: 800.9, quantity: 10, orders: 1 }],
        sell: [{ price: 801.1, quantity: 20, orders: 2 }],
      },
    };
    vi.spyOn(k.o.t.app.feed.hub, 'latest').mockImplementation((exchange, symbol) =>
      exchange === 'NSE' && symbol === 'SBIN' ? { tick, mode: 3, receivedAt: Date.now() } : undefined,
    );
    const before = k.stub.requests.length;

    const q = await k.o.api('quotes', { symbol: 'SBIN', exchange: 'NSE' });
    const d = await k.o.api('depth', { symbol: 'SBIN', exchange: 'NSE' });
    const m = await k.o.api('multiquotes', { symbols: [{ symbol: 'SBIN', exchange: 'NSE' }] });

    expect(k.stub.requests.length).toBe(before);
    expect(q.json().data).toMatchObject({ ltp: 801, prev_close: 798 });
    expect(Object.keys(q.json().data)).toEqual([...QUOTE_KEYS, ...CIRCUIT_KEYS]);
    expect(band(q.json().data)).toEqual([null, null]);
    expect(Object.keys(d.json().data)).toEqual([...DEPTH_KEYS, ...CIRCUIT_KEYS]);
    expect(band(d.json().data)).toEqual([null, null]);
    expect(band(m.json().results[0].data)).toEqual([null, null]);
  });
});
