/**
 * The market-data calls of `/api/v1` (OpenAlgo's Data API: quotes, multiquotes, depth, history):
 * the instrument is looked up in the master contract, the data asked from the source
 * broker-data-source.ts picks, and the answer shaped as OpenAlgo documents it
 * (docs/rules/market-data.md#openalgo-shapes).
 */
import { badRequest, notFound } from '../../platform/errors.js';
import type { Instrument } from '../market/instrument.js';
import type { PriceSource } from '../sandbox/prices/price-source.js';
import type { Quote } from '../sandbox/core/types.js';
import type {
  DepthLevel,
  HistoryInterval,
  MarketDataClient,
  MarketQuote,
} from '../brokers/quotes/quote-client.js';
import { brokerFailure, type BrokerDataSource } from './broker-data-source.js';
import type { CandleData, DepthData, MultiQuoteResult, QuoteData } from './market-data.schema.js';

export interface MarketDataDeps {
  /** The live master contract. */
  instrument: (symbol: string, exchange: string) => Promise<Instrument | undefined>;
  source: BrokerDataSource;
  /** The sandbox's price source now. */
  prices: () => PriceSource;
  /**
   * The live feed's quote of an instrument when a broker stream ticked it just now
   * (docs/rules/market-data.md#live-cache): answered without a broker round trip.
   */
  live?: (i: Instrument) => MarketQuote | undefined;
}

/** OpenAlgo's depth sides: five levels, padded with zero rows. */
const DEPTH_LEVELS = 5;

function levels(side: readonly DepthLevel[]): { price: number; quantity: number }[] {
  const out = side.slice(0, DEPTH_LEVELS).map((l) => ({ price: l.price, quantity: l.quantity }));
  while (out.length < DEPTH_LEVELS) out.push({ price: 0, quantity: 0 });
  return out;
}

/**
 * The circuit limits of a quote, null where it has none (a live-feed tick carries none;
 * docs/rules/market-data.md#circuit-limits). Always last in an answer.
 */
function circuits(q: Pick<MarketQuote, 'upperCircuit' | 'lowerCircuit'>): {
  upper_circuit: number | null;
  lower_circuit: number | null;
} {
  return { upper_circuit: q.upperCircuit ?? null, lower_circuit: q.lowerCircuit ?? null };
}

/** OpenAlgo's quote fields from a broker's full quote (or the live feed's), then the circuit limits. */
export function quoteData(q: MarketQuote): QuoteData {
  return {
    open: q.open,
    high: q.high,
    low: q.low,
    ltp: q.ltp,
    ask: q.asks[0]?.price ?? 0,
    bid: q.bids[0]?.price ?? 0,
    prev_close: q.prevClose,
    volume: q.volume,
    oi: q.oi,
    ...circuits(q),
  };
}

/**
 * OpenAlgo's quote fields from a sandbox quote: what the price source does not know is 0, and it
 * knows no circuit limits (null).
 */
function sandboxQuoteData(q: Quote): QuoteData {
  return {
    open: 0,
    high: q.high,
    low: q.low,
    ltp: q.ltp,
    ask: q.ask ?? 0,
    bid: q.bid ?? 0,
    prev_close: 0,
    volume: 0,
    oi: 0,
    ...circuits({}),
  };
}

export function depthData(q: MarketQuote): DepthData {
  return {
    open: q.open,
    high: q.high,
    low: q.low,
    ltp: q.ltp,
    ltq: q.ltq,
    prev_close: q.prevClose,
    volume: q.volume,
    oi: q.oi,
    totalbuyqty: q.totalBuyQty,
    totalsellqty: q.totalSellQty,
    asks: levels(q.asks),
    bids: levels(q.bids),
    ...circuits(q),
  };
}

export class MarketDataService {
  constructor(private readonly deps: MarketDataDeps) {}

  private async lookup(symbol: string, exchange: string): Promise<Instrument> {
    const i = await this.deps.instrument(symbol, exchange);
    if (!i) throw badRequest(`Symbol ${symbol} not found on exchange ${exchange} in the master contract`);
    return i;
  }

  /** The broker's full quote of one instrument (a 404 when the broker sent none); the live feed's when fresh. */
  private async brokerQuote(client: MarketDataClient, i: Instrument): Promise<MarketQuote> {
    const live = this.deps.live?.(i);
    if (live) return live;
    const got = await client.marketQuotes([i]).catch((err: unknown) => {
      throw brokerFailure(err);
    });
    const q = got.get(`${i.exchange}:${i.symbol}`);
    if (!q) throw notFound(`The broker returned no quote for ${i.exchange}:${i.symbol}`);
    return q;
  }

