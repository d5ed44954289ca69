/**
 * Kite GTT failures (docs/rules/orders.md#gtt-orders): Kite's status and message passed through,
 * no credential anywhere, refusals before any I/O. The GTTs sent are zerodha.gtt.test.ts's.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { BrokerAdapterOptions } from '../http/order-transport.js';

import {
  closeAfterEach,
  loadQuoteInstruments,
  type KiteSet,
} from '../../../../test/helpers/broker-quote-fixtures.js';
import { kiteAdapterOn, kiteGtt } from '../../../../test/helpers/kite-adapter.js';
import { kiteError } from '../../../../test/helpers/broker-quote-stubs.js';

// Distinctive, so any leak into a message, a raw body or a log line is caught.
const CREDS = { apiKey: 'kiteKEYg7Tt2', apiSecret: 'kiteSECRETg9Tv4L', accessToken: 'kiteTOKENgtt8Wq1' };

let K: KiteSet;
beforeAll(async () => {
  ({ K } = await loadQuoteInstruments());
});
closeAfterEach();

async function setup(opts: Partial<BrokerAdapterOptions> = {}) {
  const rig = await kiteAdapterOn(CREDS, opts);
  rig.stub.tokens.set('SBIN', 779521);
  return rig;
}

const gttFor = kiteGtt;

describe('failures: Kite’s status and message, no credential anywhere, refusals before I/O', () => {
  it.each([
    [400, 'InputException', 'Trigger price is too close to the last price.'],
    [403, 'TokenException', 'Token is invalid or has expired.'],
    [429, 'NetworkException', 'Too many requests'],
    [500, 'GeneralException', 'Something went wrong'],
  ])('HTTP %i %s → a failed BookResult with that status and message', async (status, type, message) => {
    const { stub, adapter, session } = await setup();
    stub.failNext(status, kiteError(message, type));

    expect(await adapter.placeGtt(gttFor(K.sbin), session)).toEqual({
      ok: false,
      httpStatus: status,
      message,
      roundTripMs: expect.any(Number),
    });
  });

  it('the stub’s own refusal of a LIMIT trigger equal to the last price comes back as 400', async () => {
    const { adapter, session } = await setup();

    const result = await adapter.placeGtt(gttFor(K.sbin, { triggers: [812.35] }), session);

    expect(result).toMatchObject({
      ok: false,
      httpStatus: 400,
      message: expect.stringContaining('last_price'),
    });
  });

  it('a stale session gets 403 TokenException on every call; the token is in no result or log', async () => {
    const { adapter, logs } = await setup();
    const stale = { accessToken: 'kiteSTALEgtt77Qz' };

    const results = [
      await adapter.placeGtt(gttFor(K.sbin), stale),
      await adapter.modifyGtt('105100', gttFor(K.sbin), stale),
      await adapter.cancelGtt('105100', stale),
      await adapter.gttBook(stale),
    ];

    for (const r of results)
      expect(r).toMatchObject({
        ok: false,
        httpStatus: 403,
        message: 'Incorrect `api_key` or `access_token`.',
      });
    for (const text of [JSON.stringify(results), logs()]) expect(text).not.toContain('kiteSTALEgtt77Qz');
  });

  it('a broker message echoing the credentials is redacted', async () => {
    const { stub, adapter, session } = await setup();
    const echo = `Session token ${CREDS.apiKey}:${CREDS.accessToken} rejected (secret ${CREDS.apiSecret})`;
    stub.failNext(403, kiteError(echo, 'TokenException'));

    const result = await adapter.gttBook(session);

    expect(result).toMatchObject({
      ok: false,
      httpStatus: 403,
      message: expect.stringContaining('[redacted]'),
    });
    for (const secret of Object.values(CREDS)) expect(JSON.stringify(result)).not.toContain(secret);
  });

  it('a success without a trigger id is a 502 failure', async () => {
    const { stub, adapter, session } = await setup();
    stub.failNext(200, { status: 'success', data: {} });

    expect(await adapter.placeGtt(gttFor(K.sbin), session)).toMatchObject({
      ok: false,
      httpStatus: 502,
      message: 'Zerodha answered success without a trigger id',
    });
  });

  it('no token, a wrong trigger count or an empty id are refused without I/O', async () => {
    const { stub, adapter, session } = await setup();

    const results = [
      await adapter.placeGtt(gttFor(K.sbin), { accessToken: '' }),
      await adapter.placeGtt(gttFor(K.sbin, { triggers: [780, 850] }), session),
      await adapter.placeGtt(
        gttFor(K.sbin, { type: 'two-leg', triggers: [850, 780], prices: [1, 2] }),
        session,
      ),
      await adapter.cancelGtt(' ', session),
    ];

    expect(results.map((r) => (r.ok ? 200 : r.httpStatus))).toEqual([401, 400, 400, 400]);
    expect(stub.requests).toHaveLength(0);
  });
});
