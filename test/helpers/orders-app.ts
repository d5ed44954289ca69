/**
 * An app for the order-placement tests: the real app on a database of its own with one live
 * broker configured against its loopback stub (test/helpers/broker-order-stubs.ts), a master
 * contract cut from the real snapshots in test/fixtures/market, the administrator logged in with an
 * API key and a broker session, a scripted (empty) price feed so the sandbox never asks the
 * broker for quotes, and every order event captured as it is dispatched.
 */
import { ANGEL_CREDS } from './broker-order-stub-angel.js';
import { DHAN } from './dhan-fixtures.js';
import { FYERS, FYERS_CLIENT_ID } from './fyers-fixtures.js';
import { FLATTRADE_CREDS, SHOONYA_CREDS } from './noren-fixtures.js';
import type { Broker } from '../../src/domain/brokers.js';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { OrderEvent } from '../../src/modules/orders/order-events.js';
import { ScriptedFeed } from '../../src/modules/sandbox/prices/price-source.js';
import type { Dialect } from '../../src/platform/db/database.js';
import { importContract } from './contracts.js';
import { marketFixture } from './market-fixtures.js';
import { startKiteOrderStub, type KiteOrderStub } from './broker-order-stubs.js';
import {
  appWithAdmin,
  asBrowser,
  createUser,
  login,
  type Browser,
  type TestApp,
  type TestAppOptions,
} from './test-app.js';

/** What the Kite stub accepts (distinctive, so a leak into a row or a log is caught). */
export const KITE_CREDS = {
  apiKey: 'kiteORDERSkey31',
  apiSecret: 'kiteORDERSsecret47',
  accessToken: 'kiteORDERStoken59',
};
/** What the Upstox stub accepts. */
export const UPSTOX_CREDS = {
  clientId: 'upstoxORDERSclient31',
  clientSecret: 'upstoxORDERSsecret47',
  redirectUri: 'http://127.0.0.1:5000/upstox/callback',
  accessToken: 'eyJupstoxORDERStoken59',
};

/**
 * Rows of the real Kite snapshots (NSE 2025-10-06, NFO/BFO 2026-08-18) whose `tradingsymbol` is
 * one of `symbols`, as one Kite instruments CSV.
 */
export function kiteContract(symbols: readonly string[]): Buffer {
  const nse = readFileSync(marketFixture('zerodha', 'kite_instruments_NSE_2025-10-06.csv'), 'utf8').split(
    '\n',
  );
  const fo = readFileSync(marketFixture('zerodha', 'kite_instruments_NFO_BFO_2026-08-18.csv'), 'utf8');
  const rows = [...nse.slice(1), ...fo.split('\n').slice(1)].filter((l) =>
    symbols.includes(l.split(',')[2] ?? ''),
  );
  if (rows.length !== symbols.length) throw new Error(`kite cut: ${rows.length} of ${symbols.length} rows`);
  return Buffer.from([nse[0], ...rows].join('\n') + '\n');
}

let upstoxLines: string[] | undefined;
/**
 * Rows of the real Upstox `complete.csv.gz` of 2026-02-05 whose `instrument_key` is one of
 * `keys`, as a plain Upstox CSV (header first).
 */
export function upstoxContract(keys: readonly string[]): Buffer {
  upstoxLines ??= gunzipSync(readFileSync(marketFixture('upstox', 'upstox_complete_2026-02-05.csv.gz')))
    .toString('utf8')
    .split('\n');
  const wanted = new Set(keys.map((k) => `"${k}"`));
  const rows = upstoxLines.filter((l) => wanted.has(l.slice(0, l.indexOf(','))));
  if (rows.length !== keys.length) throw new Error(`upstox cut: ${rows.length} of ${keys.length} rows`);
  return Buffer.from([upstoxLines[0], ...rows].join('\n') + '\n');
}

export interface OrdersAppOptions extends TestAppOptions {
  broker: Broker;
  stubUrl: string;
  /** The master contract imported as the live one (whose broker is `broker`). */
  contract: Buffer;
  /** Broker timeout (ms) for the adapter's calls; default 2000. */
  timeoutMs?: number;
}

export interface OrdersApp {
  t: TestApp;
  admin: Browser;
  /** The administrator's API key (user 1). */
  apikey: string;
  /** The sandbox's scripted price feed (empty until a test pushes quotes). */
  feed: ScriptedFeed;
  /** Every order event dispatched since start, in dispatch order. */
  events: OrderEvent[];
  /**
   * POSTs `/api/v1/<path>` with the key in the body (`apikey: null` leaves it out) from `ip`
   * (by default a fresh address per call, so only a test that means to meets the order limit).
   */
  api(
    path: string,
    body: Record<string, unknown>,
    opts?: { apikey?: string | null; ip?: string },
  ): Promise<LightMyRequestResponse>;
  /** A session route as the administrator's browser (cookie + CSRF). */
  web(
    method: InjectOptions['method'],
    url: string,
    payload?: Record<string, unknown>,
  ): Promise<LightMyRequestResponse>;
  /** The rows of a log table, oldest first, once every published event is delivered. */
  logs(table: 'order_logs' | 'analyzer_logs'): Promise<Record<string, unknown>[]>;
  /** Switches the service's mode through the administrator's route (no-op when already there). */
  setMode(analyze: boolean): Promise<void>;
  close(): Promise<void>;
}

const NOREN = { shoonya: SHOONYA_CREDS, flattrade: FLATTRADE_CREDS };

let ipSeq = 0;
/** A private address not used before in this process (each call its own rate-limit window). */
export const freshIp = (): string => {
  const n = ++ipSeq;
  return `10.77.${(n >> 8) & 255}.${n & 255}`;
};