  /** The sandbox price source's quote of one instrument (a 404 when it knows no price). */
  private async sandboxQuote(i: Instrument): Promise<Quote> {
    const prices = this.deps.prices();
    const q = await prices.quote(i);
    if (!q) {
      const why = prices.noPriceReason?.(i) ?? 'the sandbox price source has no price for it';
      throw notFound(`No quote for ${i.exchange}:${i.symbol}: ${why}`);
    }
    return q;
  }

  async quote(userId: number, symbol: string, exchange: string): Promise<QuoteData> {
    const i = await this.lookup(symbol, exchange);
    const src = await this.deps.source.forUser(userId, 'Quotes', true);
    return src.kind === 'broker'
      ? quoteData(await this.brokerQuote(src.client, i))
      : sandboxQuoteData(await this.sandboxQuote(i));
  }

  /**
   * Quotes of many instruments (docs/rules/market-data.md#one-batched-call): one batched broker
   * call for all those the master contract knows
   * (the client splits only past the broker's 500); unknown symbols and instruments the broker
   * sent nothing for are results with an `error`, in the order asked.
   */
  async multiQuotes(
    userId: number,
    symbols: readonly { symbol: string; exchange: string }[],
  ): Promise<MultiQuoteResult[]> {
    const found = await Promise.all(symbols.map((s) => this.deps.instrument(s.symbol, s.exchange)));
    const src = await this.deps.source.forUser(userId, 'Quotes', true);
    const known = found.filter((i): i is Instrument => i !== undefined);
    let quotes: Map<string, QuoteData>;
    if (src.kind === 'broker') {
      quotes = new Map();
      const ask: Instrument[] = [];
      for (const i of known) {
        const live = this.deps.live?.(i);
        if (live) quotes.set(`${i.exchange}:${i.symbol}`, quoteData(live));
        else ask.push(i);
      }
      if (ask.length > 0) {
        const got = await src.client.marketQuotes(ask).catch((err: unknown) => {
          throw brokerFailure(err);
        });
        for (const [k, q] of got) quotes.set(k, quoteData(q));
      }
    } else {
      quotes = new Map();
      const prices = this.deps.prices();
      for (const i of known) {
        const q = await prices.quote(i);
        if (q) quotes.set(`${i.exchange}:${i.symbol}`, sandboxQuoteData(q));
      }
    }
    return symbols.map(({ symbol, exchange }, n) => {
      if (!found[n]) return { symbol, exchange, error: 'Symbol not found in the master contract' };
      const data = quotes.get(`${found[n].exchange}:${found[n].symbol}`);
      return data ? { symbol, exchange, data } : { symbol, exchange, error: 'No quote data' };
    });
  }

  async depth(userId: number, symbol: string, exchange: string): Promise<DepthData> {
    const i = await this.lookup(symbol, exchange);
    const src = await this.deps.source.forUser(userId, 'Depth', true);
    if (src.kind === 'broker') return depthData(await this.brokerQuote(src.client, i));
    // The sandbox knows the top of the book only: one level a side, the rest padded.
    const q = await this.sandboxQuote(i);
    const top = (price: number | undefined): DepthLevel[] =>
      price ? [{ price, quantity: 0, orders: 0 }] : [];
    const { ask: _ask, bid: _bid, upper_circuit: _u, lower_circuit: _l, ...ohlc } = sandboxQuoteData(q);
    return {
      ...ohlc,
      ltq: 0,
      totalbuyqty: 0,
      totalsellqty: 0,
      asks: levels(top(q.ask)),
      bids: levels(top(q.bid)),
      ...circuits({}),
    };
  }

  async history(
    userId: number,
    req: {
      symbol: string;
      exchange: string;
      interval: HistoryInterval;
      start_date: string;
      end_date: string;
    },
  ): Promise<CandleData[]> {
    if (req.start_date > req.end_date) throw badRequest('start_date is after end_date');
    const i = await this.lookup(req.symbol, req.exchange);
    const src = await this.deps.source.forUser(userId, 'History', false);
    if (src.kind !== 'broker') throw new Error('unreachable: history never answers from the sandbox');
    if (!src.client.intervals.includes(req.interval))
      throw badRequest(
        `interval ${req.interval} is not served by ${src.client.broker}; use one of ${src.client.intervals.join(', ')}`,
      );
    const candles = await src.client
      .history(i, req.interval, req.start_date, req.end_date)
      .catch((err: unknown) => {
        throw brokerFailure(err);
      });
    return candles.map((c) => ({
      timestamp: Math.floor(c.time / 1000),
      open: c.open,
      high: c.high,
      low: c.low,
      close: c.close,
      volume: c.volume,
      oi: c.oi,
    }));
  }
}
