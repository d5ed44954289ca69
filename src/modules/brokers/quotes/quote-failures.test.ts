import { beforeAll, describe, expect, it } from 'vitest';
import { createQuoteClient } from './create-quote-client.js';
import { type QuoteClient } from './quote-client.js';
import { UpstoxQuoteClient } from './upstox-quotes.js';
import { ZerodhaQuoteClient } from './zerodha-quotes.js';
import { kiteError, upstoxError } from '../../../../test/helpers/broker-quote-stubs.js';

import {
  KITE,
  closeAfterEach,
  closeLater,
  fill,
  loadQuoteInstruments,
  quoteError,
  setup,
  type KiteSet,
  type UpstoxSet,
} from '../../../../test/helpers/broker-quote-fixtures.js';

let K: KiteSet;
let U: UpstoxSet;
beforeAll(async () => {
  ({ K, U } = await loadQuoteInstruments());
});
closeAfterEach();

describe('failures are QuoteErrors with status, broker code and retryability, and never carry a credential', () => {
  it('Kite 403 TokenException: not retryable; neither token nor API key in the message or the logs', async () => {
    const { stub, client, logs } = await setup('zerodha', { accessToken: 'kiteEXPIREDtok77' });

    const err = await quoteError(client.quotes([K.sbin]));

    expect(stub.requests[0]!.authOk).toBe(false);
    expect(err).toMatchObject({ broker: 'zerodha', status: 403, code: 'TokenException', retryable: false });
    expect(err.message).toContain('Incorrect `api_key` or `access_token`.');
    for (const text of [err.message, logs()])
      for (const secret of ['kiteEXPIREDtok77', KITE.apiKey]) expect(text).not.toContain(secret);
    expect(logs()).toContain('TokenException');
  });

  it('a broker message that echoes the credentials is redacted', async () => {
    const { stub, client, logs } = await setup('zerodha');
    stub.failNext(
      403,
      kiteError(`Session token ${KITE.apiKey}:${KITE.accessToken} expired`, 'TokenException'),
    );

    const err = await quoteError(client.quotes([K.sbin]));

    expect(err.message).toContain('[redacted]');
    for (const text of [err.message, logs()])
      for (const secret of [KITE.accessToken, KITE.apiKey]) expect(text).not.toContain(secret);
  });

  it('Upstox 401 UDAPI100050: not retryable, token absent from message and logs', async () => {
    const { stub, client, logs } = await setup('upstox', { accessToken: 'upstoxSTALEtok55' });

    const err = await quoteError(client.quotes([U.sbin]));

    expect(stub.requests[0]!.authOk).toBe(false);
    expect(err).toMatchObject({ broker: 'upstox', status: 401, code: 'UDAPI100050', retryable: false });
    expect(err.message).toContain('Invalid token used to access API');
    expect(err.message + logs()).not.toContain('upstoxSTALEtok55');
  });

  const upstox500 = upstoxError('UDAPI100500', 'Something went wrong... please contact us');
  it.each([
    // Bodies in each broker's documented error shape; the Kite texts are illustrative.
    ['zerodha', 429, kiteError('Too many requests', 'NetworkException'), 'NetworkException', true],
    ['zerodha', 500, kiteError('Something went wrong', 'GeneralException'), 'GeneralException', true],
    ['zerodha', 502, '<html><body>502 Bad Gateway</body></html>', 'http_502', true],
    ['zerodha', 400, kiteError('Invalid instrument', 'InputException'), 'InputException', false],
    ['zerodha', 200, kiteError('Unable to parse the OMS response', 'DataException'), 'DataException', false],
    ['upstox', 429, upstoxError('UDAPI10005', 'Too Many Request Sent'), 'UDAPI10005', true],
    ['upstox', 500, upstox500, 'UDAPI100500', true],
    ['upstox', 503, '', 'http_503', true],
    ['upstox', 400, upstoxError('UDAPI1011', 'instrument_key is of invalid format'), 'UDAPI1011', false],
  ] as const)('%s HTTP %i → code %s, retryable %s', async (broker, status, body, code, retryable) => {
    const { stub, client } = await setup(broker);
    stub.failNext(status, body);

    const err = await quoteError(client.quotes([broker === 'zerodha' ? K.sbin : U.sbin]));

    expect(err).toMatchObject({ broker, status, code, retryable });
  });

  it('a batch that fails stops the call: later batches are not asked', async () => {
    const { stub, client } = await setup('zerodha');
    fill(stub, K.nfo.slice(0, 1001));
    stub.failNext(500, kiteError('Something went wrong', 'GeneralException'));

    await quoteError(client.quotes(K.nfo.slice(0, 1001)));

    expect(stub.requests).toHaveLength(1);
  });

  it('a broker slower than timeoutMs is a retryable timeout, and the next call succeeds', async () => {
    const { stub, client } = await setup('zerodha', { timeoutMs: 150 });
    fill(stub, [K.sbin]);
    stub.delayNext(2000);

    const err = await quoteError(client.quotes([K.sbin]));

    expect(err).toMatchObject({ code: 'timeout', retryable: true, status: undefined });
    expect((await client.quotes([K.sbin])).has('NSE:SBIN')).toBe(true);
  });

  it('without an access token (or Kite API key) nothing is sent', async () => {
    for (const [broker, opts, inst] of [
      ['zerodha', { accessToken: () => undefined }, K.sbin],
      ['zerodha', { apiKey: undefined }, K.sbin],
      ['upstox', { accessToken: '' }, U.sbin],
    ] as const) {
      const { stub, client } = await setup(broker, opts);
      const err = await quoteError(client.quotes([inst]));
      expect(err).toMatchObject({ code: 'no_token', retryable: false, status: undefined });
      expect(stub.connections).toBe(0);
    }
  });

  it('reads the access token on every call, so a new session is used at once', async () => {
    let token = 'kiteOLDsession01';
    const { stub, client } = await setup('zerodha', { accessToken: () => token });
    fill(stub, [K.sbin]);

    expect((await quoteError(client.quotes([K.sbin]))).code).toBe('TokenException');
    token = KITE.accessToken;
    expect((await client.quotes([K.sbin])).has('NSE:SBIN')).toBe(true);
  });

  it('an aborted signal rejects with its reason and sends nothing', async () => {
    const { stub, client } = await setup('upstox');
    const ac = new AbortController();
    ac.abort();

    await expect(client.quotes([U.sbin], ac.signal)).rejects.toMatchObject({ name: 'AbortError' });
    expect(stub.requests).toHaveLength(0);
  });
});

