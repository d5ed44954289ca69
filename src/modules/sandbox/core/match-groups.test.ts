import { describe, expect, it } from 'vitest';
import { matchGroups, matchPass } from './rules.js';
import { quoteKey, type Quote, type RestingOrder } from './types.js';

const NOW = Date.UTC(2026, 0, 5, 5, 0, 0);
const opts = { now: NOW, maxQuoteAgeMs: 60_000 };

/** 40 instruments × 6 orders of every kind and status, deterministic. */
function book(): { orders: RestingOrder[]; quotes: Map<string, Quote> } {
  const orders: RestingOrder[] = [];
  const quotes = new Map<string, Quote>();
  for (let i = 0; i < 40; i++) {
    const symbol = `SYM${i}`;
    const ltp = 100 + i;
    // Every fifth quote is stale, every seventh outside its day range.
    quotes.set(quoteKey('NSE', symbol), {
      ltp,
      bid: ltp - 0.05,
      ask: ltp + 0.05,
      high: i % 7 === 0 ? ltp - 1 : ltp + 2,
      low: ltp - 2,
      timestamp: i % 5 === 0 ? NOW - 120_000 : NOW,
    });
    for (let j = 0; j < 6; j++) {
      const side = j % 2 === 0 ? 'BUY' : 'SELL';
      const priceType = (['LIMIT', 'SL', 'SL-M', 'LIMIT', 'MARKET', 'SL'] as const)[j]!;
      const px = (ltp + (j - 3)) * 10_000;
      orders.push({
        id: `${i}-${j}`,
        symbol,
        exchange: 'NSE',
        side,
        priceType,
        quantity: 1 + j,
        price: priceType === 'SL-M' || priceType === 'MARKET' ? 0 : px,
        triggerPrice: priceType.startsWith('SL') ? px : 0,
        status: priceType.startsWith('SL') ? 'trigger pending' : 'open',
      });
    }
  }
  return { orders, quotes };
}

describe('matching orders grouped by instrument gives the same outcome as the per-order pass', () => {
  it('fills, triggers and held orders are identical, in the same order', () => {
    const { orders, quotes } = book();
    const groups = [...quotes].map(
      ([key, q]) => [q, orders.filter((o) => quoteKey(o.exchange, o.symbol) === key)] as const,
    );
    const grouped = matchGroups(groups, opts);
    const flat = matchPass(
      groups.flatMap(([, os]) => os),
      quotes,
      opts,
    );
    expect(grouped).toEqual(flat);
    expect(grouped.fills.length).toBeGreaterThan(0);
    expect(grouped.triggered.length).toBeGreaterThan(0);
    expect(grouped.held.length).toBeGreaterThan(0);
  });
});
