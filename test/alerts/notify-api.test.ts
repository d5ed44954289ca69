/**
 * OpenAlgo's notify calls on the real app (docs/rules/alerts.md#notify-api):
 * `POST /api/v1/telegram/notify` through a loopback Telegram Bot API and
 * `POST /api/v1/whatsapp/notify` through a loopback WhatsApp Cloud API, on both databases.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChatStub, botToken, telegramError } from '../helpers/chat-alerts.js';
import {
  asBrowser,
  createUser,
  describeEachDb,
  login,
  createTestApp,
  type TestApp,
} from '../helpers/test-app.js';
import { graphError, WhatsAppCloudStub } from './whatsapp-cloud-stub.js';

const OWN = '919876543210';
const FRIEND = '14155550100';
const STRANGER = '447700900123';
const TOKEN = botToken(31);
const BOB_TOKEN = botToken(32);

describeEachDb('notify API', (dialect) => {
  let t: TestApp;
  let chat: ChatStub;
  let wa: WhatsAppCloudStub;
  let apikey: string;
  let bobKey: string;
  let adminId: number;
  let bobId: number;

  beforeEach(async () => {
    chat = await new ChatStub().start();
    // A Cloud API test app: only numbers on its recipient list may be messaged.
    wa = await new WhatsAppCloudStub(undefined, undefined, [OWN, FRIEND]).start();
    t = await createTestApp(dialect, {
      env: { TELEGRAM_API_BASE_URL: chat.url, WHATSAPP_API_BASE_URL: wa.baseUrl },
    });
    adminId = (await createUser(t, 'admin')).id;
    bobId = (await createUser(t, 'bob')).id;
    apikey = (await t.services.auth.apiKeys.regenerate(adminId)).apikey;
    bobKey = (await t.services.auth.apiKeys.regenerate(bobId)).apikey;
    await t.services.alerts.settings.update(adminId, {
      telegram_bot_token: TOKEN,
      telegram_chat_id: '-1003',
      whatsapp_access_token: wa.accessToken,
      whatsapp_phone_number_id: wa.phoneNumberId,
      whatsapp_own_number: '+91 98765 43210',
    });
  });
  afterEach(async () => {
    await t.close();
    await chat.close();
    await wa.close();
  });

  const post = (url: string, payload: unknown) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
  const telegram = (body: Record<string, unknown>) => post('/api/v1/telegram/notify', { apikey, ...body });
  const whatsapp = (body: Record<string, unknown>) => post('/api/v1/whatsapp/notify', { apikey, ...body });
  /** Every request that reached a chat server. */
  const sent = () => chat.requests.length + wa.requests.length;

  describe('telegram: the message goes to the key owner’s saved chat', () => {
    it('OpenAlgo’s request answers OpenAlgo’s success, after Telegram took the message', async () => {
      const message = '🚨 Stop loss hit on BANKNIFTY\nExit at 48,120';
      const res = await telegram({ username: 'admin', message, priority: 10 });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ status: 'success', message: 'Notification sent successfully' });
      expect(chat.telegram(TOKEN)).toEqual([{ chat_id: '-1003', text: message }]);
    });

    it('username may be left out, and compares as a login does (case, spaces)', async () => {
      expect((await telegram({ message: 'a' })).statusCode).toBe(200);
      expect((await telegram({ username: ' Admin ', message: 'b' })).statusCode).toBe(200);
      expect(chat.telegram(TOKEN).map((m) => m.text)).toEqual(['a', 'b']);
    });

    it('another user’s name is 403 and reaches nobody, whether or not that user exists', async () => {
      await t.services.alerts.settings.update(bobId, {
        telegram_bot_token: BOB_TOKEN,
        telegram_chat_id: '-1004',
      });
      const other = await telegram({ username: 'bob', message: 'hi bob' });
      const nobody = await telegram({ username: 'nobody', message: 'hi' });
      expect(other.statusCode).toBe(403);
      expect(other.json()).toMatchObject({ status: 'error', code: 'forbidden' });
      expect(nobody.json()).toEqual(other.json());
      expect(sent()).toBe(0);
      // Bob's own key reaches Bob's own chat, not the administrator's.
      const own = await post('/api/v1/telegram/notify', { apikey: bobKey, username: 'bob', message: 'mine' });
      expect(own.statusCode).toBe(200);
      expect(chat.telegram(BOB_TOKEN)).toEqual([{ chat_id: '-1004', text: 'mine' }]);
      expect(chat.telegram(TOKEN)).toEqual([]);
    });

    it('a message Telegram refuses is a 502 with Telegram’s reason, never a success', async () => {
      chat.answerNext({ status: 400, body: telegramError(400, 'Bad Request: chat not found') });
      const res = await telegram({ message: 'x' });
      expect(res.statusCode).toBe(502);
      expect(res.json()).toEqual({
        status: 'error',
        message: 'Telegram did not deliver the notification: 400 Bad Request: chat not found',
      });
    });

    it('works while Telegram order alerts are switched off: the credentials are what counts', async () => {
      await t.services.alerts.settings.update(adminId, { telegram_enabled: false });
      expect((await telegram({ message: 'x' })).statusCode).toBe(200);
    });
  });

  describe('whatsapp: through the user’s own WhatsApp Business number', () => {
    it('self → the saved own number; OpenAlgo’s report of who got it', async () => {
      const res = await whatsapp({ self: true, message: 'Build finished', wait_for_delivery: true });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        status: 'success',
        message: 'Delivered to 1, failed 0',
        data: { sent: [OWN], failed: [] },
      });
      expect(wa.messages()).toEqual([
        {
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: OWN,
          type: 'text',
          text: { body: 'Build finished' },
        },
      ]);
      expect(wa.requests[0]!.headers.authorization).toBe(`Bearer ${wa.accessToken}`);
    });

    it('username naming the key’s own user is the own number too', async () => {
      const res = await whatsapp({ username: 'admin', message: 'x' });
      expect(res.json()).toMatchObject({ status: 'success', data: { sent: [OWN] } });
    });

    it('phone → that number, written with + and spaces or not', async () => {
      const res = await whatsapp({ phone: '+1 415 555 0100', message: 'x' });
      expect(res.json()).toMatchObject({ status: 'success', data: { sent: [FRIEND], failed: [] } });
      expect(wa.messages()[0]!.to).toBe(FRIEND);
    });

    it('phones → each number once; one refused by WhatsApp is reported, the rest delivered', async () => {
      const res = await whatsapp({ phones: [OWN, FRIEND, STRANGER, `+${OWN}`], message: 'x' });
      expect(res.statusCode).toBe(200);
      const body = res.json<{
        message: string;
        data: { sent: string[]; failed: Array<{ to: string; error: string }> };
      }>();
      expect(body.message).toBe('Delivered to 2, failed 1');
      expect(body.data.sent.sort()).toEqual([FRIEND, OWN].sort());
      expect(body.data.failed).toEqual([
        { to: STRANGER, error: expect.stringMatching(/^131030 .*not in allowed list/) as string },
      ]);
      expect(wa.messages()).toHaveLength(3);
    });

    it('nobody reached is a 502 with WhatsApp’s reason and the report', async () => {
      const res = await whatsapp({ phone: STRANGER, message: 'x' });
      expect(res.statusCode).toBe(502);
      expect(res.json()).toMatchObject({
        status: 'error',
        message: expect.stringMatching(/^WhatsApp did not deliver the notification: 131030/) as string,
        data: { sent: [], failed: [{ to: STRANGER }] },
      });
    });

    it('another user’s name is 403 and sends nothing', async () => {
      const res = await whatsapp({ username: 'bob', message: 'x' });
      expect(res.statusCode).toBe(403);
      expect(sent()).toBe(0);
    });
  });

  describe('a channel that is not set up is refused with 409, saying what to save', () => {
    it('no Telegram chat, no WhatsApp credentials: nothing is sent', async () => {
      const tg = await post('/api/v1/telegram/notify', { apikey: bobKey, message: 'x' });
      expect(tg.statusCode).toBe(409);
      expect(tg.json()).toEqual({
        status: 'error',
        message: 'Telegram is not set up for bob: save a bot token and chat id under Profile → Order alerts',
        code: 'conflict',
      });
      const w = await post('/api/v1/whatsapp/notify', { apikey: bobKey, self: true, message: 'x' });
      expect(w.statusCode).toBe(409);
      expect(w.json<{ message: string }>().message).toMatch(
        /^WhatsApp is not set up for bob: save a WhatsApp/,
      );
      expect(sent()).toBe(0);
    });

    it('a bot token without a chat id is not set up', async () => {
      await t.services.alerts.settings.update(bobId, { telegram_bot_token: BOB_TOKEN });
      expect((await post('/api/v1/telegram/notify', { apikey: bobKey, message: 'x' })).statusCode).toBe(409);
    });

    it('self without an own number is 409; a phone still goes', async () => {
      await t.services.alerts.settings.update(adminId, { whatsapp_own_number: null });
      const self = await whatsapp({ self: true, message: 'x' });
      expect(self.statusCode).toBe(409);
      expect(self.json<{ message: string }>().message).toMatch(/^No own WhatsApp number is saved for admin/);
      expect(wa.requests).toHaveLength(0);
      expect((await whatsapp({ phone: FRIEND, message: 'x' })).statusCode).toBe(200);
    });
  });

  describe('bad input is a 4xx naming the field, never a 500, and sends nothing', () => {
    const long = 'x'.repeat(4097);
    it.each([
      ['no message', {}, 'message'],
      ['an empty message', { message: '' }, 'message'],
      ['a blank message', { message: '   \n ' }, 'message'],
      ['a message over 4096 characters', { message: long }, 'message'],
      ['a number for the message', { message: 42 }, 'message'],
      ['priority above 10', { message: 'x', priority: 11 }, 'priority'],
      ['priority below 1', { message: 'x', priority: 0 }, 'priority'],
      ['a fractional priority', { message: 'x', priority: 2.5 }, 'priority'],
      ['a string priority', { message: 'x', priority: 'high' }, 'priority'],
      ['a number for the username', { message: 'x', username: 7 }, 'username'],
    ])('telegram: %s → 400 on %s', async (_label, body, field) => {
      const res = await telegram(body);
      expect(res.statusCode).toBe(400);
      expect(Object.keys(res.json<{ message: Record<string, string[]> }>().message)).toContain(field);
      expect(sent()).toBe(0);
    });

    it.each([
      [
        'six phones',
        {
          phones: [
            '919800000001',
            '919800000002',
            '919800000003',
            '919800000004',
            '919800000005',
            '919800000006',
          ],
        },
        'phones',
      ],
      ['an empty phones list', { phones: [] }, 'phones'],
      ['phones as a string', { phones: OWN }, 'phones'],
      ['a malformed phone', { phone: 'call me' }, 'phone'],
      ['a phone without its country code', { phone: '09876543210' }, 'phone'],
      ['a malformed entry in phones', { phones: [OWN, '12'] }, 'phones.1'],
      ['a string for self', { self: 'yes' }, 'self'],
      ['an image attachment', { self: true, image_path: '/etc/passwd' }, 'image_path'],
      ['a blank message', { self: true, message: ' ' }, 'message'],
      ['an empty message', { self: true, message: '' }, 'message'],
    ])('whatsapp: %s → 400 on %s', async (_label, body, field) => {
      const res = await whatsapp({ message: 'x', ...body });
      expect(res.statusCode).toBe(400);
      expect(Object.keys(res.json<{ message: Record<string, string[]> }>().message)).toContain(field);
      expect(sent()).toBe(0);
    });

    it.each([
      ['no recipient', { message: 'x' }, "Specify one recipient: 'self', 'username', 'phone' or 'phones'"],
      [
        'self: false alone',
        { self: false, message: 'x' },
        "Specify one recipient: 'self', 'username', 'phone' or 'phones'",
      ],
      [
        'self and a phone',
        { self: true, phone: FRIEND, message: 'x' },
        'Specify only one recipient, not self and phone',
      ],
    ])('whatsapp: %s → 400 saying so', async (_label, body, message) => {
      const res = await whatsapp(body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ status: 'error', message, code: 'bad_request' });
      expect(sent()).toBe(0);
    });

    it('hostile values in any recipient or option field are 4xx and reach no chat server', async () => {
      const hostile = [
        "' OR '1'='1' --",
        '<script>alert(1)</script>',
        '../../../../etc/passwd',
        'a\u0000b',
        '😀'.repeat(300),
        '__proto__',
        '91987654321\r\nX-Injected: 1',
      ];
      const statuses = new Set<number>();
      for (const v of hostile) {
        // A fresh rate-limit window for each value: the answers are the input's, not the limit's.
        t.clock.advance(60_000);
        for (const body of [{ username: v }, { priority: v }, { message: 'x', priority: [v] }]) {
          const res = await telegram({ message: 'x', ...body });
          statuses.add(res.statusCode);
        }
        for (const body of [{ username: v }, { phone: v }, { phones: [v] }, { self: v }, { phones: { v } }]) {
          const res = await whatsapp({ message: 'x', ...body });
          statuses.add(res.statusCode);
        }
      }
      const poisoned = await post(
        '/api/v1/whatsapp/notify',
        `{"apikey":"${apikey}","self":true,"message":"x","__proto__":{"self":true}}`,
      );
      statuses.add(poisoned.statusCode);
      expect([...statuses].sort()).toEqual([400, 403]); // 403: a username that is not the caller's
      expect(sent()).toBe(0);
    });

    it('malformed JSON, a body that is not an object, and a huge body are 4xx', async () => {
      for (const url of ['/api/v1/telegram/notify', '/api/v1/whatsapp/notify']) {
        expect((await post(url, '{"apikey": "x", "message": ')).statusCode).toBe(400);
        expect((await post(url, '[1,2]')).statusCode).toBe(400);
        const huge = await post(url, { apikey, self: true, message: 'x'.repeat(40_000) });
        expect(huge.statusCode).toBe(413);
        expect(huge.json()).toMatchObject({ status: 'error', message: 'Request body is too large' });
      }
      expect(sent()).toBe(0);
    });

    it('the schema is checked before the key; an unknown key is 403', async () => {
      const noKey = await post('/api/v1/telegram/notify', { message: 'x' });
      expect(noKey.statusCode).toBe(400);
      expect(noKey.json<{ message: Record<string, string[]> }>().message).toEqual({
        apikey: ['Missing data for required field.'],
      });
      const badKey = await post('/api/v1/whatsapp/notify', {
        apikey: 'f'.repeat(64),
        self: true,
        message: 'x',
      });
      expect(badKey.statusCode).toBe(403);
      expect(badKey.json()).toMatchObject({ code: 'invalid_api_key' });
      expect(sent()).toBe(0);
    });

    it('each route allows 30 calls a minute per client, then 429', async () => {
      for (let i = 0; i < 30; i++) expect((await post('/api/v1/telegram/notify', {})).statusCode).toBe(400);
      const over = await post('/api/v1/telegram/notify', {});
      expect(over.statusCode).toBe(429);
      expect(over.headers['retry-after']).toBeDefined();
      // The other route counts on its own.
      expect((await whatsapp({ self: true, message: 'x' })).statusCode).toBe(200);
    });
  });

  describe('secrets never leave: not in answers, logs or the database', () => {
    it('the API key, bot token and access token appear nowhere, even when a server echoes them', async () => {
      const answers: string[] = [];
      answers.push((await telegram({ message: 'ok' })).body);
      chat.answerNext({ status: 400, body: telegramError(400, `Bad Request: bot${TOKEN} key ${apikey}`) });
      answers.push((await telegram({ message: 'echo' })).body);
      wa.answerNext({ status: 400, body: graphError(100, `token ${wa.accessToken} key ${apikey}`) });
      answers.push((await whatsapp({ phone: FRIEND, message: 'echo' })).body);
      answers.push((await whatsapp({ self: true, message: 'ok' })).body);
      answers.push((await telegram({ username: 'bob', message: 'x' })).body);
      answers.push((await post('/api/v1/telegram/notify', { apikey: bobKey, message: 'x' })).body);
      expect(answers[1]).toContain('[redacted]');
      expect(answers[2]).toContain('[redacted]');
      const row = await t.db.database.db
        .selectFrom('alert_settings')
        .selectAll()
        .where('user_id', '=', adminId)
        .executeTakeFirstOrThrow();
      expect(row.whatsapp_access_token_encrypted).toMatch(/^v1\./);
      const everything = [...answers, t.logs.join('\n'), JSON.stringify(row)].join('\n');
      for (const secret of [apikey, bobKey, TOKEN, wa.accessToken]) expect(everything).not.toContain(secret);
      // The sends were logged, with the channel and status only.
      expect(t.logs.join('\n')).toContain('notify sent');
    });
  });

  describe('the console saves the WhatsApp sender through /settings/alerts', () => {
    it('the view shows the token as set, the phone-number id and the own number; bad fields are named', async () => {
      const browser = await login(t);
      const save = (payload: Record<string, unknown>) =>
        t.app.inject({ method: 'POST', url: '/settings/alerts', headers: asBrowser(browser), payload });
      const fresh = 'EAAGfresh' + 'Z'.repeat(40);
      const res = await save({
        whatsapp_access_token: fresh,
        whatsapp_phone_number_id: wa.phoneNumberId,
        whatsapp_own_number: '+1 (415) 555-0100',
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        settings: {
          whatsapp_access_token_set: true,
          whatsapp_phone_number_id: wa.phoneNumberId,
          whatsapp_own_number: FRIEND,
        },
      });
      const got = await t.app.inject({
        method: 'GET',
        url: '/settings/alerts',
        headers: { cookie: browser.cookie },
      });
      for (const body of [res.body, got.body]) expect(body).not.toContain(fresh);
      const bad = await save({
        whatsapp_access_token: 'has spaces in it but is long enough',
        whatsapp_phone_number_id: 'abc',
        whatsapp_own_number: '12',
      });
      expect(bad.statusCode).toBe(400);
      expect(Object.keys(bad.json<{ errors: Record<string, string[]> }>().errors).sort()).toEqual([
        'whatsapp_access_token',
        'whatsapp_own_number',
        'whatsapp_phone_number_id',
      ]);
      expect(bad.body).not.toContain('has spaces');
      const cleared = await save({ whatsapp_access_token: null });
      expect(cleared.json()).toMatchObject({ settings: { whatsapp_access_token_set: false } });
      const refused = await whatsapp({ self: true, message: 'x' });
      expect(refused.statusCode).toBe(409);
    });
  });
});
