/**
 * Which upstream the install's state asks for (docs/rules/market-data.md#feed-sources): the live
 * broker's own stream (Kite Ticker, Upstox's v3 feed, Dhan's live market feed with the session's
 * client id, Angel One's SmartStream with its feed token, Fyers' data socket, the Noren OMS's
 * WebSocket for Shoonya and Flattrade) under the newest session of the preferred broker, keyed by a digest of its token so a renewed
 * token rebuilds it, or analyzer mode's demo prices when there is no session of the configured
 * broker. The {@link SourceSwitch} asks this every few seconds and on a stall.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { BrokerSessionsService } from '../brokers/broker-sessions.service.js';
import type { PriceSource } from '../sandbox/prices/price-source.js';
import { SandboxTickSource } from './sandbox-ticks.js';
import type { SourceChoice } from './source-switch.js';
import { AngelStreamSource } from './sources/angel-stream.js';
import { DhanFeedSource } from './sources/dhan-feed.js';
import { FyersStreamSource } from './sources/fyers-stream.js';
import { KiteTickerSource } from './sources/kite-ticker.js';
import { NorenStreamSource } from './sources/noren-stream.js';
import { UpstoxFeedSource } from './sources/upstox-feed.js';

/** Instruments the demo source polls at once. */
const DEMO_MAX_INSTRUMENTS = 5000;

export function upstreamChooser(deps: {
  config: Config;
  sessions: BrokerSessionsService;
  /** The broker whose stream the feed takes (`BROKER_NAME`, else the live contract's). */
  preferredBroker: () => string | undefined;
  /** The API key of a broker app (the session's: `BROKER_API_KEY` for the bootstrap app, id 0). */
  apiKey: (appId: number) => string | undefined;
  /** The sandbox's price source now (the demo prices). */
  prices: () => PriceSource;
  logger: Logger;
}): () => SourceChoice {
  const { config, sessions, logger } = deps;
  const demo = (): SourceChoice => ({
    key: 'sandbox',
    make: () =>
      new SandboxTickSource({
        prices: deps.prices,
        everyMs: config.feed.pollMs,
        maxSubscriptions: DEMO_MAX_INSTRUMENTS,
        logger,
      }),
  });
  return () => {
    const primary = sessions.primarySession();
    if (!primary || primary.broker !== deps.preferredBroker()) return demo();
    const apiKey = deps.apiKey(primary.appId);
    const accessToken = primary.session.accessToken;
    const key = `${primary.broker}:${createHash('sha256').update(accessToken).digest('hex').slice(0, 16)}`;
    if (primary.broker === 'zerodha' && apiKey)
      return {
        key,
        make: () =>
          new KiteTickerSource({
            apiKey,
            accessToken,
            ...(config.feed.brokerStreamUrl ? { url: config.feed.brokerStreamUrl } : {}),
            logger,
          }),
      };
    const url = config.feed.brokerStreamUrl ? { url: config.feed.brokerStreamUrl } : {};
    const brokerUserId = primary.session.brokerUserId;
    if (primary.broker === 'dhan' && brokerUserId)
      return {
        key,
        make: () => new DhanFeedSource({ clientId: brokerUserId, accessToken, ...url, logger }),
      };
    const feedToken = primary.session.feedToken;
    if (primary.broker === 'angel' && apiKey && brokerUserId && feedToken)
      return {
        key,
        make: () =>
          new AngelStreamSource({
            apiKey,
            clientCode: brokerUserId,
            jwt: accessToken,
            feedToken,
            ...url,
            logger,
          }),
      };
    if ((primary.broker === 'shoonya' || primary.broker === 'flattrade') && brokerUserId)
      return {
        key,
        make: () =>
          new NorenStreamSource({
            name: primary.broker,
            userId: brokerUserId,
            token: accessToken,
            ...url,
            logger,
          }),
      };
    if (primary.broker === 'fyers' && apiKey)
      return {
        key,
        make: () => new FyersStreamSource({ appId: apiKey, accessToken, ...url, logger }),
      };
    if (primary.broker === 'upstox')
      return {
        key,
        make: () =>
          new UpstoxFeedSource({
            accessToken: () => sessions.primarySession()?.session.accessToken,
            ...(config.broker.baseUrl ? { apiBaseUrl: config.broker.baseUrl } : {}),
            logger,
          }),
      };
    return demo();
  };
}
