/**
 * `/settings/alerts` routes (orders issue, part 5). Until app.ts registers them, each test
 * mounts them on a Fastify instance built like the app's session scope (error handler,
 * validation, body parsing, cookie plugin, the real session guard), with sessions from a real
 * test app.
 */
import cookie from '@fastify/cookie';
import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AlertSettingsRepository } from '../../src/modules/alerts/alert-settings.repository.js';
import { AlertSettingsService } from '../../src/modules/alerts/alert-settings.service.js';
import { AlertDelivery } from '../../src/modules/alerts/alerts.consumer.js';
import { alertRoutes } from '../../src/modules/alerts/alerts.routes.js';
import { createSessionGuard } from '../../src/modules/auth/session.guard.js';
import { registerBodyParsing } from '../../src/platform/http/body.plugin.js';
import { registerErrorHandling } from '../../src/platform/http/errors.plugin.js';
import type { App } from '../../src/platform/http/types.js';
import { registerValidation } from '../../src/platform/http/validation.plugin.js';
import { LocalInvalidationBus } from '../../src/platform/invalidation.js';
import { ChatStub, botToken, telegramError } from '../helpers/chat-alerts.js';
import {
  appWithAdmin,
  asBrowser,
  describeEachDb,
  schemaCompilers,
  type Browser,
  type TestApp,
} from '../helpers/test-app.js';

const HOOK = '/services/T0005/B0005/hookSecretValue555555';

describeEachDb('alert settings routes', (dialect) => {
  let t: TestApp;
  let admin: Browser;
  let app: App;
  let stub: ChatStub;
  beforeEach(async () => {
    ({ t, admin } = await appWithAdmin(dialect));
    stub = await new ChatStub().start();
    const settings = new AlertSettingsService(
      new AlertSettingsRepository(t.db.database.db),
      t.config.appKey,
      t.clock,
      new LocalInvalidationBus(),
    );
    app = Fastify({ loggerInstance: t.app.log as never }).withTypeProvider() as unknown as App;
    registerErrorHandling(app);
    registerValidation(app, schemaCompilers);
    registerBodyParsing(app);
    await app.register(cookie, { hook: false });
    alertRoutes(app, {
      settings,
      delivery: new AlertDelivery({ telegramBaseUrl: stub.url, defaultRetryWaitMs: 10 }),
      guard: createSessionGuard(t.services.auth.sessions, t.services.auth.users),
      rateLimit: (_req, _reply, done) => done(),
    });
    await app.ready();
  });
  afterEach(async () => {
    await app.close();
    await stub.close();
    await t.close();
  });

  const save = (payload: unknown, headers: Record<string, string> = asBrowser(admin)) =>
    app.inject({ method: 'POST', url: '/settings/alerts', headers, payload: payload as object });
  const valid = () => ({
    telegram_enabled: true,
    telegram_bot_token: botToken(5),
    telegram_chat_id: '-100555',
    slack_enabled: true,
    slack_webhook_url: stub.url + HOOK,
  });

  describe('a session is required, and CSRF on every POST', () => {
    it('401 without a session, 403 without the CSRF token', async () => {
      expect((await app.inject({ method: 'GET', url: '/settings/alerts' })).statusCode).toBe(401);
      expect((await save(valid(), { cookie: admin.cookie })).statusCode).toBe(403);
      const test = await app.inject({
        method: 'POST',
        url: '/settings/alerts/test',
        headers: { cookie: admin.cookie },
      });
      expect(test.statusCode).toBe(403);
    });
  });

  describe('saving answers the display view, which never carries a credential', () => {
    it('POST then GET show flags and hints only', async () => {
      const res = await save(valid());
      expect(res.statusCode).toBe(200);
      const got = await app.inject({
        method: 'GET',
        url: '/settings/alerts',
        headers: { cookie: admin.cookie },
      });
      expect(got.json()).toMatchObject({
        status: 'success',
        settings: {
          telegram_bot_token_set: true,
          telegram_chat_id_hint: '…0555',
          slack_webhook_url_set: true,
        },
      });
      for (const body of [res.body, got.body, t.logs.join('\n')])
        for (const secret of [botToken(5), 'hookSecretValue']) expect(body).not.toContain(secret);
    });
  });

  describe('bad input is a 400 naming the field', () => {
    it.each([
      ['a malformed token', { telegram_bot_token: 'nope' }, 'telegram_bot_token'],
      ['a malformed chat id', { telegram_chat_id: 'x y' }, 'telegram_chat_id'],
      ['a non-loopback http webhook', { slack_webhook_url: 'http://example.com/hook' }, 'slack_webhook_url'],
      ['an unknown notify_on', { notify_on: 'never' }, 'notify_on'],
      ['a string for a boolean', { telegram_enabled: 'yes' }, 'telegram_enabled'],
      ['an unknown field', { telegram_token: botToken(1) }, '_body'],
    ])('%s → errors.%s', async (_label, payload, field) => {
      const res = await save(payload);
      expect(res.statusCode).toBe(400);
      expect(Object.keys((res.json() as { errors: Record<string, string[]> }).errors)).toContain(field);
      expect(res.body).not.toContain(botToken(1));
    });
  });

  describe('the test route reports each channel without secrets', () => {
    it('Telegram refused, Slack delivered → status error with both outcomes', async () => {
      await save(valid());
      stub.answerNext({ status: 400, body: telegramError(400, 'Bad Request: chat not found') });
      const res = await app.inject({
        method: 'POST',
        url: '/settings/alerts/test',
        headers: asBrowser(admin),
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        status: 'error',
        message: 'Test alert failed on telegram (400 Bad Request: chat not found)',
        results: [
          { channel: 'telegram', ok: false, status: 400, error: '400 Bad Request: chat not found' },
          { channel: 'slack', ok: true, status: 200 },
        ],
      });
      expect(stub.slack(HOOK)[0]?.text).toMatch(/^🔔 Test alert from algodesk for admin/);
      for (const secret of [botToken(5), 'hookSecretValue']) expect(res.body).not.toContain(secret);
    });

    it('every channel delivered → success', async () => {
      await save(valid());
      const res = await app.inject({
        method: 'POST',
        url: '/settings/alerts/test',
        headers: asBrowser(admin),
      });
      expect(res.json()).toMatchObject({
        status: 'success',
        message: 'Test alert delivered to telegram and slack',
      });
    });

    it('no enabled channel → 400', async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/settings/alerts/test',
        headers: asBrowser(admin),
      });
      expect(res.statusCode).toBe(400);
    });
  });
});
