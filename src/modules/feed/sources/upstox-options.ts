/**
 * What an Upstox stream client is built from (the market-data feed, upstox-feed.ts, and the order
 * stream, upstox-orders.ts, take the same session, origin and backoff): kept apart so the two
 * clients depend on this, not on each other.
 */
import type { Logger } from 'pino';

export interface UpstoxBackoff {
  /** First wait after a failure, ms (default 1,000). */
  initialMs?: number;
  /** Longest wait, ms (default 30,000). */
  maxMs?: number;
  /** Growth per failure (default 2). */
  factor?: number;
  /** Random extra of up to this fraction of the wait (default 0.2), so clients do not retry in step. */
  jitter?: number;
}

export interface UpstoxFeedOptions {
  /** The user's Upstox access token, or how to read the current one (undefined: no session). */
  accessToken: string | (() => string | undefined | Promise<string | undefined>);
  /** Default `https://api.upstox.com`. A `ws://` feed URL is accepted only when this is `http:`. */
  apiBaseUrl?: string;
  logger: Logger;
  backoff?: UpstoxBackoff;
  /** Default: the global fetch (undici). */
  fetch?: typeof fetch;
  /** Bound of the authorize call and of the WebSocket handshake, ms (default 10,000). */
  timeoutMs?: number;
  /** Our own keep-alive ping, ms (default 30,000); a ping unanswered by the next one drops the socket. */
  pingIntervalMs?: number;
  /** An open socket with no frame for this long is `stale`, ms (default 60,000). */
  staleAfterMs?: number;
  /** Default `UPSTOX_MAX_INSTRUMENTS` (upstox-feed.ts). */
  maxSubscriptions?: number;
  /** Epoch ms now (default Date.now). */
  now?: () => number;
}
