/**
 * Logins of the two Noren brokers (noren.mapping.ts), both ending in the `susertoken` every later
 * call sends as `jKey`:
 *
 * - Shoonya, `POST <base>/QuickAuth` with `jData={"apkversion","uid","pwd","factor2","vc","appkey",
 *   "imei","source":"API"}` and no `jKey` (NorenApi-Py README "login"; OpenAlgo
 *   broker/shoonya/api/auth_api.py): `pwd` is the SHA-256 (hex) of the password, `factor2` the
 *   TOTP, `vc` the vendor code, `appkey` the SHA-256 of `uid|<API key>`. Answer
 *   `{"stat":"Ok","susertoken",…}` or `{"stat":"Not_Ok","emsg":"Invalid Input : Wrong Password"}`.
 *   The app's two values travel as OpenAlgo's `BROKER_API_KEY` / `BROKER_API_SECRET` do:
 *   {@link BrokerAdapterOptions.apiKey} is the vendor code (`vc`), `apiSecret` the API key that is
 *   hashed into `appkey` (the secret one; it never leaves this process but hashed).
 * - Flattrade (pi.flattrade.in docs "Authentication"): the browser goes to
 *   `https://auth.flattrade.in/?app_key=<API key>`, the user logs in there, the portal redirects to
 *   the app's registered URL with `request_code` (OpenAlgo reads it as `code`), which
 *   `POST https://authapi.flattrade.in/trade/apitoken` `{"api_key","request_code","api_secret"}`
 *   exchanges (JSON; `api_secret` is the SHA-256 of api key + request code + API secret) for
 *   `{"token","client","status":"Ok","emsg":""}` (OpenAlgo reads `stat`: both are accepted).
 *   The docs state no `state` parameter: {@link norenLoginUrl} appends the state as
 *   `&state=`, which the portal is not documented to pass back.
 *
 * Expiry: Flattrade's tokens "are cleared between 5 AM and 6 AM" (its docs); Shoonya documents
 * none, and is given the same (the next 05:00 IST). Refusals throw a {@link BrokerLoginError}
 * with the broker's `emsg` and never the password, TOTP, hashes, request code or token.
 */
import { createHash } from 'node:crypto';
import type { LoginResult } from '../broker-adapter.js';
import { BrokerLoginError, loginAnswer, nextIstTime } from '../http/broker-result.js';
import { OrderTransport, type BrokerAdapterOptions, type HttpOutcome } from '../http/order-transport.js';
import { sanitize } from '../quotes/quote-transport.js';
import { str } from '../http/book-fields.js';
import { norenErrorStatus, norenForm, readNorenError, type NorenVariant } from './noren.mapping.js';

/** The adapter's options: the contract's, the device id QuickAuth wants, the token host for tests. */
export interface NorenOptions extends BrokerAdapterOptions {
  /** QuickAuth's `imei` (default `abc1234`, as OpenAlgo sends it). */
  imei?: string;
  /** Flattrade's request-code exchange URL (default `/trade/apitoken` on `baseUrl` when set, else the variant's). */
  tokenUrl?: string;
}

/** A Noren session: the token as the access token, the user id, the expiry always stated. */
export interface NorenLoginResult extends LoginResult {
  expiresAt: number;
}

/** The user's QuickAuth login. */
export interface NorenCredentials {
  userId: string;
  password: string;
  totp: string;
}

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export const NOREN_FORM_HEADERS = { 'content-type': 'application/x-www-form-urlencoded' } as const;

/** When a Noren token stops working: the next 05:00 IST (Flattrade's daily clearing). */
export const norenExpiry = (now: number): number => nextIstTime(now, 5, 0);

/** The jData of QuickAuth for `creds` under the app's vendor code (`apiKey`) and API key (`apiSecret`). */
export function quickAuthData(
  opts: Pick<NorenOptions, 'apiKey' | 'apiSecret' | 'imei'>,
  c: NorenCredentials,
) {
  return {
    apkversion: '1.0.0',
    uid: c.userId,
    pwd: sha256(c.password),
    factor2: c.totp,
    vc: opts.apiKey,
    appkey: sha256(`${c.userId}|${opts.apiSecret}`),
    imei: opts.imei ?? 'abc1234',
    source: 'API',
  };
}

