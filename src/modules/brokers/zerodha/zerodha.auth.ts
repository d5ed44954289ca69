/**
 * Kite Connect v3 login (kite.trade/docs/connect/v3/user): the browser goes to
 * `https://kite.zerodha.com/connect/login?v=3&api_key=…`, with `redirect_params` (a URL-encoded
 * query string, sent back to the redirect URL) carrying algodesk's `state`; the callback gets a
 * single-use `request_token`, which `POST /session/token` (form: api_key, request_token,
 * checksum = SHA-256 hex of api_key + request_token + api_secret; header X-Kite-Version: 3)
 * exchanges for `data.access_token` and `data.user_id`. As OpenAlgo's
 * broker/zerodha/api/auth_api.py does. The token lapses at 06:00 IST the next morning.
 */
import { createHash } from 'node:crypto';
import type { LoginResult } from '../broker-adapter.js';
import { BrokerLoginError, formBody, loginAnswer, nextIstTime } from '../http/broker-result.js';
import type { BrokerAdapterOptions, OrderTransport } from '../http/order-transport.js';
import { readKiteError } from './zerodha.mapping.js';

/** Kite's login page origin. */
export const KITE_LOGIN_BASE_URL = 'https://kite.zerodha.com';

/** Where the browser logs in; `state` comes back to the redirect URL as `state=…`. */
export function kiteLoginUrl(apiKey: string, state: string, loginBaseUrl = KITE_LOGIN_BASE_URL): string {
  const url = new URL('/connect/login', loginBaseUrl);
  url.searchParams.set('v', '3');
  url.searchParams.set('api_key', apiKey);
  url.searchParams.set('redirect_params', new URLSearchParams({ state }).toString());
  return url.toString();
}

/** The documented checksum: SHA-256 hex of api_key + request_token + api_secret. */
export function kiteChecksum(apiKey: string, requestToken: string, apiSecret: string): string {
  return createHash('sha256')
    .update(apiKey + requestToken + apiSecret)
    .digest('hex');
}

/** Exchanges a `request_token`; throws a {@link BrokerLoginError} with a sanitised message. */
export async function kiteExchange(
  http: OrderTransport,
  opts: BrokerAdapterOptions,
  requestToken: string,
): Promise<LoginResult> {
  const checksum = kiteChecksum(opts.apiKey, requestToken, opts.apiSecret);
  const secrets = [requestToken, opts.apiSecret, opts.apiKey, checksum];
  const spec = {
    broker: 'zerodha',
    label: 'Zerodha',
    secrets,
    readError: readKiteError,
    logger: opts.logger,
  };
  const outcome = await http.send({
    method: 'POST',
    path: '/session/token',
    headers: { 'x-kite-version': '3', 'content-type': 'application/x-www-form-urlencoded' },
    body: formBody({ api_key: opts.apiKey, request_token: requestToken, checksum }),
  });
  const body = loginAnswer(outcome, spec);
  const data = (typeof body.data === 'object' && body.data !== null ? body.data : {}) as Record<
    string,
    unknown
  >;
  const accessToken = data.access_token;
  if (body.status !== 'success' || typeof accessToken !== 'string' || accessToken === '') {
    const status = outcome.kind === 'answer' ? outcome.status : 502;
    opts.logger?.warn({ broker: 'zerodha', status }, 'broker login answered without an access token');
    throw new BrokerLoginError(
      'zerodha',
      status,
      'no_token',
      'Zerodha login answered without an access token',
    );
  }
  const userId = typeof data.user_id === 'string' && data.user_id !== '' ? data.user_id : undefined;
  opts.logger?.info({ broker: 'zerodha', brokerUserId: userId }, 'broker login exchanged');
  const now = (opts.clock ?? Date).now();
  return { session: { accessToken, brokerUserId: userId }, expiresAt: nextIstTime(now, 6, 0) };
}
