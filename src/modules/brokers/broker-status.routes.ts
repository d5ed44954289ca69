/**
 * `GET /broker/api/status` (session): what the console's `/broker` page shows
 * (docs/rules/web.md#account-pages) — the configured broker (`BROKER_NAME`), whether its login can
 * start (the broker app's key is set), and the user's stored session as connected or expired with
 * its times. Never the token, the API key or the secret.
 */
import { Type } from 'typebox';
import { ErrorBody } from '../../platform/http/error-body.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { LoginField } from './broker-adapter.js';
import type { BrokerSessionsService } from './broker-sessions.service.js';

const Iso = Type.String({ description: 'ISO 8601 time' });
const StatusResponse = Type.Object({
  status: Type.Literal('success'),
  /** `BROKER_NAME`, null when no live broker is configured. */
  broker: Type.Union([Type.String(), Type.Null()]),
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
    brokerName: string | undefined;
    loginAvailable: boolean;
    /** The configured broker's form-login fields; undefined for a redirect login. */
    loginFields: readonly LoginField[] | undefined;
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
      const s = await deps.sessions.describe(req.session!.userId);
      return {
        status: 'success' as const,
        broker: deps.brokerName ?? null,
        login_available: deps.loginAvailable,
        login_kind: !deps.brokerName ? null : deps.loginFields ? ('form' as const) : ('redirect' as const),
        login_fields: (deps.loginFields ?? []).map((f) => ({
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
