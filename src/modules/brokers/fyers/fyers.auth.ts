/**
 * Fyers API v3 login (myapi.fyers.in/docsv3 "Authentication & Login Flow - User Apps", "Refresh
 * Token"): the browser goes to `GET https://api-t1.fyers.in/api/v3/generate-authcode?client_id=
 * <app id>&redirect_uri=…&response_type=code&state=…`; after the user logs in Fyers redirects to
 * the app's redirect URL with `auth_code` and the same `state`. `POST /api/v3/validate-authcode`
 * with JSON `{"grant_type":"authorization_code","appIdHash":<SHA-256 hex of "app_id:app_secret">,
 * "code":<auth_code>}` answers `{"s":"ok","code":200,"message":"","access_token","refresh_token"}`.
 * As OpenAlgo's broker/fyers/api/auth_api.py does. Every later call carries
 * `Authorization: <app_id>:<access_token>`.
 *
 * Expiry: the docs' sample access token is a JWT issued 16:36 IST whose `exp` is 06:00 IST the
 * next morning; the session's `expiresAt` is the token's own `exp` when readable, else the next
 * 06:00 IST. Its `fy_id` claim (the Fyers client id) is the session's broker user id.
 *
 * Refresh: `POST /api/v3/validate-refresh-token` with `{"grant_type":"refresh_token","appIdHash",
 * "refresh_token","pin"}` renews the access token while the refresh token lives (15 days). It
 * needs the user's PIN, which algodesk never stores, so it cannot run unattended:
 * {@link fyersRefresh} is offered as a call (the adapter's `refresh`), and the contract's automatic
 * `refreshSession` is deliberately not implemented.
 *
 * A refusal (`"s":"error"` with a negative `code`, at any HTTP status) is a
 * {@link BrokerLoginError} with Fyers' message; neither the code, the secret, the hash, the PIN
 * nor a token ever appears in a message or a log line.
 */
import { createHash } from 'node:crypto';
import type { LoginResult } from '../broker-adapter.js';
import { BrokerLoginError, jwtExpiry, loginAnswer, nextIstTime } from '../http/broker-result.js';
import type { BrokerAdapterOptions, HttpOutcome, OrderTransport } from '../http/order-transport.js';
import { sanitize } from '../quotes/quote-transport.js';
import { FYERS_API, FYERS_BASE_URL, fyersErrorStatus, isFyersOk, readFyersError } from './fyers.mapping.js';

export const FYERS_LOGIN_PATH = `${FYERS_API}/generate-authcode`;
export const FYERS_TOKEN_PATH = `${FYERS_API}/validate-authcode`;
export const FYERS_REFRESH_PATH = `${FYERS_API}/validate-refresh-token`;

/** `appIdHash`: SHA-256 (hex) of `app_id:app_secret`. */
export function fyersAppIdHash(appId: string, appSecret: string): string {
  return createHash('sha256').update(`${appId}:${appSecret}`).digest('hex');
}

