/**
 * Angel One login against the loopback SmartAPI (test/helpers/broker-order-stub-angel.ts):
 * loginByPassword and generateTokens bodies and headers, the session's expiry, refusals with
 * Angel's message and never a PIN, TOTP or token, and no redirect login.
 */
import { describe, expect, it } from 'vitest';
import { BrokerLoginError } from '../http/broker-result.js';
import { FakeClock } from '../../../platform/clock.js';
import { AngelAdapter } from './angel.adapter.js';
import { angelLogin, angelRefresh, type AngelOptions } from './angel.auth.js';
import { closeAfterEach, closeLater } from '../../../../test/helpers/broker-quote-fixtures.js';
import { captureLogs } from '../../../../test/helpers/broker-order-stubs.js';
import {
  ANGEL_CREDS,
  ANGEL_STUB_PATHS as P,
  startAngelStub,
} from '../../../../test/helpers/broker-order-stub-angel.js';

closeAfterEach();

const LOGIN = { clientCode: ANGEL_CREDS.clientCode, pin: ANGEL_CREDS.pin, totp: ANGEL_CREDS.totp };
// 2026-08-18 10:00 IST: the next IST midnight is 2026-08-18T18:30Z.
const NOW = Date.UTC(2026, 7, 18, 4, 30);
const MIDNIGHT = Date.UTC(2026, 7, 18, 18, 30);

async function setup(opts: Partial<AngelOptions> = {}) {
  const stub = await startAngelStub(ANGEL_CREDS);
  const { logger, logs } = captureLogs();
  const options: AngelOptions = {
    apiKey: ANGEL_CREDS.apiKey,
    apiSecret: 'angelSECRETn4Hd',
    redirectUrl: '',
    baseUrl: stub.url,
    logger,
    clock: new FakeClock(NOW),
    ...opts,
  };
  const adapter = new AngelAdapter(options);
  closeLater(() => stub.close());
  closeLater(() => adapter.close());
  return { stub, adapter, options, logs };
}

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json',
  'x-usertype': 'USER',
  'x-sourceid': 'WEB',
  'x-clientlocalip': '127.0.0.1',
  'x-clientpublicip': '127.0.0.1',
  'x-macaddress': '00:00:00:00:00:00',
  'x-privatekey': ANGEL_CREDS.apiKey,
};

/** The rejection of `p` (fails the test when it resolves). */
async function refusal(p: Promise<unknown>): Promise<BrokerLoginError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BrokerLoginError);
  return err as BrokerLoginError;
}

