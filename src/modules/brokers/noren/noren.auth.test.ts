/**
 * The Noren logins against the loopback stub (test/helpers/broker-order-stub-noren.ts): Shoonya's
 * QuickAuth form login (the jData with the documented SHA-256 hashes), Flattrade's login page and
 * request-code exchange (SHA-256 of api key + request code + secret), each variant refusing the
 * other's way, and refusals carrying the broker's `emsg` but never a password, TOTP, code or token.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BrokerLoginError } from '../http/broker-result.js';
import { FakeClock } from '../../../platform/clock.js';
import { flattradeSecretHash, norenExpiry, quickAuthData, sha256 } from './noren.auth.js';
import { closeAfterEach } from '../../../../test/helpers/broker-quote-fixtures.js';
import { NorenStub } from '../../../../test/helpers/broker-order-stub-noren.js';
import {
  FLATTRADE_CREDS,
  SHOONYA_CREDS,
  setupNoren,
  VARIANTS,
} from '../../../../test/helpers/noren-fixtures.js';

closeAfterEach();

const [SHOONYA_V, FLATTRADE_V] = VARIANTS as [(typeof VARIANTS)[number], (typeof VARIANTS)[number]];
// 2026-08-18 10:00 IST: the next 05:00 IST is 2026-08-18T23:30Z.
const NOW = Date.UTC(2026, 7, 18, 4, 30);
const NEXT_5AM = Date.UTC(2026, 7, 18, 23, 30);
const LOGIN = { user_id: SHOONYA_CREDS.userId, password: SHOONYA_CREDS.password, totp: SHOONYA_CREDS.totp };

async function refusal(p: Promise<unknown>): Promise<BrokerLoginError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BrokerLoginError);
  return err as BrokerLoginError;
}

describe('hashes', () => {
  it('are hex SHA-256 as the docs define them', () => {
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const data = quickAuthData(
      { apiKey: 'VC1', apiSecret: 'KEY' },
      { userId: 'U1', password: 'pw', totp: '123456' },
    );
    expect(data).toEqual({
      apkversion: '1.0.0',
      uid: 'U1',
      pwd: createHash('sha256').update('pw').digest('hex'),
      factor2: '123456',
      vc: 'VC1',
      appkey: createHash('sha256').update('U1|KEY').digest('hex'),
      imei: 'abc1234',
      source: 'API',
    });
    expect(flattradeSecretHash('k', 'c', 's')).toBe(createHash('sha256').update('kcs').digest('hex'));
    expect(norenExpiry(NOW)).toBe(NEXT_5AM);
  });
});

describe('Shoonya: QuickAuth form login', () => {
  it('posts jData (no jKey) with the hashed password and appkey, and returns the token and user', async () => {
    const { stub, adapter } = await setupNoren(SHOONYA_V, { clock: new FakeClock(NOW), imei: 'mac-1' });
    expect(adapter.loginFields?.map((f) => [f.name, f.secret])).toEqual([
      ['user_id', false],
      ['password', true],
      ['totp', true],
    ]);
    const r = await adapter.loginWith(LOGIN);
    expect(r).toEqual({
      session: { accessToken: stub.currentToken, brokerUserId: SHOONYA_CREDS.userId },
      expiresAt: NEXT_5AM,
    });
    expect(stub.currentToken).not.toBe(SHOONYA_CREDS.token);
    const [req] = stub.requests;
    expect(req!.path).toBe('/NorenWClientTP/QuickAuth');
    expect(req!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(stub.credentialOf(req!)).toBe('absent');
    expect(NorenStub.jData(req!)).toEqual({
      apkversion: '1.0.0',
      uid: SHOONYA_CREDS.userId,
      pwd: sha256(SHOONYA_CREDS.password),
      factor2: SHOONYA_CREDS.totp,
      vc: SHOONYA_CREDS.apiKey,
      appkey: sha256(`${SHOONYA_CREDS.userId}|${SHOONYA_CREDS.apiSecret}`),
      imei: 'mac-1',
      source: 'API',
    });
    expect(req!.body).not.toContain(SHOONYA_CREDS.password);
    expect(req!.body).not.toContain(SHOONYA_CREDS.apiSecret);
  });

  it.each([
    [
      'a wrong password',
      { password: 'nope-nope' },
      'Shoonya login failed: Invalid Input : Wrong Password',
      401,
    ],
    ['a wrong TOTP', { totp: '111111' }, 'Shoonya login failed: Invalid Input : Invalid OTP', 401],
  ])(
    'refuses %s with the broker emsg and no secret in message or logs',
    async (_n, change, message, status) => {
      const { adapter, logs } = await setupNoren(SHOONYA_V);
      const values = { ...LOGIN, ...change };
      const err = await refusal(adapter.loginWith(values));
      expect(err.message).toBe(message);
      expect(err.httpStatus).toBe(status);
      for (const secret of [values.password, values.totp, sha256(values.password), SHOONYA_CREDS.apiSecret])
        expect(`${err.message}${logs()}`).not.toContain(secret);
      expect(logs()).toContain('broker login failed');
    },
  );

  it('has no redirect login', async () => {
    const { adapter } = await setupNoren(SHOONYA_V);
    expect(() => adapter.loginUrl('s')).toThrow(/not a redirect/);
    expect((await refusal(adapter.exchangeCode('c'))).httpStatus).toBe(400);
  });

  it('a transport failure is 502 without any secret', async () => {
    const { adapter, stub } = await setupNoren(SHOONYA_V);
    await stub.close();
    const err = await refusal(adapter.loginWith(LOGIN));
    expect(err.httpStatus).toBe(502);
    expect(err.message).not.toContain(SHOONYA_CREDS.password);
  });
});

describe('Flattrade: login page and request-code exchange', () => {
  it('sends the browser to the login page with the API key (and the state)', async () => {
    const { adapter, stub } = await setupNoren(FLATTRADE_V);
    const url = new URL(adapter.loginUrl('u1.123.mac'));
    expect(`${url.origin}${url.pathname}`).toBe(`${stub.url}/login/`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      app_key: FLATTRADE_CREDS.apiKey,
      state: 'u1.123.mac',
    });
    expect(adapter.loginFields).toBeUndefined();
    expect((await refusal(adapter.loginWith(LOGIN))).httpStatus).toBe(400);
  });

  it('the default login page is auth.flattrade.in', async () => {
    const { adapter } = await setupNoren(FLATTRADE_V, { loginBaseUrl: undefined });
    expect(adapter.loginUrl('st')).toBe(
      `https://auth.flattrade.in/?app_key=${FLATTRADE_CREDS.apiKey}&state=st`,
    );
  });

  it('exchanges the code: JSON with api_secret = SHA-256(key + code + secret); the token and client', async () => {
    const { adapter, stub } = await setupNoren(FLATTRADE_V, { clock: new FakeClock(NOW) });
    const r = await adapter.exchangeCode(FLATTRADE_CREDS.requestCode);
    expect(r).toEqual({
      session: { accessToken: stub.currentToken, brokerUserId: FLATTRADE_CREDS.userId },
      expiresAt: NEXT_5AM,
    });
    const [req] = stub.requests;
    expect(req!.path).toBe('/trade/apitoken');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req!.body)).toEqual({
      api_key: FLATTRADE_CREDS.apiKey,
      request_code: FLATTRADE_CREDS.requestCode,
      api_secret: sha256(
        `${FLATTRADE_CREDS.apiKey}${FLATTRADE_CREDS.requestCode}${FLATTRADE_CREDS.apiSecret}`,
      ),
    });
    expect(req!.body).not.toContain(FLATTRADE_CREDS.apiSecret);
  });

  it('refuses a wrong code with the emsg, never the code, secret or its hash', async () => {
    const { adapter, logs } = await setupNoren(FLATTRADE_V);
    const err = await refusal(adapter.exchangeCode('wrong-code-123'));
    expect(err.message).toBe('Flattrade login failed: Invalid request code');
    const hash = flattradeSecretHash(FLATTRADE_CREDS.apiKey, 'wrong-code-123', FLATTRADE_CREDS.apiSecret);
    for (const s of ['wrong-code-123', FLATTRADE_CREDS.apiSecret, hash])
      expect(`${err.message}${logs()}`).not.toContain(s);
  });

  it('refuses a wrong app secret', async () => {
    const { adapter } = await setupNoren(FLATTRADE_V, { apiSecret: 'another-secret' });
    expect((await refusal(adapter.exchangeCode(FLATTRADE_CREDS.requestCode))).message).toBe(
      'Flattrade login failed: Invalid API secret',
    );
  });
});
