/**
 * Angel One SmartAPI login (smartapi.angelone.in/docs/User): no browser redirect. The user's
 * client code, PIN and the current TOTP go to
 * `POST /rest/auth/angelbroking/user/v1/loginByPassword` as `{"clientcode","password","totp"}`
 * (the PIN travels in `password`), with the app's API key in `X-PrivateKey`; the answer's `data`
 * holds `jwtToken` (the access token, sent as `Authorization: Bearer …`), `refreshToken` and
 * `feedToken` (the SmartStream feed's). `POST /rest/auth/angelbroking/jwt/v1/generateTokens` with
 * `{"refreshToken"}` (and the current JWT as Bearer, as Angel's SDKs send it) renews all three.
 * As OpenAlgo's broker/angel/api/auth_api.py does.
 *
 * Every SmartAPI call carries `X-UserType: USER`, `X-SourceID: WEB`, `X-ClientLocalIP`,
 * `X-ClientPublicIP`, `X-MACAddress` and `X-PrivateKey` ({@link angelHeaders}).
 *
 * Expiry: Angel's sessions end at midnight IST (SmartAPI forum: "log in daily and create a new
 * JWT token daily"); the session's `expiresAt` is the earlier of the next IST midnight and the
 * JWT's own `exp` claim, when it has one.
 */
import type { LoginResult } from '../broker-adapter.js';
import { BrokerLoginError, jwtExpiry, loginAnswer, nextIstTime } from '../http/broker-result.js';
import { OrderTransport, type BrokerAdapterOptions, type HttpOutcome } from '../http/order-transport.js';
import { angelErrorStatus, isAngelRateLimitText, isAngelSuccess, readAngelError } from './angel.mapping.js';
import { sanitize } from '../quotes/quote-transport.js';

/** SmartAPI's origin (older: apiconnect.angelbroking.com). */
export const ANGEL_BASE_URL = 'https://apiconnect.angelone.in';

export const ANGEL_LOGIN_PATH = '/rest/auth/angelbroking/user/v1/loginByPassword';
export const ANGEL_REFRESH_PATH = '/rest/auth/angelbroking/jwt/v1/generateTokens';

/** What the adapter, the login and the quote client take: the contract's options and Angel's headers. */
export interface AngelOptions extends BrokerAdapterOptions {
  /** `X-ClientLocalIP` (default 127.0.0.1). */
  clientLocalIp?: string;
  /** `X-ClientPublicIP` (default 127.0.0.1; Angel checks it against the app's static IP for orders). */
  clientPublicIp?: string;
  /** `X-MACAddress` (default 00:00:00:00:00:00). */
  macAddress?: string;
}

/** The user's login: client code, PIN and the TOTP of this moment. */
export interface AngelCredentials {
  clientCode: string;
  pin: string;
  totp: string;
}

/**
 * A SmartAPI session: the JWT as the access token, with the refresh token (renews the JWT) and the
 * feed token (SmartStream) in the session, and the expiry always stated.
 */
export interface AngelLoginResult extends LoginResult {
  expiresAt: number;
}

/** The headers of every SmartAPI call; `jwt` adds `Authorization: Bearer …`. */
export function angelHeaders(
  opts: Pick<AngelOptions, 'apiKey' | 'clientLocalIp' | 'clientPublicIp' | 'macAddress'>,
  jwt?: string,
): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    'x-usertype': 'USER',
    'x-sourceid': 'WEB',
    'x-clientlocalip': opts.clientLocalIp ?? '127.0.0.1',
    'x-clientpublicip': opts.clientPublicIp ?? '127.0.0.1',
    'x-macaddress': opts.macAddress ?? '00:00:00:00:00:00',
    'x-privatekey': opts.apiKey,
  };
  if (jwt !== undefined) headers.authorization = `Bearer ${jwt}`;
  return headers;
}

/**
 * The session in a token answer; any refusal throws a {@link BrokerLoginError} with Angel's
 * message (never a PIN, TOTP or token) and a status by its error code.
 */
