/**
 * Account management over HTTP (docs/rules/auth.md#account-management): the administrator's
 * `/admin/api/users` family and a user's own `POST /auth/password`. Session routes: CSRF token,
 * and for `/admin/api/users` the administrator flag.
 */
import { ErrorBody } from '../../platform/http/error-body.js';
import type { App } from '../../platform/http/types.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { AccountsService } from './accounts.service.js';
import {
  AdminFlagBody,
  ChangePasswordAnswer,
  ChangePasswordBody,
  DisabledFlagBody,
  NewUserBody,
  SetPasswordBody,
  StatusSuccess,
  UserAnswer,
  UserIdParams,
  UsersList,
} from './auth.schema.js';
import type { SessionGuard } from './session.guard.js';
import type { UsersService } from './users.service.js';

export interface AccountRouteDeps {
  accounts: AccountsService;
  users: UsersService;
  guard: SessionGuard;
  rateLimit: RateLimitHook;
}

export function accountRoutes(app: App, deps: AccountRouteDeps): void {
  const { accounts, users } = deps;
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody };
  const admin = { onRequest: deps.rateLimit, preHandler: deps.guard({ admin: true }) };
  const tags = ['auth'];

  app.get(
    '/admin/api/users',
    {
      ...admin,
      schema: {
        summary: 'Every user, with role, two-factor and state',
        tags,
        response: { 200: UsersList, ...errors },
      },
    },
    async () => ({ status: 'success' as const, data: await users.list() }),
  );

  app.post(
    '/admin/api/users',
    {
      ...admin,
      schema: {
        summary: 'Create a user (an administrator when asked)',
        tags,
        body: NewUserBody,
        response: { 201: UserAnswer, ...errors },
      },
    },
    async (req, reply) => {
      const created = await accounts.create(req.body);
      reply.code(201);
      return { status: 'success' as const, data: created };
    },
  );

  app.post(
    '/admin/api/users/:id/admin',
    {
      ...admin,
      schema: {
        summary: 'Make a user an administrator, or not (never the last enabled one)',
        tags,
        params: UserIdParams,
        body: AdminFlagBody,
        response: { 200: UserAnswer, ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: await accounts.setAdmin(req.params.id, req.body.admin),
    }),
  );

  app.post(
    '/admin/api/users/:id/password',
    {
      ...admin,
      schema: {
        summary: "Set a user's password (every session of the user ends)",
        tags,
        params: UserIdParams,
        body: SetPasswordBody,
        response: { 200: StatusSuccess, ...errors },
      },
    },
    async (req) => {
      await accounts.setPassword(req.params.id, req.body.password);
      return { status: 'success' as const };
    },
  );

  app.post(
    '/admin/api/users/:id/2fa/reset',
    {
      ...admin,
      schema: {
        summary: "Turn a user's two-factor off and forget its secret (a lost phone)",
        tags,
        params: UserIdParams,
        response: { 200: UserAnswer, ...errors },
      },
    },
    async (req) => ({ status: 'success' as const, data: await accounts.resetTwoFactor(req.params.id) }),
  );

  app.post(
    '/admin/api/users/:id/disabled',
    {
      ...admin,
      schema: {
        summary: 'Disable a user (sessions, API key and agent tokens revoked) or enable it again',
        tags,
        params: UserIdParams,
        body: DisabledFlagBody,
        response: { 200: UserAnswer, ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: await accounts.setDisabled(req.params.id, req.body.disabled),
    }),
  );

  app.delete(
    '/admin/api/users/:id',
    {
      ...admin,
      schema: {
        summary: 'Delete a user and what belongs to it (never the last enabled administrator)',
        tags,
        params: UserIdParams,
        response: { 200: StatusSuccess, ...errors },
      },
    },
    async (req) => {
      await accounts.delete(req.params.id);
      return { status: 'success' as const };
    },
  );

  app.post(
    '/auth/password',
    {
      onRequest: deps.rateLimit,
      preHandler: deps.guard(),
      schema: {
        summary: 'Change your own password (the current one, and a code while two-factor is on)',
        tags,
        body: ChangePasswordBody,
        response: { 200: ChangePasswordAnswer, ...errors },
      },
    },
    async (req) => {
      const s = req.session!;
      const { sessions_revoked } = await accounts.changeOwnPassword(s.userId, s.sessionId, {
        current: req.body.current_password,
        next: req.body.new_password,
        totpCode: req.body.totp_code,
      });
      return {
        status: 'success' as const,
        sessions_revoked,
        message:
          sessions_revoked > 0
            ? `Password changed. Your ${sessions_revoked} other session${sessions_revoked === 1 ? '' : 's'} ended.`
            : 'Password changed.',
      };
    },
  );
}
