/**
 * Dhan's login (docs/rules/brokers.md#dhan-adapter, #broker-sessions): no browser flow; the pasted
 * token is checked with Dhan's `GET /profile`, which names the account (`dhanClientId`) and the
 * token's validity (`tokenValidity`, IST) — the session's broker user id and expiry.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../../../test/helpers/broker-quote-fixtures.js';
import {
  DHAN,
  loadDhanInstruments,
  setupDhan,
  type DhanSet,
} from '../../../../test/helpers/dhan-fixtures.js';
import { dhanValidity, DhanLoginUnavailable } from './dhan.adapter.js';

let D: DhanSet;
beforeAll(async () => {
  D = await loadDhanInstruments();
});
closeAfterEach();

const setup = () => setupDhan({}, [D.sbin, D.infy, D.ce, D.fut, D.silver]);

describe('login: the token is pasted, no browser flow', () => {
  it('loginUrl throws a 400 naming the CLI; exchangeCode rejects with a 400', async () => {
    const { adapter } = await setup();
    expect(() => adapter.loginUrl('state')).toThrow(DhanLoginUnavailable);
    expect(() => adapter.loginUrl('state')).toThrow(/broker-session set --broker dhan/);
    await expect(adapter.exchangeCode('code')).rejects.toMatchObject({
      httpStatus: 400,
      code: 'not_supported',
    });
  });
});

describe('loginWith: the pasted token, checked with GET /profile', () => {
  it('names the client id and the expiry from the profile; one profile call, nothing else', async () => {
    const { stub, adapter } = await setup();
    stub.tokenValidity = '30/11/2026 08:45';

    const r = await adapter.loginWith({ access_token: DHAN.accessToken });

    expect(r).toEqual({
      session: { accessToken: DHAN.accessToken, brokerUserId: DHAN.clientId },
      expiresAt: Date.parse('2026-11-30T08:45:00+05:30'),
    });
    expect(stub.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /v2/profile']);
  });

  it('a refused token is a login error in Dhan’s words, the token in no message or log', async () => {
    const { adapter, logs } = await setup();
    const wrong = 'wrongDHANpastedTOKEN42';

    const err = await adapter.loginWith({ access_token: wrong }).catch((e: unknown) => e);

    expect(err).toMatchObject({ broker: 'dhan', httpStatus: 401 });
    expect((err as Error).message).toMatch(/^Dhan login failed: /);
    expect((err as Error).message).not.toContain(wrong);
    expect(logs()).not.toContain(wrong);
  });

  it('reads tokenValidity as IST wall time; anything else is no expiry', () => {
    expect(dhanValidity('01/01/2027 00:00')).toBe(Date.parse('2026-12-31T18:30:00Z'));
    for (const v of ['2027-01-01 00:00', '1/1/2027 00:00', '', null, 42])
      expect(dhanValidity(v)).toBeUndefined();
  });
});