/** Where the browser logs in; `state` is echoed to the redirect URL with the `auth_code`. */
export function fyersLoginUrl(opts: BrokerAdapterOptions, state: string): string {
  const url = new URL(FYERS_LOGIN_PATH, opts.loginBaseUrl ?? opts.baseUrl ?? FYERS_BASE_URL);
  url.searchParams.set('client_id', opts.apiKey);
  url.searchParams.set('redirect_uri', opts.redirectUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('state', state);
  return url.toString();
}

/** The claims of a JWT's payload ({} when unreadable). */
function jwtClaims(jwt: string): Record<string, unknown> {
  try {
    const claims: unknown = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The session in a token answer; see the file comment. */
function readSession(
  outcome: HttpOutcome,
  opts: BrokerAdapterOptions,
  what: 'login' | 'token refresh',
  secrets: readonly (string | undefined)[],
  keepRefreshToken?: string,
): LoginResult {
  const fail = (httpStatus: number, code: string, message: string): never => {
    opts.logger?.warn(
      { broker: 'fyers', status: httpStatus, code, reason: message },
      `broker ${what} failed`,
    );
    throw new BrokerLoginError('fyers', httpStatus, code, message);
  };
  if (outcome.kind === 'answer' && (outcome.status < 200 || outcome.status >= 300)) {
    const said = readFyersError(outcome.json);
    const text = said.message ? sanitize(said.message, secrets) : `HTTP ${outcome.status}`;
    return fail(outcome.status, said.code ?? `http_${outcome.status}`, `Fyers ${what} failed: ${text}`);
  }
  const spec = { broker: 'fyers', label: 'Fyers', secrets, readError: readFyersError, logger: opts.logger };
  const body = loginAnswer(outcome, spec); // transport failures throw here
  const status = outcome.kind === 'answer' ? outcome.status : 502;
  const access = body.access_token;
  if (!isFyersOk(body) || typeof access !== 'string' || access === '') {
    const said = readFyersError(body);
    if (isFyersOk(body) || said.message === undefined)
      return fail(
        status === 200 ? 502 : status,
        'no_token',
        `Fyers ${what} answered without an access token`,
      );
    return fail(
      fyersErrorStatus(said.code),
      said.code ?? 'refused',
      `Fyers ${what} failed: ${sanitize(said.message, secrets)}`,
    );
  }
  const refresh =
    typeof body.refresh_token === 'string' && body.refresh_token !== '' ? body.refresh_token : undefined;
  const fyId = jwtClaims(access).fy_id;
  const brokerUserId = typeof fyId === 'string' && fyId !== '' ? fyId : undefined;
  const now = (opts.clock ?? Date).now();
  const exp = jwtExpiry(access);
  const expiresAt = exp !== undefined && exp > now ? exp : nextIstTime(now, 6, 0);
  const refreshToken = refresh ?? keepRefreshToken;
  opts.logger?.info({ broker: 'fyers', brokerUserId }, `broker ${what} succeeded`);
  return {
    session: {
      accessToken: access,
      ...(brokerUserId !== undefined ? { brokerUserId } : {}),
      ...(refreshToken !== undefined ? { refreshToken } : {}),
    },
    expiresAt,
  };
}

const JSON_HEADERS = { accept: 'application/json', 'content-type': 'application/json' };

/** Exchanges the callback's `auth_code` (validate-authcode); throws a {@link BrokerLoginError}. */
export async function fyersExchange(
  http: OrderTransport,
  opts: BrokerAdapterOptions,
  code: string,
): Promise<LoginResult> {
  const appIdHash = fyersAppIdHash(opts.apiKey, opts.apiSecret);
  const outcome = await http.send({
    method: 'POST',
    path: FYERS_TOKEN_PATH,
    headers: JSON_HEADERS,
    body: JSON.stringify({ grant_type: 'authorization_code', appIdHash, code }),
  });
  return readSession(outcome, opts, 'login', [code, appIdHash, opts.apiSecret]);
}

/**
 * Renews the access token with the refresh token and the user's PIN (validate-refresh-token); the
 * refresh token stays the session's (Fyers answers only a new access token).
 */
export async function fyersRefresh(
  http: OrderTransport,
  opts: BrokerAdapterOptions,
  tokens: { refreshToken: string; pin: string },
): Promise<LoginResult> {
  const appIdHash = fyersAppIdHash(opts.apiKey, opts.apiSecret);
  const outcome = await http.send({
    method: 'POST',
    path: FYERS_REFRESH_PATH,
    headers: JSON_HEADERS,
    body: JSON.stringify({
      grant_type: 'refresh_token',
      appIdHash,
      refresh_token: tokens.refreshToken,
      pin: tokens.pin,
    }),
  });
  const secrets = [tokens.refreshToken, tokens.pin, appIdHash, opts.apiSecret];
  return readSession(outcome, opts, 'token refresh', secrets, tokens.refreshToken);
}
