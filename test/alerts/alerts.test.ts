/**
 * Chat alerts (orders issue, part 5): per-user settings, alert wording, and the consumer's
 * routing and filtering. Delivery failures: alerts-delivery.test.ts; HTTP routes:
 * alerts-routes.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatAlert, alertKind } from '../../src/modules/alerts/alert-format.js';
import { AlertSettingsRepository } from '../../src/modules/alerts/alert-settings.repository.js';
import { AlertSettingsService } from '../../src/modules/alerts/alert-settings.service.js';
import { isAppError, type AppError } from '../../src/platform/errors.js';
import { LocalInvalidationBus } from '../../src/platform/invalidation.js';
import { describeEachDb } from '../helpers/test-app.js';
import {
  alertsFixture,
  botToken,
  orderEvent,
  telegramError,
  type AlertsFixture,
} from '../helpers/chat-alerts.js';

const WEBHOOK_PATH = '/services/T0001/B0001/hookSecretValue123456';

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isAppError(err)) throw new Error(`expected an AppError, got ${String(err)}`);
  return err;
}

describe('alert text: a placement reads as success, a failure never does', () => {
  it('a live placement names side, quantity, symbol, exchange, product, type, order id and mode', () => {
    expect(formatAlert(orderEvent(1))).toBe('✅ BUY 10 SBIN NSE MIS MARKET — order 123 (live)');
  });

  it('a LIMIT or SL order shows its price and trigger; a strategy gets its own line', () => {
    const e = orderEvent(1, {
      request: {
        ...orderEvent(1).request,
        pricetype: 'SL',
        price: '512.5',
        trigger_price: '510',
        strategy: 'Breakout',
      },
    });
    expect(formatAlert(e)).toBe(
      '✅ BUY 10 SBIN NSE MIS SL @ 512.5 trigger 510 — order 123 (live)\nStrategy: Breakout',
    );
  });

  it('a failure starts with ❌ and the reason, and carries no success mark even if the reason does', () => {
    const text = formatAlert(
      orderEvent(1, {
        name: 'order.failed',
        orderId: null,
        statusCode: 400,
        response: { status: 'error', message: 'Insufficient funds ✅' },
      }),
    );
    expect(text).toBe(
      '❌ Order failed: Insufficient funds\nBUY 10 SBIN NSE MIS MARKET (placeorder, live, HTTP 400)',
    );
    expect(text).not.toContain('✅');
  });

  it('an order.placed whose answer says error is reported as a failure', () => {
    const e = orderEvent(1, { statusCode: 502, response: { status: 'error', message: 'Broker timeout' } });
    expect(alertKind(e)).toBe('failed');
    expect(formatAlert(e)).toMatch(/^❌ Order failed: Broker timeout/);
  });

  it('analyzer events carry the 🧪 [analyze] prefix and say simulated', () => {
    expect(formatAlert(orderEvent(1, { mode: 'analyze', broker: 'sandbox' }))).toBe(
      '🧪 [analyze] ✅ BUY 10 SBIN NSE MIS MARKET — order 123 (simulated)',
    );
    const err = orderEvent(1, {
      name: 'analyzer.error',
      mode: 'analyze',
      statusCode: 400,
      response: {
        status: 'error',
        message: 'quantity must be a multiple of the lot size 75',
        mode: 'analyze',
      },
    });
    expect(alertKind(err)).toBe('failed');
    expect(formatAlert(err)).toMatch(
      /^🧪 \[analyze\] ❌ Order failed: quantity must be a multiple of the lot size 75\n/,
    );
  });

  it('never includes the API key, an API-key-shaped string or fields outside the order summary', () => {
    const apikey = 'a'.repeat(64);
    const text = formatAlert(
      orderEvent(1, {
        name: 'order.failed',
        statusCode: 403,
        request: { ...orderEvent(1).request, apikey, password: 'hunter2hunter2' },
        response: { status: 'error', message: `Invalid key ${apikey} / ${'b'.repeat(64)}\u0000` },
      }),
    );
    expect(text).not.toContain(apikey);
    expect(text).not.toContain('b'.repeat(64));
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('\u0000');
    expect(text).toContain('[redacted]');
  });
});

describeEachDb('alert settings', (dialect) => {
  let f: AlertsFixture;
  let user: number;
  beforeEach(async () => {
    f = await alertsFixture(dialect);
    user = await f.addUser();
  });
  afterEach(() => f.close());

  describe('bad credentials are refused with a 400 naming each field, and nothing is saved', () => {
    it('malformed token and chat id, a non-https webhook and an unknown notify_on', async () => {
      const badToken = '12345:short-and-wrong';
      const err = await refusal(
        f.settings.update(user, {
          telegram_enabled: true,
          telegram_bot_token: badToken,
          telegram_chat_id: 'not a chat',
          slack_enabled: true,
          slack_webhook_url: 'http://hooks.example.com/services/x',
          notify_on: 'sometimes',
        }),
      );
      expect(err.statusCode).toBe(400);
      expect(Object.keys(err.fields ?? {}).sort()).toEqual([
        'notify_on',
        'slack_webhook_url',
        'telegram_bot_token',
        'telegram_chat_id',
      ]);
      expect(err.message).not.toContain(badToken);
      expect((await f.settings.view(user)).updated_at).toBeNull();
    });

    it.each([
      ['ftp://hooks.example.com/x', /https/],
      ['not a url', /absolute https/],
      ['https://user:pw@hooks.example.com/x', /user name or password/],
      ['http://10.0.0.5/hook', /loopback/],
    ])('webhook %s is refused', async (url, message) => {
      const err = await refusal(f.settings.update(user, { slack_enabled: true, slack_webhook_url: url }));
      expect(err.fields?.slack_webhook_url?.[0]).toMatch(message);
    });

    it('enabling a channel without its credentials is refused', async () => {
      const err = await refusal(f.settings.update(user, { telegram_enabled: true, slack_enabled: true }));
      expect(err.fields).toEqual({
        telegram_bot_token: ['Required to enable Telegram alerts.'],
        telegram_chat_id: ['Required to enable Telegram alerts.'],
        slack_webhook_url: ['Required to enable Slack alerts.'],
      });
    });

    it('accepts numeric, negative and @username chat ids, https and loopback http webhooks', async () => {
      for (const chat of ['42', '-1001234567890', '@algodesk_alerts'])
        await f.settings.update(user, {
          telegram_enabled: true,
          telegram_bot_token: botToken(1),
          telegram_chat_id: chat,
        });
      for (const url of [
        'https://hooks.slack.com/services/T/B/x',
        'http://127.0.0.1:9/x',
        'http://[::1]:9/x',
      ])
        await f.settings.update(user, { slack_enabled: true, slack_webhook_url: url });
      expect((await f.settings.view(user)).slack_webhook_host).toBe('[::1]:9');
    });
  });

  describe('the display view says whether a credential is set, never what it is', () => {
    it('shows flags, the chat id hint and the webhook host; the database holds ciphertext', async () => {
      const token = botToken(7);
      const webhook = `https://hooks.slack.com${WEBHOOK_PATH}`;
      const view = await f.settings.update(user, {
        telegram_enabled: true,
        telegram_bot_token: token,
        telegram_chat_id: '-1009876543210',
        slack_enabled: true,
        slack_webhook_url: webhook,
        notify_on: 'failures',
      });
      expect(view).toEqual({
        telegram_enabled: true,
        telegram_bot_token_set: true,
        telegram_chat_id_hint: '…3210',
        slack_enabled: true,
        slack_webhook_url_set: true,
        slack_webhook_host: 'hooks.slack.com',
        notify_on: 'failures',
        whatsapp_access_token_set: false,
        whatsapp_phone_number_id: null,
        whatsapp_own_number: null,
        updated_at: new Date(f.clock.now()).toISOString(),
      });
      const raw = JSON.stringify(await new AlertSettingsRepository(f.db.database.db).get(user));
      expect(raw).toContain('"telegram_bot_token_encrypted":"v1.');
      for (const secret of [token, WEBHOOK_PATH, 'hookSecretValue']) {
        expect(JSON.stringify(view)).not.toContain(secret);
        expect(raw).not.toContain(secret);
      }
      expect(f.logs.join('')).not.toContain('hookSecretValue');
    });

    it('absent fields keep their value; "" clears a credential', async () => {
      await f.settings.update(user, {
        telegram_enabled: true,
        telegram_bot_token: botToken(1),
        telegram_chat_id: '42',
      });
      expect((await f.settings.update(user, { notify_on: 'placed' })).telegram_bot_token_set).toBe(true);
      const cleared = await f.settings.update(user, { telegram_enabled: false, telegram_bot_token: '' });
      expect(cleared).toMatchObject({
        telegram_enabled: false,
        telegram_bot_token_set: false,
        notify_on: 'placed',
      });
    });
  });

  describe('the notify API’s channels: every saved credential, opened, whatever the order-alert switches', () => {
    const waToken = 'EAAGwhatsappAccessToken0123456789';

    it('the WhatsApp token is sealed at rest, the own number kept as E.164 digits; order alerts never use it', async () => {
      await f.settings.update(user, {
        whatsapp_access_token: ` ${waToken} `,
        whatsapp_phone_number_id: '106540352242922',
        whatsapp_own_number: '+91 (98765) 43210',
      });
      const row = await new AlertSettingsRepository(f.db.database.db).get(user);
      expect(row?.whatsapp_access_token_encrypted).toMatch(/^v1\./);
      expect(JSON.stringify(row)).not.toContain(waToken);
      expect(row?.whatsapp_own_number).toBe('919876543210');
      expect(await f.settings.channels(user)).toEqual({
        whatsapp: { accessToken: waToken, phoneNumberId: '106540352242922' },
        whatsappOwnNumber: '919876543210',
      });
      expect(await f.settings.targets(user)).toBeUndefined();
    });

    it('a Telegram chat switched off for order alerts is still a notify channel', async () => {
      await f.settings.update(user, { telegram_bot_token: botToken(2), telegram_chat_id: '42' });
      expect(await f.settings.targets(user)).toBeUndefined();
      expect((await f.settings.channels(user)).telegram).toEqual({ botToken: botToken(2), chatId: '42' });
    });

    it('a token without its phone-number id is no channel; "" clears each field', async () => {
      await f.settings.update(user, { whatsapp_access_token: waToken, whatsapp_own_number: '14155550100' });
      expect(await f.settings.channels(user)).toEqual({ whatsappOwnNumber: '14155550100' });
      await f.settings.update(user, { whatsapp_access_token: '', whatsapp_own_number: '' });
      expect(await f.settings.view(user)).toMatchObject({
        whatsapp_access_token_set: false,
        whatsapp_own_number: null,
      });
    });

    it('malformed WhatsApp fields are refused by name, without echoing the token', async () => {
      const bad = 'EAAG token with spaces 0123456789';
      const err = await refusal(
        f.settings.update(user, {
          whatsapp_access_token: bad,
          whatsapp_phone_number_id: '10654-0352',
          whatsapp_own_number: '98765',
        }),
      );
      expect(Object.keys(err.fields ?? {}).sort()).toEqual([
        'whatsapp_access_token',
        'whatsapp_own_number',
        'whatsapp_phone_number_id',
      ]);
      expect(JSON.stringify(err)).not.toContain(bad);
      expect(err.message).not.toContain(bad);
    });

    it('a token that no longer opens (APP_KEY changed) drops WhatsApp with a warning, never the token', async () => {
      await f.settings.update(user, {
        whatsapp_access_token: waToken,
        whatsapp_phone_number_id: '1065403522',
      });
      const rekeyed = new AlertSettingsService(
        new AlertSettingsRepository(f.db.database.db),
        'another-app-key-0123456789abcdef0123456789',
        f.clock,
        new LocalInvalidationBus(),
        f.logger,
      );
      expect((await rekeyed.channels(user)).whatsapp).toBeUndefined();
      const warning = f.logs.find((l) => l.includes('cannot be decrypted'));
      expect(warning && (JSON.parse(warning) as Record<string, unknown>).channel).toBe('whatsapp');
      expect(f.logs.join('\n')).not.toContain(waToken);
    });
  });

  describe('a change reaches the cached lookup at once, on this instance and through the bus', () => {
    it('another instance sharing the bus drops its cached settings when they change', async () => {
      const other = new AlertSettingsService(
        new AlertSettingsRepository(f.db.database.db),
        f.appKey,
        f.clock,
        f.bus,
      );
      await f.settings.update(user, {
        telegram_enabled: true,
        telegram_bot_token: botToken(1),
        telegram_chat_id: '42',
      });
      expect((await other.targets(user))?.telegram?.chatId).toBe('42');
      await f.settings.update(user, { telegram_chat_id: '43' });
      expect((await other.targets(user))?.telegram?.chatId).toBe('43');
      expect((await f.settings.targets(user))?.telegram?.chatId).toBe('43');
    });

    it('without a message the cached entry still expires after 60 s', async () => {
      const isolated = new AlertSettingsService(
        new AlertSettingsRepository(f.db.database.db),
        f.appKey,
        f.clock,
        new LocalInvalidationBus(),
      );
      expect(await isolated.targets(user)).toBeUndefined();
      await f.settings.update(user, { slack_enabled: true, slack_webhook_url: 'https://hooks.slack.com/x' });
      expect(await isolated.targets(user)).toBeUndefined();
      f.clock.advance(60_001);
      expect((await isolated.targets(user))?.slack?.webhookUrl).toBe('https://hooks.slack.com/x');
    });
  });
});

describeEachDb('the alert consumer', (dialect) => {
  let f: AlertsFixture;
  beforeEach(async () => {
    f = await alertsFixture(dialect);
  });
  afterEach(() => f.close());

  const telegramFor = async (user: number, n: number, notify_on = 'all') =>
    f.settings.update(user, {
      telegram_enabled: true,
      telegram_bot_token: botToken(n),
      telegram_chat_id: `${n}00${n}`,
      notify_on,
    });

  describe("each user's events go to that user's channels only", () => {
    it('A → A’s chat and webhook; B → B’s chat; no user or no settings → nothing', async () => {
      const [a, b, c] = [await f.addUser('a'), await f.addUser('b'), await f.addUser('c')];
      await telegramFor(a, 1);
      await f.settings.update(a, { slack_enabled: true, slack_webhook_url: f.stub.url + WEBHOOK_PATH });
      await telegramFor(b, 2);

      await f.consume(orderEvent(a));
      await f.consume(orderEvent(b, { orderId: '456', response: { status: 'success', orderid: '456' } }));
      await f.consume(orderEvent(c));
      await f.consume(orderEvent(null));

      expect(f.stub.telegram(botToken(1))).toEqual([
        { chat_id: '1001', text: '✅ BUY 10 SBIN NSE MIS MARKET — order 123 (live)' },
      ]);
      expect(f.stub.slack(WEBHOOK_PATH)).toEqual([
        { text: '✅ BUY 10 SBIN NSE MIS MARKET — order 123 (live)' },
      ]);
      expect(f.stub.telegram(botToken(2))).toEqual([
        { chat_id: '2002', text: '✅ BUY 10 SBIN NSE MIS MARKET — order 456 (live)' },
      ]);
      expect(f.stub.requests).toHaveLength(3);
    });

    it('a disabled channel keeps its credentials but receives nothing', async () => {
      const a = await f.addUser();
      await telegramFor(a, 1);
      await f.settings.update(a, { telegram_enabled: false });
      await f.consume(orderEvent(a));
      expect(f.stub.requests).toHaveLength(0);
    });
  });

  describe('notify_on chooses which events alert', () => {
    const failed = (u: number) =>
      orderEvent(u, {
        name: 'order.failed',
        statusCode: 400,
        response: { status: 'error', message: 'Rejected' },
      });
    const analyzerError = (u: number) =>
      orderEvent(u, {
        name: 'analyzer.error',
        mode: 'analyze',
        statusCode: 400,
        response: { status: 'error', message: 'bad lot' },
      });

    it.each([
      ['all', ['✅', '❌', '🧪']],
      ['failures', ['❌', '🧪']],
      ['placed', ['✅']],
    ])('notify_on=%s sends %j', async (notifyOn, expected) => {
      const u = await f.addUser();
      await telegramFor(u, 3, notifyOn);
      for (const e of [orderEvent(u), failed(u), analyzerError(u)]) await f.consume(e);
      expect(f.stub.telegram(botToken(3)).map((m) => String(m.text).slice(0, 2).trim())).toEqual(expected);
    });
  });

  describe('failures are logged with channel, status and host, never the token or webhook URL', () => {
    it('Telegram 401 and Slack 404: warned, without secrets', async () => {
      const u = await f.addUser();
      await telegramFor(u, 4);
      await f.settings.update(u, { slack_enabled: true, slack_webhook_url: f.stub.url + WEBHOOK_PATH });
      f.stub.answerNext(
        { status: 401, body: telegramError(401, 'Unauthorized') },
        { status: 404, body: 'no_service' },
      );

      await f.consume(orderEvent(u));

      const warnings = f.logs
        .filter((l) => l.includes('chat alert not delivered'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(warnings.map((w) => [w.channel, w.status, w.host]).sort()).toEqual([
        ['slack', 404, new URL(f.stub.url).host],
        ['telegram', 401, new URL(f.stub.url).host],
      ]);
      const all = f.logs.join('\n');
      for (const secret of [botToken(4), 'hookSecretValue', WEBHOOK_PATH]) expect(all).not.toContain(secret);
    });
  });
});
