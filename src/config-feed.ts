/**
 * The live feed's part of the configuration (docs/rules/market-data.md#feed-protocol), parsed by
 * `loadConfig` like every other variable. The WebSocket variables keep OpenAlgo's names, so an
 * OpenAlgo `.env` carries over.
 */
import type { RateRule } from './platform/rate-rule.js';

export interface FeedConfig {
  /** `WEBSOCKET_HOST` (default 127.0.0.1): where the feed's own port listens. */
  host: string;
  /** `WEBSOCKET_PORT` (default 8765, where OpenAlgo's SDK connects; 0: no port of its own). */
  port: number;
  /** `WEBSOCKET_URL`: the URL clients are told to use, when a proxy puts the feed elsewhere. */
  url: string | undefined;
  /** `FEED_MAX_CONNECTIONS` (default 1000): feed sockets open at once on one instance. */
  maxConnections: number;
  /** `FEED_MAX_SUBSCRIPTIONS_PER_SOCKET` (default 1000): (instrument, mode) pairs one socket may hold. */
  maxSubscriptionsPerSocket: number;
  /** `FEED_CONNECT_RATE_LIMIT` (default 30 per minute): new feed sockets per client address. */
  connectRate: RateRule[];
  /** `FEED_POLL_MS` (default 1000): how often analyzer mode's demo prices tick. */
  pollMs: number;
  /** `BROKER_FEED_URL`: the broker's tick-stream origin instead of its own (Kite's `wss://ws.kite.trade`; tests use a loopback stub). */
  brokerStreamUrl: string | undefined;
  /** `FEED_STALE_SECONDS` (default 30): a subscribed instrument in session without a tick this long is a stall. */
  staleMs: number;
}

/** `WEBSOCKET_URL`: a ws: or wss: URL, without a trailing slash. */
export function parseWebsocketUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error('must be a ws:// or wss:// URL');
  }
  if (u.protocol !== 'ws:' && u.protocol !== 'wss:') throw new Error('must be a ws:// or wss:// URL');
  return raw.replace(/\/+$/, '');
}
