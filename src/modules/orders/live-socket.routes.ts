/**
 * `GET /ws`, the live socket (docs/rules/orders.md#live-socket). Authentication happens before the
 * upgrade, as an ordinary HTTP answer the client can read: an unknown or ended session → 401
 * `session_required` (with the live feed, a request with no session cookie at all is an OpenAlgo
 * feed client instead: docs/rules/market-data.md#feed-protocol; without it, 401 too), a
 * foreign `Origin` → 403 `origin_forbidden`, over the per-user bound → 429 `too_many_sockets`, over
 * the total bound → 503 `socket_capacity`; a plain (non-upgrade) GET → 426. Only an admitted
 * request is upgraded. Later, the socket closes with 4401 when its session ends and with 1013 when
 * it cannot keep up (see live-socket.ts).
 *
 * Must be registered inside the session scope (the `@fastify/cookie` plugin parses the cookie).
 * `@fastify/websocket` is registered here in a child scope of its own, so its hooks touch no
 * other route; register this once per app (the plugin listens to the server's upgrades).
 */
import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import websocket from '@fastify/websocket';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  originForbidden,
  sessionRequired,
  socketCapacity,
  tooManyRequests,
  tooManySockets,
  type ErrorCode,
} from '../../platform/errors.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import { documentHook, type HookDoc } from '../../platform/http/hook-doc.js';
import { readSessionCookie, SESSION_CREDENTIAL } from '../auth/session.guard.js';
import type { SessionsService } from '../auth/sessions.service.js';
import type { LiveSocket, LiveSocketHub } from './live-socket.js';

export interface LiveSocketRouteDeps {
  hub: LiveSocketHub;
  sessions: SessionsService;
  /** Rate limit of upgrade attempts (each one costs a session lookup). */
  rateLimit?: RateLimitHook;
  /**
   * Origins allowed besides the request's own host (e.g. `new URL(config.hostServer).origin`
   * behind a proxy that rewrites `Host`). Requests without `Origin` (non-browser clients) pass.
   */
  allowedOrigins?: readonly string[];
  /**
   * The live feed (docs/rules/market-data.md#feed-protocol): a request without a session cookie is
   * an OpenAlgo feed client (API key in its first message), served here for reverse proxies; a
   * session's socket also takes the feed's commands (subscribe, …) beside its order events.
   */
  feed?: {
    admit(
      ip: string,
    ): Promise<{ ok: true } | { ok: false; status: 429 | 503; message: string; retryAfterMs?: number }>;
    adopt(ws: WebSocket, ip: string, principal?: { userId: number }): void;
  };
}

/** Largest frame a client may send: the feed's (a subscribe of many symbols); without the feed, 4 KiB. */
const MAX_CLIENT_FRAME = 64 * 1024;
const MAX_CLIENT_FRAME_NO_FEED = 4096;

/**
 * Cross-site WebSocket hijacking: browsers send cookies on WebSocket handshakes and CORS does not
 * apply, so a page of another origin must not ride the user's session (SameSite=Lax already
 * stops cross-site pages; this also stops same-site siblings).
 */
function originAllowed(req: FastifyRequest, allowed: readonly string[]): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (allowed.includes(origin)) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/** What the upgrade check reads and may answer, for the API reference (platform/http/hook-doc.ts). */
const UPGRADE_DOC: HookDoc = {
  credentials: [SESSION_CREDENTIAL],
  answers: [
    { status: 401, code: 'session_required', when: 'no live session' },
    { status: 403, code: 'origin_forbidden', when: "the `Origin` is not this service's" },
    { status: 426, code: 'upgrade_required', when: 'a plain GET, not a WebSocket upgrade' },
    { status: 429, code: 'too_many_sockets', when: 'the user has the most live sockets allowed' },
    { status: 503, code: 'socket_capacity', when: 'the server has the most live sockets it takes' },
  ],
};

/** Registers `@fastify/websocket` (in a child scope) and `GET /ws`. */
export async function liveSocketRoutes(app: App, deps: LiveSocketRouteDeps): Promise<void> {
  const { hub, sessions } = deps;
  const allowed = deps.allowedOrigins ?? [];
  await app.register(async (child) => {
    const scope = child as unknown as App;
    // Sockets close with 1001 before the plugin's own pre-close closes the rest.
    scope.addHook('preClose', async () => hub.close());
    await scope.register(websocket, {
      options: { maxPayload: deps.feed ? MAX_CLIENT_FRAME : MAX_CLIENT_FRAME_NO_FEED },
    });

    /** The session of each admitted upgrade request, for the socket handler. */
    const admitted = new WeakMap<IncomingMessage, { userId: number; token: string } | 'feed'>();

    scope.route({
      method: 'GET',
      url: '/ws',
      ...(deps.rateLimit ? { onRequest: deps.rateLimit } : {}),
      schema: {
        summary:
          'Live socket (WebSocket): order events as they happen, and the live feed (OpenAlgo protocol)',
        tags: ['orders'],
        response: {
          101: Type.Null({ description: 'Switching Protocols: the socket is open' }),
          401: ErrorBody,
          403: ErrorBody,
          426: ErrorBody,
          429: ErrorBody,
          503: ErrorBody,
        },
      },
      preHandler: documentHook(async (req: FastifyRequest, reply: FastifyReply) => {
        if (!req.ws) return; // a plain GET: the handler answers 426 without a lookup
        // A refusal ends the connection (the plugin destroys the socket): say so to the client.
        reply.header('connection', 'close');
        if (readSessionCookie(req) === undefined && deps.feed) {
          // No session at all: an OpenAlgo feed client, which authenticates with its API key in its
          // first message. No ambient credential rides along, so any origin may connect.
          const room = await deps.feed.admit(req.clientIp);
          if (!room.ok)
            throw room.status === 503
              ? socketCapacity(room.message)
              : tooManyRequests(room.message, Math.max(1, Math.ceil((room.retryAfterMs ?? 1000) / 1000)));
          admitted.set(req.raw, 'feed');
          return;
        }
        if (!originAllowed(req, allowed)) {
          throw originForbidden('WebSocket connections from this origin are not allowed');
        }
        const token = readSessionCookie(req);
        const row = await sessions.resolve(token);
        if (row === undefined || token === undefined) {
          throw sessionRequired();
        }
        const room = hub.capacity(row.user_id);
        if (room === 'user_limit') {
          throw tooManySockets('Too many live sockets open for this user');
        }
        if (room !== 'ok') throw socketCapacity('Live socket capacity reached, retry later');
        admitted.set(req.raw, { userId: row.user_id, token });
      }, UPGRADE_DOC),
      handler: async (_req, reply) =>
        reply
          .code(426)
          .header('upgrade', 'websocket')
          .send({
            status: 'error' as const,
            message: 'GET /ws is a WebSocket endpoint: send an upgrade request',
            code: 'upgrade_required' satisfies ErrorCode,
          }),
      wsHandler: (socket, req) => {
        const who = admitted.get(req.raw);
        admitted.delete(req.raw);
        const ws = socket as unknown as LiveSocket;
        if (!who) return ws.close(1008, 'not admitted');
        if (who === 'feed') return deps.feed!.adopt(socket, req.clientIp);
        deps.feed?.adopt(socket, req.clientIp, { userId: who.userId });
        // Re-checked every few minutes: a logged-out or revoked session loses its socket.
        const check = async () => (await sessions.resolve(who.token))?.user_id === who.userId;
        hub.admit(who.userId, ws, check);
      },
    });
  });
}
