/**
 * Chat alert delivery over real loopback HTTP: what counts as delivered
 * for Telegram and Slack, one retry on 429/5xx within Retry-After ≤ 2 s, a bounded wait on a
 * slow server, and a consumer that never throws and never leaks a credential.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AlertHttp, parseRetryAfter } from './alert-http.js';
import type { AlertTargets } from './alert-settings.service.js';
import { AlertDelivery, alertConsumer } from './alerts.consumer.js';
import { SlackSender } from './slack.sender.js';
import { TelegramSender } from './telegram.sender.js';
import { createLogger } from '../../platform/logger.js';
import { ChatStub, botToken, orderEvent, telegramError } from '../../../test/helpers/chat-alerts.js';
import { captureStream } from '../../../test/helpers/test-app.js';

const TOKEN = botToken(9);
const HOOK = '/services/T0009/B0009/hookSecretValue999999';
const chat = { botToken: TOKEN, chatId: '-1009' };

let stub: ChatStub;
beforeEach(async () => {
  stub = await new ChatStub().start();
});
afterEach(() => stub.close());

const telegram = (opts: ConstructorParameters<typeof AlertHttp>[0] = {}) =>
  new TelegramSender(new AlertHttp({ defaultRetryWaitMs: 10, ...opts }), { baseUrl: stub.url });
const slack = (opts: ConstructorParameters<typeof AlertHttp>[0] = {}) =>
  new SlackSender(new AlertHttp({ defaultRetryWaitMs: 10, ...opts }));

describe('Telegram: only {"ok":true} is a delivery', () => {
  it('POSTs {chat_id, text} as JSON, plain text, to /bot<token>/sendMessage', async () => {
    const r = await telegram().send(chat, 'hello <b>&');
    expect(r).toEqual({
      channel: 'telegram',
      ok: true,
      status: 200,
      attempts: 1,
      host: new URL(stub.url).host,
    });
    const req = stub.requests[0]!;
    expect(req.path).toBe(`/bot${TOKEN}/sendMessage`);
    expect(req.headers['content-type']).toMatch(/^application\/json/);
    expect(req.json).toEqual({ chat_id: '-1009', text: 'hello <b>&' });
  });

  it('400 "chat not found" is a failure with Telegram’s description, not retried', async () => {
    stub.answerNext({ status: 400, body: telegramError(400, 'Bad Request: chat not found') });
    const r = await telegram().send(chat, 'x');
    expect(r).toMatchObject({
      ok: false,
      status: 400,
      error: '400 Bad Request: chat not found',
      attempts: 1,
    });
    expect(stub.requests).toHaveLength(1);
  });

  it('401 Unauthorized is a failure, not retried', async () => {
    stub.answerNext({ status: 401, body: telegramError(401, 'Unauthorized') });
    expect(await telegram().send(chat, 'x')).toMatchObject({ ok: false, status: 401, attempts: 1 });
  });

  it('a 200 without "ok": true, or not JSON at all, is a failure', async () => {
    stub.answerNext({ status: 200, body: { ok: false } }, { status: 200, body: '<html>proxy</html>' });
    expect(await telegram().send(chat, 'x')).toMatchObject({ ok: false, status: 200 });
    expect(await telegram().send(chat, 'x')).toMatchObject({ ok: false, status: 200 });
  });

  it('a description that echoes the token is redacted', async () => {
    stub.answerNext({ status: 404, body: telegramError(404, `Not Found: bot${TOKEN}`) });
    const r = await telegram().send(chat, 'x');
    expect(r.error).toBe('404 Not Found: bot[redacted]');
  });
});

describe('Slack: any 2xx is a delivery; the reason of a refusal is reported', () => {
  it('POSTs {text} with &, < and > escaped, so order text cannot mention @channel', async () => {
    const r = await slack().send({ webhookUrl: stub.url + HOOK }, '❌ <!channel> A&B');
    expect(r).toMatchObject({ channel: 'slack', ok: true, status: 200 });
    expect(stub.slack(HOOK)).toEqual([{ text: '❌ &lt;!channel&gt; A&amp;B' }]);
  });

  it.each([
    [404, 'no_service'],
    [403, 'invalid_token'],
    [400, 'invalid_payload'],
  ])('%i %s is a failure naming the reason, not retried', async (status, reason) => {
    stub.answerNext({ status, body: reason });
    expect(await slack().send({ webhookUrl: stub.url + HOOK }, 'x')).toMatchObject({
      ok: false,
      status,
      error: `${status} ${reason}`,
      attempts: 1,
    });
  });

  it('an answer that echoes the webhook URL or its secret path is redacted', async () => {
    stub.answerNext({ status: 404, body: `no_service for ${stub.url + HOOK} (hookSecretValue999999)` });
    const r = await slack().send({ webhookUrl: stub.url + HOOK }, 'x');
    expect(r.error).not.toContain('hookSecretValue');
  });
});

describe('429 and 5xx are retried once, after a Retry-After of at most 2 s', () => {
  it('429 with Retry-After: 0, then ok → delivered on the second attempt', async () => {
    stub.answerNext({
      status: 429,
      body: telegramError(429, 'Too Many Requests: retry after 0'),
      headers: { 'retry-after': '0' },
    });
    expect(await telegram().send(chat, 'x')).toMatchObject({ ok: true, attempts: 2 });
    expect(stub.requests).toHaveLength(2);
  });

  it('Telegram’s parameters.retry_after is honoured when there is no header', async () => {
    stub.answerNext({
      status: 429,
      body: telegramError(429, 'Too Many Requests', { parameters: { retry_after: 1 } }),
    });
    expect(await telegram().send(chat, 'x')).toMatchObject({ ok: true, attempts: 2 });
  });

  it('a Retry-After beyond 2 s ends the attempts: reported as 429, sent once', async () => {
    stub.answerNext({ status: 429, body: 'slow down', headers: { 'retry-after': '30' } });
    expect(await slack().send({ webhookUrl: stub.url + HOOK }, 'x')).toMatchObject({
      ok: false,
      status: 429,
      attempts: 1,
    });
    expect(stub.requests).toHaveLength(1);
  });

  it('500 twice: two attempts, then a failure; never a third', async () => {
    stub.answerNext({ status: 500, body: 'oops' }, { status: 502, body: 'bad gateway' });
    expect(await slack().send({ webhookUrl: stub.url + HOOK }, 'x')).toMatchObject({
      ok: false,
      status: 502,
      attempts: 2,
    });
    expect(stub.requests).toHaveLength(2);
  });

  it('Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 9_000)).toBe(1000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

describe('a slow or unreachable server costs at most the timeout, and is not retried', () => {
  it('no answer within the timeout → a timeout failure after one attempt', async () => {
    stub.answerNext({ status: 200, body: { ok: true }, delayMs: 30_000 });
    const r = await telegram({ timeoutMs: 200 }).send(chat, 'x');
    expect(r).toMatchObject({ ok: false, status: null, error: 'no answer within 200 ms', attempts: 1 });
    expect(stub.requests).toHaveLength(1);
  });

  it('a refused connection is a network failure', async () => {
    const url = stub.url;
    await stub.close();
    const r = await new SlackSender(new AlertHttp()).send({ webhookUrl: url + HOOK }, 'x');
    expect(r).toMatchObject({ ok: false, status: null, attempts: 1 });
    expect(r.error).toMatch(/^connection failed/);
  });
});

describe('the consumer never throws, never waits past its bound, never logs a credential', () => {
  const capture = () => {
    const { lines, stream } = captureStream();
    return { lines, logger: createLogger('trace', stream) };
  };
  const targets = (): AlertTargets => ({
    notifyOn: 'all',
    telegram: chat,
    slack: { webhookUrl: stub.url + HOOK },
  });

  it('a slow Telegram does not hold back Slack, and the consumer resolves with the timeout logged', async () => {
    const { lines, logger } = capture();
    const delivery = new AlertDelivery({ telegramBaseUrl: stub.url, timeoutMs: 200 });
    stub.answerNext({ status: 200, body: { ok: true }, delayMs: 30_000 });
    const consume = alertConsumer({
      settings: { targets: () => Promise.resolve(targets()) },
      delivery,
      logger,
    });

    await expect(consume(orderEvent(1))).resolves.toBeUndefined();

    expect(stub.slack(HOOK)).toHaveLength(1);
    const warn = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'chat alert not delivered');
    expect(warn).toMatchObject({ channel: 'telegram', status: null, error: 'no answer within 200 ms' });
    for (const secret of [TOKEN, 'hookSecretValue']) expect(lines.join('')).not.toContain(secret);
  });

  it('a failing settings lookup is logged and swallowed', async () => {
    const { lines, logger } = capture();
    const consume = alertConsumer({
      settings: { targets: () => Promise.reject(new Error('database is down')) },
      delivery: new AlertDelivery(),
      logger,
    });
    await expect(consume(orderEvent(1))).resolves.toBeUndefined();
    expect(lines.join('')).toContain('chat alert skipped: settings lookup failed');
  });

  it('every channel failing still resolves; each failure is one warning with its status', async () => {
    const { lines, logger } = capture();
    stub.answerNext(
      { status: 500, body: 'x' },
      { status: 500, body: 'x' },
      { status: 500, body: 'x' },
      { status: 500, body: 'x' },
    );
    const delivery = new AlertDelivery({ telegramBaseUrl: stub.url, defaultRetryWaitMs: 10 });
    const consume = alertConsumer({
      settings: { targets: () => Promise.resolve(targets()) },
      delivery,
      logger,
    });
    await expect(consume(orderEvent(1))).resolves.toBeUndefined();
    expect(lines.filter((l) => l.includes('chat alert not delivered'))).toHaveLength(2);
    expect(stub.requests).toHaveLength(4);
  });
});
