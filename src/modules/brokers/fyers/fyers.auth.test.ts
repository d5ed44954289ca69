/**
 * Fyers login against the loopback stub: the generate-authcode URL with the state, the
 * validate-authcode body (grant type, appIdHash = SHA-256 of `app_id:app_secret`, the code), the
 * session it yields (token, refresh token, client id and expiry from the token), refusals passed
 * through, and the PIN-bound refresh call.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BrokerLoginError } from '../http/broker-result.js';
import { closeAfterEach } from '../../../../test/helpers/broker-quote-fixtures.js';
import {
  FYERS,
  FYERS_CLIENT_ID,
  FYERS_SECRETS,
  FYERS_TOKEN_EXP_MS,
  setupFyers,
} from '../../../../test/helpers/fyers-fixtures.js';
import { fyersAppIdHash } from './fyers.auth.js';

closeAfterEach();

/** The login error `p` rejects with. */
async function loginError(p: Promise<unknown>): Promise<BrokerLoginError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BrokerLoginError);
  return err as BrokerLoginError;
}

describe('the browser leg: generate-authcode', () => {
  it('client_id, redirect_uri, response_type=code and the state', async () => {
    const { adapter } = await setupFyers({ loginBaseUrl: 'https://api-t1.fyers.in' });
    const url = new URL(adapter.loginUrl('st4te-9Xq'));
    expect(url.origin + url.pathname).toBe('https://api-t1.fyers.in/api/v3/generate-authcode');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: FYERS.appId,
      redirect_uri: 'https://algodesk.example/broker/callback',
      response_type: 'code',
      state: 'st4te-9Xq',
    });
    expect(url.toString()).not.toContain(FYERS.appSecret);
  });
});

describe('the code exchange: POST /api/v3/validate-authcode', () => {
  it('appIdHash is the SHA-256 hex of app_id:app_secret', () => {
    const want = createHash('sha256').update(`${FYERS.appId}:${FYERS.appSecret}`).digest('hex');
    expect(fyersAppIdHash(FYERS.appId, FYERS.appSecret)).toBe(want);
    // A fixed vector (the docs' sample app id with a made-up secret), computed once with Node.
    expect(fyersAppIdHash('SPXXXXE7-100', 'N12345678B')).toBe(
      '81d5515ec4f806a2aae0b9d3d1e7cf1cb6451742c37c44e218efdb81772f8d57',
    );
  });

  it('sends grant_type, the right appIdHash and the code; the session carries both tokens', async () => {
    const { stub, adapter, logs } = await setupFyers({ clock: { now: () => Date.UTC(2026, 10, 29, 11, 0) } });
    const r = await adapter.exchangeCode(FYERS.authCode);
    expect(stub.bodies('/api/v3/validate-authcode')).toEqual([
      { grant_type: 'authorization_code', appIdHash: 'exact', code: 'exact' },
    ]);
    expect(stub.requests[0]!.headers['content-type']).toBe('application/json');
    expect(r).toEqual({
      session: {
        accessToken: FYERS.accessToken,
        refreshToken: FYERS.refreshToken,
        brokerUserId: FYERS_CLIENT_ID,
      },
      expiresAt: FYERS_TOKEN_EXP_MS,
    });
    for (const s of FYERS_SECRETS) expect(logs()).not.toContain(s);
    expect(logs()).toContain('broker login succeeded');
  });

  it('a token without a readable exp lapses at the next 06:00 IST', async () => {
    const { stub, adapter } = await setupFyers({ clock: { now: () => Date.UTC(2026, 10, 29, 11, 0) } });
    stub.failNext(200, {
      s: 'ok',
      code: 200,
      message: '',
      access_token: 'opaqueFYtoken77',
      refresh_token: 'r',
    });
    // 2026-11-29 11:00 UTC is 16:30 IST: the next 06:00 IST is 2026-11-30 00:30 UTC.
    expect((await adapter.exchangeCode(FYERS.authCode)).expiresAt).toBe(Date.UTC(2026, 10, 30, 0, 30));
  });

  it('a wrong secret (so a wrong appIdHash) is refused with Fyers’ status and message', async () => {
    const { stub, adapter, logs } = await setupFyers({ apiSecret: 'fyWRONGsecret55' });
    const err = await loginError(adapter.exchangeCode(FYERS.authCode));
    expect(stub.bodies('/api/v3/validate-authcode')[0]).toMatchObject({ appIdHash: 'wrong', code: 'exact' });
    expect(err).toMatchObject({
      broker: 'fyers',
      httpStatus: 400,
      code: '-352',
      message: 'Fyers login failed: Invalid app id hash',
    });
    expect(logs()).not.toContain('fyWRONGsecret55');
  });

  it('a used code echoed in the refusal is masked; an "s":"error" with HTTP 200 gets its code’s status', async () => {
    const { stub, adapter } = await setupFyers();
    stub.failNext(400, { s: 'error', code: -17, message: `auth code ${FYERS.authCode} already used` });
    const err = await loginError(adapter.exchangeCode(FYERS.authCode));
    expect(err.message).toBe('Fyers login failed: auth code [redacted] already used');
    stub.failNext(200, { s: 'error', code: -16, message: 'Could not authenticate the user' });
    expect(await loginError(adapter.exchangeCode('eyJotherCODE42'))).toMatchObject({
      httpStatus: 401,
      code: '-16',
    });
    stub.failNext(200, { s: 'ok', code: 200, message: '' });
    expect(await loginError(adapter.exchangeCode('eyJotherCODE42'))).toMatchObject({
      httpStatus: 502,
      code: 'no_token',
    });
  });
});

describe('the refresh call: POST /api/v3/validate-refresh-token (needs the PIN)', () => {
  it('sends grant_type, appIdHash, the refresh token and the PIN; keeps the refresh token', async () => {
    const { stub, adapter, logs } = await setupFyers();
    const r = await adapter.refresh({ accessToken: 'old', refreshToken: FYERS.refreshToken }, FYERS.pin);
    expect(stub.bodies('/api/v3/validate-refresh-token')).toEqual([
      { grant_type: 'refresh_token', appIdHash: 'exact', refresh_token: 'exact', pin: 'exact' },
    ]);
    expect(r.session).toEqual({
      accessToken: FYERS.accessToken,
      refreshToken: FYERS.refreshToken,
      brokerUserId: FYERS_CLIENT_ID,
    });
    expect(logs()).not.toContain(FYERS.refreshToken);
  });

  it('a wrong PIN is refused with Fyers’ message; no refresh token is refused unsent', async () => {
    const { stub, adapter } = await setupFyers();
    expect(
      await loginError(adapter.refresh({ accessToken: 'a', refreshToken: FYERS.refreshToken }, '0000')),
    ).toMatchObject({
      httpStatus: 400,
      message: 'Fyers token refresh failed: Invalid pin',
    });
    expect(await loginError(adapter.refresh({ accessToken: 'a' }, FYERS.pin))).toMatchObject({
      httpStatus: 401,
      code: 'no_refresh_token',
    });
    expect(stub.requests).toHaveLength(1);
  });

  it('the adapter offers no unattended refreshSession (the PIN is never stored)', async () => {
    const { adapter } = await setupFyers();
    expect('refreshSession' in adapter).toBe(false);
  });
});
