/**
 * Broker apps over HTTP (docs/rules/brokers.md#broker-apps): an administrator lists, adds, replaces
 * and deletes the install's broker apps (`/admin/api/brokers`; secrets in, never out: an answer
 * says whether each is set), and each user picks the app they trade through
 * (`PUT /broker/api/app`), which ends their session of another app.
 */
import { Type } from 'typebox';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { BrokerAppsService } from './broker-apps.service.js';
import type { BrokerSessionsService } from './broker-sessions.service.js';

const AppView = Type.Object({
  id: Type.Integer({ description: '0: the bootstrap app from the BROKER_* variables (read-only)' }),
  label: Type.String(),
  broker: Type.String(),
  source: Type.Union([Type.Literal('env'), Type.Literal('console')]),
  api_key_set: Type.Boolean(),
  api_secret_set: Type.Boolean(),
  redirect_url: Type.Union([Type.String(), Type.Null()]),
  complete: Type.Boolean({ description: "Whether the app has what its broker's login needs" }),
  created_at: Type.Union([Type.Integer(), Type.Null()]),
});
const Secret = Type.String({ maxLength: 512 });
const Fields = {
  label: Type.Optional(Type.String({ maxLength: 64 })),
  api_key: Type.Optional(Secret),
  api_secret: Type.Optional(Secret),
  redirect_url: Type.Optional(Type.String({ maxLength: 512 })),
};
const Id = Type.Object({ id: Type.Integer({ minimum: 0, maximum: 2_147_483_647 }) });
const errors = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  429: ErrorBody,
};

export function brokerAppsRoutes(
  app: App,
  deps: {
    apps: BrokerAppsService;
    sessions: BrokerSessionsService;
    guard: SessionGuard;
    rateLimit: RateLimitHook;
  },
): void {
  const admin = { onRequest: deps.rateLimit, preHandler: deps.guard({ admin: true }) };
  const tags = ['brokers'];

  app.get(
    '/admin/api/brokers',
    {
      ...admin,
      schema: {
        summary: "The install's broker apps (never a key or a secret)",
        tags,
        response: {
          200: Type.Object({ status: Type.Literal('success'), data: Type.Array(AppView) }),
          ...errors,
        },
      },
    },
    () => ({ status: 'success' as const, data: deps.apps.list() }),
  );

  app.post(
    '/admin/api/brokers',
    {
      ...admin,
      schema: {
        summary: 'Add a broker app',
        description:
          'Zerodha and Upstox apps need api_key, api_secret and redirect_url; Angel One apps api_key; Dhan apps nothing (each user pastes their own token).',
        tags,
        body: Type.Object({
          ...Fields,
          label: Type.String({ maxLength: 64 }),
          broker: Type.String({ maxLength: 16 }),
        }),
        response: { 201: Type.Object({ status: Type.Literal('success'), data: AppView }), ...errors },
      },
    },
    async (req, reply) => {
      const data = await deps.apps.create(req.body);
      return reply.code(201).send({ status: 'success' as const, data });
    },
  );

  app.put(
    '/admin/api/brokers/:id',
    {
      ...admin,
      schema: {
        summary: "Replace a broker app's label or credentials (what is given; the broker never changes)",
        tags,
        params: Id,
        body: Type.Object({ ...Fields, broker: Type.Optional(Type.String({ maxLength: 16 })) }),
        response: { 200: Type.Object({ status: Type.Literal('success'), data: AppView }), ...errors },
      },
    },
    async (req) => ({ status: 'success' as const, data: await deps.apps.replace(req.params.id, req.body) }),
  );

  app.delete(
    '/admin/api/brokers/:id',
    {
      ...admin,
      schema: {
        summary: 'Delete a broker app (its users go back to the bootstrap app and log in again)',
        tags,
        params: Id,
        response: {
          200: Type.Object({ status: Type.Literal('success'), message: Type.String() }),
          ...errors,
        },
      },
    },
    async (req) => {
      const users = await deps.apps.remove(req.params.id);
      for (const u of users) await deps.sessions.forget(u);
      return {
        status: 'success' as const,
        message: `Broker app deleted (${users.length} user(s) must choose again)`,
      };
    },
  );

  app.put(
    '/broker/api/app',
    {
      onRequest: deps.rateLimit,
      preHandler: deps.guard(),
      schema: {
        summary: 'Choose the broker app you trade through (your session of another app ends)',
        tags,
        body: Type.Object({ app_id: Type.Integer({ minimum: 0, maximum: 2_147_483_647 }) }),
        response: {
          200: Type.Object({
            status: Type.Literal('success'),
            message: Type.String(),
            broker: Type.String(),
          }),
          ...errors,
        },
      },
    },
    async (req) => {
      const userId = req.session!.userId;
      const chosen = await deps.apps.choose(userId, req.body.app_id);
      await deps.sessions.forget(userId);
      return {
        status: 'success' as const,
        message: `Your broker app is ${chosen.label}`,
        broker: chosen.broker,
      };
    },
  );
}