/** Runs `fn` over `http`, or over a transport of its own to `base`, closed afterwards. */
async function withTransport<T>(
  variant: NorenVariant,
  opts: NorenOptions,
  base: string,
  http: OrderTransport | undefined,
  fn: (t: OrderTransport) => Promise<T>,
): Promise<T> {
  if (http) return fn(http);
  const own = new OrderTransport(variant.name, variant.label, base, { ...opts, keepWarmMs: 0 });
  try {
    return await fn(own);
  } finally {
    await own.close();
  }
}

/** The session of a login answer whose token sits in `tokenField`; any refusal throws. */
function readSession(
  variant: NorenVariant,
  opts: NorenOptions,
  outcome: HttpOutcome,
  tokenField: 'susertoken' | 'token',
  secrets: readonly (string | undefined)[],
  userId: string | undefined,
): NorenLoginResult {
  const fail = (httpStatus: number, code: string, message: string): never => {
    opts.logger?.warn(
      { broker: variant.name, status: httpStatus, code, reason: message },
      'broker login failed',
    );
    throw new BrokerLoginError(variant.name, httpStatus, code, message);
  };
  const body = loginAnswer(outcome, {
    broker: variant.name,
    label: variant.label,
    secrets,
    readError: readNorenError,
    logger: opts.logger,
  });
  const ok = [body.stat, body.status].some((s) => str(s).toLowerCase() === 'ok');
  const token = body[tokenField];
  const said = readNorenError(body).message;
  if (!ok || typeof token !== 'string' || token === '') {
    if (ok || said === undefined)
      return fail(502, 'no_token', `${variant.label} login answered without a token`);
    return fail(
      norenErrorStatus(said),
      'refused',
      `${variant.label} login failed: ${sanitize(said, secrets)}`,
    );
  }
  const user = userId ?? (str(body.client, body.actid, body.uid) || undefined);
  if (user === undefined) return fail(502, 'no_user', `${variant.label} login answered without a client id`);
  opts.logger?.info({ broker: variant.name, brokerUserId: user }, 'broker login succeeded');
  return {
    session: { accessToken: token, brokerUserId: user },
    expiresAt: norenExpiry((opts.clock ?? Date).now()),
  };
}

/** Shoonya's QuickAuth over `http` (the adapter's pool) or a transport of its own. */
export async function norenQuickAuth(
  variant: NorenVariant,
  opts: NorenOptions,
  creds: NorenCredentials,
  http?: OrderTransport,
): Promise<NorenLoginResult> {
  const data = quickAuthData(opts, creds);
  const outcome = await withTransport(variant, opts, opts.baseUrl ?? variant.baseUrl, http, (t) =>
    t.send({ method: 'POST', path: '/QuickAuth', headers: NOREN_FORM_HEADERS, body: norenForm(data) }),
  );
  const secrets = [creds.password, data.pwd, creds.totp, data.appkey, opts.apiSecret];
  return readSession(variant, opts, outcome, 'susertoken', secrets, creds.userId);
}

/** Flattrade's browser login: the portal with the API key (and the state, see the file comment). */
export function norenLoginUrl(variant: NorenVariant, opts: NorenOptions, state: string): string {
  const page = opts.loginBaseUrl ?? variant.loginPage ?? '';
  const url = new URL(page);
  url.searchParams.set('app_key', opts.apiKey);
  url.searchParams.set('state', state);
  return url.toString();
}

/** Flattrade's `api_secret` of the token exchange: SHA-256 of api key + request code + secret. */
export const flattradeSecretHash = (apiKey: string, code: string, apiSecret: string): string =>
  sha256(`${apiKey}${code}${apiSecret}`);

/** Exchanges Flattrade's request code for the token (`POST …/trade/apitoken`, JSON). */
export async function norenExchangeCode(
  variant: NorenVariant,
  opts: NorenOptions,
  code: string,
): Promise<NorenLoginResult> {
  // A replaced API origin (`BROKER_API_BASE_URL`: another deployment, a test server) serves the
  // token exchange too; otherwise the variant's own auth origin.
  const target = new URL(
    opts.tokenUrl ??
      (opts.baseUrl ? new URL('/trade/apitoken', opts.baseUrl).href : (variant.tokenUrl ?? '')),
  );
  const hash = flattradeSecretHash(opts.apiKey, code, opts.apiSecret);
  const body = JSON.stringify({ api_key: opts.apiKey, request_code: code, api_secret: hash });
  const outcome = await withTransport(variant, opts, target.origin, undefined, (t) =>
    t.send({
      method: 'POST',
      path: target.pathname,
      headers: { 'content-type': 'application/json' },
      body,
    }),
  );
  return readSession(variant, opts, outcome, 'token', [code, hash, opts.apiSecret], undefined);
}
