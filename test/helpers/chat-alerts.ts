/**
 * Test support for chat alerts: a loopback server speaking the Telegram Bot API's `sendMessage`
 * and a Slack incoming webhook (node:http on 127.0.0.1, port 0), and a fixture that builds the
 * alerts module on a database of its own (the 0008 migration is applied here until
 * migrations/index.ts lists it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { AlertSettingsRepository } from '../../src/modules/alerts/alert-settings.repository.js';
import { AlertSettingsService } from '../../src/modules/alerts/alert-settings.service.js';
import {
  AlertDelivery,
  alertConsumer,
  type AlertDeliveryOptions,
} from '../../src/modules/alerts/alerts.consumer.js';
import type { OrderEvent } from '../../src/modules/orders/order-events.js';
import { FakeClock } from '../../src/platform/clock.js';
import type { Dialect } from '../../src/platform/db/database.js';
import { LocalInvalidationBus } from '../../src/platform/invalidation.js';
import { createLogger } from '../../src/platform/logger.js';
import { ScriptedStub, type StubAnswer, type StubRequest } from './scripted-stub.js';
import { captureStream, createTestDatabase, type TestDatabase } from './test-app.js';

/** A request the stub received, and a scripted answer (test/helpers/scripted-stub.ts). */
export type ChatRequest = StubRequest;
export type ChatAnswer = StubAnswer;

/** Telegram's documented error shape. */
export const telegramError = (code: number, description: string, extra: Record<string, unknown> = {}) => ({
  ok: false,
  error_code: code,
  description,
  ...extra,
});

/**
 * Loopback Telegram + Slack. Unscripted requests get the real services' success answers:
 * `POST /bot<token>/sendMessage` → `{"ok":true,"result":{…}}`, `POST /services/…` → 200 `ok`;
 * anything else 404 `no_service`.
 */
export class ChatStub extends ScriptedStub {
  /** `{chat_id, text}` of every Telegram message sent with `token`. */
  telegram(token: string): Record<string, unknown>[] {
    return this.requests.filter((r) => r.path === `/bot${token}/sendMessage`).map((r) => r.json ?? {});
  }

  /** `{text}` of every message posted to the webhook path. */
  slack(path: string): Record<string, unknown>[] {
    return this.requests.filter((r) => r.path === path).map((r) => r.json ?? {});
  }

  protected answer({ path, json }: StubRequest): ChatAnswer {
    if (/^\/bot\d+:[\w-]+\/sendMessage$/.test(path))
      return {
        status: 200,
        body: {
          ok: true,
          result: { message_id: this.requests.length, chat: { id: json?.chat_id }, text: json?.text },
        },
      };
    if (path.startsWith('/services/')) return { status: 200, body: 'ok' };
    return { status: 404, body: 'no_service' };
  }
}

/** A bot token in BotFather's format, distinct per `n`. */
export const botToken = (n: number) =>
  `${100000000 + n}:AAH${'x'.repeat(20)}secret${String(n).padStart(8, '0')}`;

/** An order event for `userId` with the usual placeorder fields. */
export function orderEvent(userId: number | null, over: Partial<OrderEvent> = {}): OrderEvent {
  return {
    name: 'order.placed',
    mode: 'live',
    userId,
    apiType: 'placeorder',
    broker: 'zerodha',
    orderId: '123',
    statusCode: 200,
    request: {
      strategy: '',
      symbol: 'SBIN',
      exchange: 'NSE',
      action: 'BUY',
      quantity: 10,
      pricetype: 'MARKET',
      product: 'MIS',
      price: '0',
      trigger_price: '0',
    },
    response: { status: 'success', orderid: '123' },
    at: Date.UTC(2026, 0, 5, 4),
    ...over,
  };
}

/** The alerts module on a database of its own, with a chat stub and captured logs. */
export async function alertsFixture(dialect: Dialect, delivery: AlertDeliveryOptions = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'algodesk-alerts-'));
  const db: TestDatabase = await createTestDatabase(dialect, dataDir);
  const stub = await new ChatStub().start();
  const { lines, stream } = captureStream();
  const logger = createLogger('trace', stream);
  const clock = new FakeClock();
  const bus = new LocalInvalidationBus();
  const appKey = randomBytes(32).toString('base64url');
  const settings = new AlertSettingsService(
    new AlertSettingsRepository(db.database.db),
    appKey,
    clock,
    bus,
    logger,
  );
  const alerts = new AlertDelivery({ telegramBaseUrl: stub.url, ...delivery });
  let users = 0;
  return {
    db,
    stub,
    logs: lines,
    logger,
    clock,
    bus,
    appKey,
    settings,
    delivery: alerts,
    consume: alertConsumer({ settings, delivery: alerts, logger }),
    /** Inserts a user row (no password hashing) and returns its id. */
    async addUser(name = `user${++users}`): Promise<number> {
      const row = await db.database.db
        .insertInto('users')
        .values({
          username: name,
          email: null,
          password_hash: 'x',
          is_admin: 0,
          order_mode: 'auto',
          totp_secret: null,
          totp_enabled: 0,
          totp_required_for_login: 0,
          totp_required_for_mcp: 0,
          totp_required_for_password_reset: 0,
          created_at: clock.now(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return Number(row.id);
    },
    async close() {
      await stub.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type AlertsFixture = Awaited<ReturnType<typeof alertsFixture>>;