function readSession(
  outcome: HttpOutcome,
  opts: AngelOptions,
  what: 'login' | 'token refresh',
  secrets: readonly (string | undefined)[],
  brokerUserId: string | undefined,
): AngelLoginResult {
  const spec = {
    broker: 'angel',
    label: 'Angel One',
    secrets,
    readError: readAngelError,
    logger: opts.logger,
  };
  if (outcome.kind === 'answer' && outcome.json === undefined && isAngelRateLimitText(outcome.text))
    return fail(429, 'rate_limited', `Angel One ${what} failed: the access rate was exceeded`);
  const body = loginAnswer(outcome, spec); // transport failures and HTTP errors throw here
  const status = outcome.kind === 'answer' ? outcome.status : 502;
  const data = (
    isAngelSuccess(body) && typeof body.data === 'object' && body.data !== null ? body.data : {}
  ) as Record<string, unknown>;
  const jwt = data.jwtToken;
  const refreshToken = data.refreshToken;
  if (!isAngelSuccess(body) || typeof jwt !== 'string' || jwt === '' || typeof refreshToken !== 'string') {
    const said = readAngelError(body);
    if (isAngelSuccess(body) || (said.code === undefined && said.message === undefined))
      return fail(status === 200 ? 502 : status, 'no_token', `Angel One ${what} answered without a token`);
    const text = said.message ? sanitize(said.message, secrets) : 'refused';
    return fail(angelErrorStatus(said.code), said.code ?? 'refused', `Angel One ${what} failed: ${text}`);
  }
  const feedToken = typeof data.feedToken === 'string' && data.feedToken !== '' ? data.feedToken : undefined;
  const now = (opts.clock ?? Date).now();
  const midnight = nextIstTime(now, 0, 0);
  const exp = jwtExpiry(jwt);
  const expiresAt = exp !== undefined && exp > now ? Math.min(exp, midnight) : midnight;
  opts.logger?.info({ broker: 'angel', brokerUserId }, `broker ${what} succeeded`);
  return {
    session: {
      accessToken: jwt,
      ...(brokerUserId !== undefined ? { brokerUserId } : {}),
      refreshToken,
      ...(feedToken ? { feedToken } : {}),
    },
    expiresAt,
  };

  function fail(httpStatus: number, code: string, message: string): never {
    opts.logger?.warn(
      { broker: 'angel', status: httpStatus, code, reason: message },
      `broker ${what} failed`,
    );
    throw new BrokerLoginError('angel', httpStatus, code, message);
  }
}

/** Runs `fn` over `http`, or over a transport of its own closed afterwards. */
async function withTransport<T>(
  opts: AngelOptions,
  http: OrderTransport | undefined,
  fn: (t: OrderTransport) => Promise<T>,
): Promise<T> {
  if (http) return fn(http);
  const own = new OrderTransport('angel', 'Angel One', opts.baseUrl ?? ANGEL_BASE_URL, {
    ...opts,
    keepWarmMs: 0,
  });
  try {
    return await fn(own);
  } finally {
    await own.close();
  }
}

/**
 * Logs in with client code, PIN and TOTP (`loginByPassword`). Throws a {@link BrokerLoginError}
 * (Angel's status mapping: 401 for a wrong PIN/TOTP session refusal, 400 otherwise, 502/504 for
 * transport failures) whose message never holds the PIN, the TOTP or a token.
 */
export async function angelLogin(
  opts: AngelOptions,
  creds: AngelCredentials,
  http?: OrderTransport,
): Promise<AngelLoginResult> {
  const outcome = await withTransport(opts, http, (t) =>
    t.send({
      method: 'POST',
      path: ANGEL_LOGIN_PATH,
      headers: angelHeaders(opts),
      body: JSON.stringify({ clientcode: creds.clientCode, password: creds.pin, totp: creds.totp }),
    }),
  );
  const secrets = [creds.pin, creds.totp, opts.apiKey, opts.apiSecret];
  return readSession(outcome, opts, 'login', secrets, creds.clientCode);
}

/**
 * Renews the session with its refresh token (`generateTokens`); `accessToken` is the current JWT
 * when there is one. The answer holds a new JWT, refresh token and feed token.
 */
export async function angelRefresh(
  opts: AngelOptions,
  tokens: { refreshToken: string; accessToken?: string; brokerUserId?: string },
  http?: OrderTransport,
): Promise<AngelLoginResult> {
  const jwt = tokens.accessToken === undefined || tokens.accessToken === '' ? undefined : tokens.accessToken;
  const outcome = await withTransport(opts, http, (t) =>
    t.send({
      method: 'POST',
      path: ANGEL_REFRESH_PATH,
      headers: angelHeaders(opts, jwt),
      body: JSON.stringify({ refreshToken: tokens.refreshToken }),
    }),
  );
  const secrets = [tokens.refreshToken, jwt, opts.apiKey, opts.apiSecret];
  return readSession(outcome, opts, 'token refresh', secrets, tokens.brokerUserId);
}

/** What `loginUrl`/`exchangeCode` answer: Angel has no redirect login. */
export const ANGEL_NO_REDIRECT = 'Angel One logs in with client code, PIN and TOTP, not a redirect';
