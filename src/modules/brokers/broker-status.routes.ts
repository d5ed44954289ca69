/**
 * `GET /broker/api/status` (session): what the console's `/broker` page shows
 * (docs/rules/web.md#account-pages) — the user's broker app (their choice among the install's
 * apps, else the bootstrap one from `BROKER_*`) and its broker, whether its login can start (the
 * app has what its broker's login needs), how it logs in, the apps to choose from, and the user's
 * stored session as connected or expired with its times. Never a token, an API key or a secret.
 */
import { Type } from 'typebox';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { BrokerAdapter, LoginField } from './broker-adapter.js';
import type { BrokerApp, BrokerAppsService } from './broker-apps.service.js';
import type { BrokerSessionsService } from './broker-sessions.service.js';

const Iso = Type.String({ description: 'ISO 8601 time' });
const StatusResponse = Type.Object({
  status: Type.Literal('success'),
  /** The broker of the user's app, null when the install has no broker app. */
  broker: Type.Union([Type.String(), Type.Null()]),
  /** The user's broker app (0: the bootstrap app from `BROKER_*`), null when there is none. */
  app_id: Type.Union([Type.Integer(), Type.Null()]),
  /** The install's broker apps the user may choose (`PUT /broker/api/app`). */
  apps: Type.Array(Type.Object({ id: Type.Integer(), label: Type.String(), broker: Type.String() })),
  /** Whether the login can start (a broker, and its app key when the broker needs one). */
  login_available: Type.Boolean(),
  /**
   * How the broker logs in: `redirect` (`GET /broker/login`: the broker's page, then its callback)
   * or `form` (`POST /broker/login/form` with `login_fields`); null without a broker.
   */
  login_kind: Type.Union([Type.Literal('redirect'), Type.Literal('form'), Type.Null()]),
  /** The form login's fields (none for a redirect login). */
  login_fields: Type.Array(
    Type.Object({
      name: Type.String(),
      label: Type.String(),
      secret: Type.Boolean(),
      pattern: Type.String(),
      hint: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  /** The user's broker session: none, connected, or expired (log in again). */
  state: Type.Union([Type.Literal('none'), Type.Literal('connected'), Type.Literal('expired')]),
  session: Type.Union([
    Type.Null(),
    Type.Object({
      broker: Type.String(),
      /** The broker's id of the account that logged in (Kite `user_id`), when it said. */
      broker_user_id: Type.Union([Type.String(), Type.Null()]),
      connected_at: Iso,
      /** When the broker's token lapses (Kite: 06:00 IST the next morning); null: not stated. */
      expires_at: Type.Union([Iso, Type.Null()]),
    }),
  ]),
});

export function brokerStatusRoutes(
  app: App,
  deps: {
    appOf: (userId: number) => Promise<{ app: BrokerApp; adapter: BrokerAdapter } | undefined>;
    apps: BrokerAppsService;
    sessions: BrokerSessionsService;
    guard: SessionGuard;
    rateLimit: RateLimitHook;
  },
): void {
  app.get(
    '/broker/api/status',
    {
      onRequest: deps.rateLimit,
      preHandler: deps.guard(),
      schema: {
        summary: "The configured broker and the user's broker session (never the token)",
        tags: ['brokers'],
        response: { 200: StatusResponse, 401: ErrorBody, 429: ErrorBody },
      },
    },
    async (req) => {
      const userId = req.session!.userId;
      const [s, mine] = await Promise.all([deps.sessions.describe(userId), deps.appOf(userId)]);
      const fields: readonly LoginField[] | undefined = mine?.adapter.loginFields;
      const view = mine ? deps.apps.list().find((a) => a.id === mine.app.id) : undefined;
      return {
        status: 'success' as const,
        broker: mine?.app.broker ?? null,
        app_id: mine?.app.id ?? null,
        apps: deps.apps.list().map((a) => ({ id: a.id, label: a.label, broker: a.broker })),
        login_available: view?.complete ?? false,
        login_kind: !mine ? null : fields ? ('form' as const) : ('redirect' as const),
        login_fields: (fields ?? []).map((f) => ({
          name: f.name,
          label: f.label,
          secret: f.secret,
          pattern: f.pattern,
          hint: f.hint ?? null,
        })),
        state: !s ? ('none' as const) : s.expired ? ('expired' as const) : ('connected' as const),
        session: s
          ? {
              broker: s.broker,
              broker_user_id: s.brokerUserId,
              connected_at: new Date(s.connectedAt).toISOString(),
              expires_at: s.expiresAt === null ? null : new Date(s.expiresAt).toISOString(),
            }
          : null,
      };
    },
  );
}