// ---- connections and lifecycle ------------------------------------------------------------------

describe('one keep-alive pool per broker origin', () => {
  it.each(['zerodha', 'upstox'] as const)('%s: five calls share one TCP connection', async (broker) => {
    const { stub, client } = await setup(broker);
    const inst = broker === 'zerodha' ? K.sbin : U.sbin;
    fill(stub, [inst]);

    for (let n = 0; n < 5; n++) expect((await client.quotes([inst])).size).toBe(1);

    expect(stub.requests).toHaveLength(5);
    expect(stub.connections).toBe(1);
  });

  it('close() lets the connection go; later calls are refused as closed; closing twice is fine', async () => {
    const { stub, client } = await setup('upstox');
    await client.quotes([U.sbin]);
    expect(stub.openConnections).toBe(1);

    await client.close();
    await expect.poll(() => stub.openConnections).toBe(0);
    expect(await quoteError(client.quotes([U.sbin]))).toMatchObject({ code: 'closed', retryable: false });
    await client.close();
  });

  it('createQuoteClient builds the broker client with its batch limit', async () => {
    const z: QuoteClient = createQuoteClient('zerodha', { apiKey: 'k', accessToken: 't' });
    const u: QuoteClient = createQuoteClient('upstox', { accessToken: 't' });
    closeLater(() => z.close().then(() => u.close()));

    expect(z).toBeInstanceOf(ZerodhaQuoteClient);
    expect(u).toBeInstanceOf(UpstoxQuoteClient);
    expect([z.broker, z.maxBatch, u.broker, u.maxBatch]).toEqual(['zerodha', 500, 'upstox', 500]);
    expect(await z.quotes([])).toEqual(new Map());
  });
});
