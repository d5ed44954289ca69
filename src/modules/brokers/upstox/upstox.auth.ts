/**
 * Upstox v2 login (upstox.com/developer/api-documentation/authorize, get-token): the browser goes
 * to `https://api.upstox.com/v2/login/authorization/dialog?response_type=code&client_id=…
 * &redirect_uri=…&state=…`; the callback gets a single-use `code`, which
 * `POST /v2/login/authorization/token` (form: code, client_id, client_secret, redirect_uri,
 * grant_type=authorization_code) exchanges for `access_token` and `user_id` at the top level of
 * the answer. As OpenAlgo's broker/upstox/api/auth_api.py does. The token lapses at the next
 * 03:30 IST ("until 3:30 AM the following day, regardless of the time it was generated").
 */
import type { LoginResult } from '../broker-adapter.js';
import { BrokerLoginError, formBody, loginAnswer, nextIstTime } from '../http/broker-result.js';
import type { BrokerAdapterOptions, OrderTransport } from '../http/order-transport.js';
import { readUpstoxError } from './upstox.mapping.js';

/** Where Upstox serves the login dialog. */
export const UPSTOX_LOGIN_BASE_URL = 'https://api.upstox.com';

/** Where the browser logs in; `state` is echoed to the redirect URL. */
export function upstoxLoginUrl(opts: BrokerAdapterOptions, state: string): string {
  const url = new URL('/v2/login/authorization/dialog', opts.loginBaseUrl ?? UPSTOX_LOGIN_BASE_URL);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', opts.apiKey);
  url.searchParams.set('redirect_uri', opts.redirectUrl);
  url.searchParams.set('state', state);
  return url.toString();
}

/** Exchanges an authorization `code`; throws a {@link BrokerLoginError} with a sanitised message. */
export async function upstoxExchange(
  http: OrderTransport,
  opts: BrokerAdapterOptions,
  code: string,
): Promise<LoginResult> {
  const secrets = [code, opts.apiSecret, opts.apiKey];
  const spec = {
    broker: 'upstox',
    label: 'Upstox',
    secrets,
    readError: readUpstoxError,
    logger: opts.logger,
  };
  const outcome = await http.send({
    method: 'POST',
    path: '/v2/login/authorization/token',
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: formBody({
      code,
      client_id: opts.apiKey,
      client_secret: opts.apiSecret,
      redirect_uri: opts.redirectUrl,
      grant_type: 'authorization_code',
    }),
  });
  const body = loginAnswer(outcome, spec);
  const accessToken = body.access_token;
  if (typeof accessToken !== 'string' || accessToken === '') {
    const status = outcome.kind === 'answer' ? outcome.status : 502;
    opts.logger?.warn({ broker: 'upstox', status }, 'broker login answered without an access token');
    throw new BrokerLoginError('upstox', status, 'no_token', 'Upstox login answered without an access token');
  }
  const userId = typeof body.user_id === 'string' && body.user_id !== '' ? body.user_id : undefined;
  opts.logger?.info({ broker: 'upstox', brokerUserId: userId }, 'broker login exchanged');
  const now = (opts.clock ?? Date).now();
  return { session: { accessToken, brokerUserId: userId }, expiresAt: nextIstTime(now, 3, 30) };
}