describe('login: POST loginByPassword with client code, PIN and TOTP', () => {
  it('sends exactly {clientcode, password: PIN, totp} with the SmartAPI headers and no Authorization', async () => {
    const { stub, adapter } = await setup();

    const result = await adapter.login(LOGIN);

    expect(stub.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`POST ${P.login}`]);
    expect(stub.bodies(P.login)).toEqual([{ clientcode: 'D8412735', password: '4829', totp: '731945' }]);
    expect(stub.requests[0]!.headers).toMatchObject(HEADERS);
    expect(stub.credentialOf(stub.requests[0]!)).toBe('absent');
    expect(result).toEqual({
      session: {
        accessToken: stub.credentials.jwt,
        brokerUserId: 'D8412735',
        refreshToken: stub.credentials.refreshToken,
        feedToken: stub.credentials.feedToken,
      },
      expiresAt: MIDNIGHT,
    });
  });

  it('the session works: the JWT goes out as Bearer on the next call', async () => {
    const { stub, adapter } = await setup();

    const { session } = await adapter.login(LOGIN);
    const book = await adapter.orderBook(session);

    expect(book).toMatchObject({ ok: true, data: [] });
    expect(stub.credentialOf(stub.requests[1]!)).toBe('exact');
  });

  it("expires at the JWT's exp when that comes before midnight IST, else at midnight", async () => {
    const { stub, adapter } = await setup();
    const early = NOW + 3 * 3_600_000;
    stub.jwtExp = early / 1000;
    expect((await adapter.login(LOGIN)).expiresAt).toBe(early);
    stub.jwtExp = MIDNIGHT / 1000 + 86_400;
    expect((await adapter.login(LOGIN)).expiresAt).toBe(MIDNIGHT);
  });

  it.each([
    ['a wrong PIN', { pin: '1111' }, 'AB1000', 'Angel One login failed: Invalid Email Or Password'],
    ['a wrong TOTP', { totp: '000000' }, 'AB1050', 'Angel One login failed: Invalid totp'],
  ])(
    '%s: 401 with Angel’s code and message; no PIN, TOTP or key in it or the logs',
    async (_n, over, code, message) => {
      const { adapter, logs } = await setup();
      const creds = { ...LOGIN, ...over };

      const err = await refusal(adapter.login(creds));

      expect(err).toMatchObject({ broker: 'angel', httpStatus: 401, code, message });
      for (const secret of [creds.pin, creds.totp, ANGEL_CREDS.apiKey]) {
        expect(err.message).not.toContain(secret);
        expect(logs()).not.toContain(secret);
      }
    },
  );

  it('a transport failure is a 502 login error; a login without its own pool closes what it opened', async () => {
    const { stub, options } = await setup();
    await stub.close();

    const err = await refusal(angelLogin(options, LOGIN));

    expect(err.httpStatus).toBe(502);
    expect(err.message).not.toContain(LOGIN.pin);
  });

  it('standalone angelLogin over its own transport logs in the same way', async () => {
    const { stub, options } = await setup();

    const result = await angelLogin(options, LOGIN);

    expect(result.session.accessToken).toBe(stub.credentials.jwt);
    expect(stub.connections).toBe(1);
  });
});

describe('refresh: POST generateTokens with the refresh token', () => {
  it('sends exactly {refreshToken} with the current JWT as Bearer; answers the new three tokens', async () => {
    const { stub, adapter } = await setup();
    const first = await adapter.login(LOGIN);

    const renewed = await adapter.refresh({
      refreshToken: first.session.refreshToken!,
      accessToken: first.session.accessToken,
      brokerUserId: 'D8412735',
    });

    const req = stub.requests[1]!;
    expect(`${req.method} ${req.path}`).toBe(`POST ${P.refresh}`);
    expect(stub.bodies(P.refresh)).toEqual([{ refreshToken: first.session.refreshToken! }]);
    expect(req.headers).toMatchObject(HEADERS);
    expect(stub.credentialOf(req)).toBe('exact');
    expect(renewed).toEqual({
      session: {
        accessToken: stub.credentials.jwt,
        brokerUserId: 'D8412735',
        refreshToken: stub.credentials.refreshToken,
        feedToken: stub.credentials.feedToken,
      },
      expiresAt: MIDNIGHT,
    });
    expect(renewed.session.accessToken).not.toBe(first.session.accessToken);
  });

  it('without a JWT, no Authorization header is sent', async () => {
    const { stub, options } = await setup();

    await angelRefresh(options, { refreshToken: ANGEL_CREDS.refreshToken });

    expect(stub.credentialOf(stub.requests[0]!)).toBe('absent');
  });

  it('a wrong refresh token is AB8050 → 401, the token kept out of the message and logs', async () => {
    const { adapter, logs } = await setup();
    const wrong = 'angelREFRESHwrong9z';

    const err = await refusal(adapter.refresh({ refreshToken: wrong }));

    expect(err).toMatchObject({
      httpStatus: 401,
      code: 'AB8050',
      message: 'Angel One token refresh failed: Invalid Refresh Token',
    });
    expect(logs()).not.toContain(wrong);
  });
});

describe('no redirect login', () => {
  it('loginUrl throws and exchangeCode rejects, saying how Angel logs in', async () => {
    const { adapter, stub } = await setup();
    const said = 'Angel One logs in with client code, PIN and TOTP, not a redirect';

    expect(() => adapter.loginUrl('state')).toThrow(said);
    const err = await refusal(adapter.exchangeCode('code'));

    expect(err).toMatchObject({ httpStatus: 400, code: 'unsupported', message: said });
    expect(stub.requests).toEqual([]);
  });
});