export async function startOrdersApp(dialect: Dialect, opts: OrdersAppOptions): Promise<OrdersApp> {
  const creds: Record<string, string> =
    opts.broker === 'zerodha'
      ? {
          BROKER_API_KEY: KITE_CREDS.apiKey,
          BROKER_API_SECRET: KITE_CREDS.apiSecret,
          BROKER_REDIRECT_URL: 'http://127.0.0.1:5000/zerodha/callback',
        }
      : opts.broker === 'upstox'
        ? {
            BROKER_API_KEY: UPSTOX_CREDS.clientId,
            BROKER_API_SECRET: UPSTOX_CREDS.clientSecret,
            BROKER_REDIRECT_URL: UPSTOX_CREDS.redirectUri,
          }
        : opts.broker === 'angel'
          ? { BROKER_API_KEY: ANGEL_CREDS.apiKey }
          : opts.broker === 'fyers'
            ? {
                BROKER_API_KEY: FYERS.appId,
                BROKER_API_SECRET: FYERS.appSecret,
                BROKER_REDIRECT_URL: 'http://127.0.0.1:5000/fyers/callback',
              }
            : opts.broker === 'shoonya' || opts.broker === 'flattrade'
              ? {
                  BROKER_API_KEY: NOREN[opts.broker].apiKey,
                  BROKER_API_SECRET: NOREN[opts.broker].apiSecret,
                  BROKER_REDIRECT_URL: 'http://127.0.0.1:5000/flattrade/callback',
                }
              : {}; // Dhan: the pasted access token is the whole credential
  const { t, admin } = await appWithAdmin(dialect, {
    ...opts,
    env: {
      BROKER_NAME: opts.broker,
      ...creds,
      BROKER_API_BASE_URL: opts.stubUrl,
      BROKER_TIMEOUT_MS: String(opts.timeoutMs ?? 2_000),
      API_RATE_LIMIT: '100000 per second',
      ORDER_RATE_LIMIT: '100000 per second',
      ...opts.env,
    },
  });
  await importContract(t, opts.broker, opts.contract);
  const apikey = (await t.services.auth.apiKeys.regenerate(1)).apikey;
  const session =
    opts.broker === 'zerodha'
      ? { accessToken: KITE_CREDS.accessToken }
      : opts.broker === 'upstox'
        ? { accessToken: UPSTOX_CREDS.accessToken }
        : opts.broker === 'angel'
          ? {
              accessToken: ANGEL_CREDS.jwt,
              brokerUserId: ANGEL_CREDS.clientCode,
              refreshToken: ANGEL_CREDS.refreshToken,
              feedToken: ANGEL_CREDS.feedToken,
            }
          : opts.broker === 'fyers'
            ? {
                accessToken: FYERS.accessToken,
                brokerUserId: FYERS_CLIENT_ID,
                refreshToken: FYERS.refreshToken,
              }
            : opts.broker === 'shoonya' || opts.broker === 'flattrade'
              ? { accessToken: NOREN[opts.broker].token, brokerUserId: NOREN[opts.broker].userId }
              : { accessToken: DHAN.accessToken, brokerUserId: DHAN.clientId };
  await t.services.brokers.sessions.set(1, opts.broker, session);
  const feed = new ScriptedFeed();
  await t.services.sandbox.usePriceSource(feed);
  const events: OrderEvent[] = [];
  t.services.orders.events.subscribe('test-capture', (e) => void events.push(e));

  const web: OrdersApp['web'] = (method, url, payload) =>
    t.app.inject({ method, url, headers: asBrowser(admin), ...(payload ? { payload } : {}) });
  return {
    t,
    admin,
    apikey,
    feed,
    events,
    api: (path, body, o = {}) => {
      const key = o.apikey === undefined ? apikey : o.apikey;
      return t.app.inject({
        method: 'POST',
        url: `/api/v1/${path}`,
        remoteAddress: o.ip ?? freshIp(),
        payload: { ...(key === null ? {} : { apikey: key }), ...body },
      });
    },
    web,
    async logs(table) {
      await t.services.orders.events.whenIdle();
      return t.db.database.db.selectFrom(table).selectAll().orderBy('id').execute();
    },
    async setMode(analyze) {
      if (t.services.sandbox.mode.analyze === analyze) return;
      const res = await web('POST', `/settings/analyze-mode/${analyze ? 1 : 0}`);
      if (res.statusCode !== 200) throw new Error(`analyze mode: ${res.statusCode} ${res.body}`);
    },
    close: () => t.close(),
  };
}

/**
 * The common live set-up: a loopback Kite Connect stub and an orders app on the Zerodha adapter
 * with the given symbols in its master contract.
 */
export async function startKiteOrders(
  dialect: Dialect,
  symbols: readonly string[] = ['SBIN'],
  opts: Partial<OrdersAppOptions> = {},
): Promise<{ stub: KiteOrderStub; o: OrdersApp }> {
  const stub = await startKiteOrderStub(KITE_CREDS);
  const o = await startOrdersApp(dialect, {
    broker: 'zerodha',
    stubUrl: stub.url,
    contract: kiteContract(symbols),
    ...opts,
  });
  return { stub, o };
}

/** Another user beside the administrator: their id, API key and a logged-in browser. */
export async function secondUser(
  o: OrdersApp,
  username = 'bob',
): Promise<{ id: number; apikey: string; browser: Browser }> {
  const password = `${username} horse battery staple`;
  const { id } = await createUser(o.t, username, password);
  const browser = await login(o.t, username, password);
  return { id, apikey: (await o.t.services.auth.apiKeys.regenerate(id)).apikey, browser };
}
