/**
 * The WhatsApp Cloud API sender over real loopback HTTP, against a stub written from Meta's
 * "Send messages" and error documentation (test/alerts/whatsapp-cloud-stub.ts): the request it
 * makes, what counts as delivered, Graph API errors reported without the token, one retry on
 * 429/5xx, and a bounded wait (docs/rules/alerts.md#notify-api).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AlertHttp } from './alert-http.js';
import { WhatsAppSender, whatsAppNumber, type WhatsAppTarget } from './whatsapp.sender.js';
import { graphError, WhatsAppCloudStub } from '../../../test/alerts/whatsapp-cloud-stub.js';

let stub: WhatsAppCloudStub;
let target: WhatsAppTarget;
beforeEach(async () => {
  stub = await new WhatsAppCloudStub('109876543210123', undefined, ['919876543210', '14155550100']).start();
  target = { accessToken: stub.accessToken, phoneNumberId: stub.phoneNumberId };
});
afterEach(() => stub.close());

const sender = (opts: ConstructorParameters<typeof AlertHttp>[0] = {}) =>
  new WhatsAppSender(new AlertHttp({ defaultRetryWaitMs: 10, ...opts }), { baseUrl: stub.baseUrl });

describe('numbers: E.164 digits with the country code', () => {
  it.each([
    ['919876543210', '919876543210'],
    ['+91 98765 43210', '919876543210'],
    ['+1 (415) 555-0100', '14155550100'],
  ])('%s → %s', (raw, digits) => {
    expect(whatsAppNumber(raw)).toBe(digits);
  });

  it.each([
    '',
    '12345',
    '09876543210',
    '+0 98765 43210',
    '91987654321012345',
    '91987abc3210',
    '++919876543210',
  ])('%j is refused', (raw) => {
    expect(whatsAppNumber(raw)).toBeUndefined();
  });
});

describe('a send is the Cloud API request Meta documents', () => {
  it('POSTs the text message with the bearer token to /<version>/<phone-number-id>/messages', async () => {
    const r = await sender().send(target, '919876543210', 'NIFTY crossed 24000\n*bold* <b>');
    expect(r).toMatchObject({
      channel: 'whatsapp',
      ok: true,
      status: 200,
      attempts: 1,
      to: '919876543210',
      host: new URL(stub.url).host,
    });
    expect(r.messageId).toMatch(/^wamid\./);
    const req = stub.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe(`/v24.0/${stub.phoneNumberId}/messages`);
    expect(req.headers.authorization).toBe(`Bearer ${stub.accessToken}`);
    expect(req.headers['content-type']).toMatch(/^application\/json/);
    expect(req.json).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '919876543210',
      type: 'text',
      text: { body: 'NIFTY crossed 24000\n*bold* <b>' },
    });
  });

  it('the token travels only in the header, never in the URL', async () => {
    await sender().send(target, '919876543210', 'x');
    expect(stub.requests[0]!.path).not.toContain(stub.accessToken);
  });
});

describe('only an answer naming the message id is a delivery', () => {
  it('a 200 without messages[0].id, or not JSON, is a failure', async () => {
    stub.answerNext({ status: 200, body: { messaging_product: 'whatsapp' } }, { status: 200, body: 'ok' });
    expect(await sender().send(target, '919876543210', 'x')).toMatchObject({
      ok: false,
      status: 200,
      error: 'answer without a message id',
    });
    expect(await sender().send(target, '919876543210', 'x')).toMatchObject({ ok: false, status: 200 });
  });

  it('a wrong token is Meta’s 401 OAuthException 190, not retried', async () => {
    const r = await sender().send(
      { ...target, accessToken: 'EAAGwrong-token-0123456789' },
      '919876543210',
      'x',
    );
    expect(r).toMatchObject({
      ok: false,
      status: 401,
      error: '190 Invalid OAuth access token - Cannot parse access token',
      attempts: 1,
    });
    expect(stub.requests).toHaveLength(1);
  });

  it('a recipient outside the test app’s allowed list is 131030 with Meta’s details', async () => {
    const r = await sender().send(target, '447700900123', 'x');
    expect(r.ok).toBe(false);
    expect(r.status).toBe(400);
    expect(r.error).toMatch(
      /^131030 \(#131030\) Recipient phone number not in allowed list \(Recipient phone/,
    );
  });

  it('an unknown phone-number id is Meta’s code 100; a malformed one is never sent', async () => {
    const r = await sender().send({ ...target, phoneNumberId: '100000000000001' }, '919876543210', 'x');
    expect(r).toMatchObject({ ok: false, status: 400 });
    expect(r.error).toMatch(/^100 Unsupported post request/);
    const bad = await sender().send({ ...target, phoneNumberId: '../../me' }, '919876543210', 'x');
    expect(bad).toMatchObject({
      ok: false,
      status: null,
      attempts: 0,
      error: 'phone-number id is not valid',
    });
    expect(stub.requests).toHaveLength(1);
  });

  it('an error message that echoes the token is redacted', async () => {
    stub.answerNext({ status: 400, body: graphError(100, `bad token ${stub.accessToken}`) });
    const r = await sender().send(target, '919876543210', 'x');
    expect(r.error).toBe('100 bad token [redacted]');
    expect(JSON.stringify(r)).not.toContain(stub.accessToken);
  });
});

describe('429 and 5xx are retried once; a slow server costs at most the timeout', () => {
  it('429 with Retry-After: 0, then accepted → delivered on the second attempt', async () => {
    stub.answerNext({
      status: 429,
      body: graphError(130429, '(#130429) Rate limit hit'),
      headers: { 'retry-after': '0' },
    });
    const r = await sender().send(target, '919876543210', 'x');
    expect(r).toMatchObject({ ok: true, status: 200, attempts: 2 });
    expect(stub.requests).toHaveLength(2);
  });

  it('500 twice: two attempts, then a failure', async () => {
    stub.answerNext(
      { status: 500, body: graphError(1, 'An unknown error occurred') },
      { status: 500, body: graphError(1, 'An unknown error occurred') },
    );
    const r = await sender().send(target, '919876543210', 'x');
    expect(r).toMatchObject({ ok: false, status: 500, attempts: 2, error: '1 An unknown error occurred' });
  });

  it('no answer within the timeout → a timeout failure after one attempt', async () => {
    stub.answerNext({ status: 200, body: {}, delayMs: 1_000 });
    const r = await sender({ timeoutMs: 150 }).send(target, '919876543210', 'x');
    expect(r).toMatchObject({ ok: false, status: null, attempts: 1, error: 'no answer within 150 ms' });
  });
});
