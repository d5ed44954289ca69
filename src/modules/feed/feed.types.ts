/**
 * The live feed's vocabulary (docs/rules/market-data.md#feed-sources): the three modes OpenAlgo's
 * WebSocket protocol knows, a tick as every source hands it over, and the {@link TickSource}
 * interface each upstream implements (a broker's tick stream, the simulated and scripted demo
 * prices). Prices are rupees, as on the wire.
 */
import type { PricedInstrument } from '../sandbox/prices/price-source.js';

/** 1 = LTP, 2 = Quote, 3 = Depth: a higher mode carries everything a lower one does. */
export type FeedMode = 1 | 2 | 3;

export const MODE_NAMES: Readonly<Record<FeedMode, 'LTP' | 'Quote' | 'Depth'>> = {
  1: 'LTP',
  2: 'Quote',
  3: 'Depth',
};

/** An instrument as the upstreams need it: the master contract's fields the sandbox's price sources use too. */
export type FeedInstrument = PricedInstrument;

/** One price level of the book; `quantity` and `orders` are null when the source does not know them. */
export interface DepthLevel {
  price: number;
  quantity: number | null;
  orders: number | null;
}

/**
 * One update of one instrument. `ltp`, `timestamp` always; the rest when the source gave it
 * (a field it did not give is `null` on the wire, never an invented 0).
 */
export interface Tick {
  ltp: number;
  /** Last trade time, epoch ms (null when the source does not say). */
  ltt: number | null;
  /** When the tick was taken, epoch ms. */
  timestamp: number;
  open?: number | null;
  high?: number | null;
  low?: number | null;
  /** Previous close. */
  close?: number | null;
  volume?: number | null;
  average_price?: number | null;
  last_quantity?: number | null;
  total_buy_quantity?: number | null;
  total_sell_quantity?: number | null;
  oi?: number | null;
  depth?: { buy: DepthLevel[]; sell: DepthLevel[] };
}

/** `EXCHANGE:SYMBOL`, the key ticks travel under. */
export const feedKey = (exchange: string, symbol: string): string => `${exchange}:${symbol}`;

/** Receives each tick of a subscribed instrument, with the mode the upstream sent it in. */
export type TickListener = (key: string, mode: FeedMode, tick: Tick) => void;

/** What a source says of its connection (the watchdog and the subscribers are told). */
export type SourceStatus = 'live' | 'stale' | 'down';

/**
 * An upstream of ticks. The hub subscribes each (instrument, mode) once, however many sockets ask
 * for it, and unsubscribes it when the last one leaves; a source never sees a duplicate.
 */
export interface TickSource {
  /** Named in acks and `get_broker_info` (`zerodha`, `upstox`, `simulated`, `scripted`). */
  readonly name: string;
  /** The most (instrument, mode) subscriptions the upstream allows at once. */
  readonly maxSubscriptions: number;
  /** Demo prices (simulated, scripted) move only when their walk or script says: no watchdog. */
  readonly demo?: boolean;
  subscribe(instrument: FeedInstrument, mode: FeedMode): void;
  unsubscribe(instrument: FeedInstrument, mode: FeedMode): void;
  onTick(listener: TickListener): () => void;
  /** The session user's order updates the broker's stream carries (Kite's order postbacks), when it does. */
  onOrder?(listener: (update: BrokerOrderUpdate) => void): () => void;
  start(): void;
  stop(): Promise<void>;
}

/**
 * An order update as a broker's stream gives it, in OpenAlgo's words but the broker's symbol: the
 * feed maps the instrument (by token) to the master contract's symbol and exchange.
 */
export interface BrokerOrderUpdate {
  orderid: string;
  token: string;
  brsymbol: string;
  brexchange: string;
  action: string;
  quantity: number;
  price: number;
  trigger_price: number;
  pricetype: string;
  product: string;
  /** OpenAlgo's status words: open, complete, cancelled, rejected, trigger pending. */
  order_status: string;
  filled_quantity: number;
  pending_quantity: number;
  average_price: number;
  rejection_reason: string;
}
