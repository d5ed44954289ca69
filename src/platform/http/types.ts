import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { ApiPrincipal } from '../../modules/auth/api-keys.service.js';
import type { SessionContext } from '../../modules/auth/session.guard.js';

/** The Fastify instance every route module receives: TypeBox schemas give the handler types. */
export type App = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

declare module 'fastify' {
  interface FastifyRequest {
    /** The resolved client address (platform/client-ip.ts), computed once in `onRequest`. */
    clientIp: string;
    /** Set by the session guard on session routes. */
    session?: SessionContext;
    /** Set by the API-key guard on `/api/v1` routes. */
    apiPrincipal?: ApiPrincipal;
    /**
     * What the request still has to do before a graceful shutdown may stop the services under it
     * (bits: handler pending, response pending) and whether its traffic row is written. See
     * platform/http/request-pipeline.ts.
     */
    inFlight: number;
  }
  interface FastifyContextConfig {
    /**
     * A webhook route that refuses every delivery (e.g. a path that cannot hold a well-formed
     * token): it exposes nothing, so the public tunnel's start-up check does not warn about it.
     */
    webhookRefusal?: boolean;
    /**
     * A route that cleans control characters out of its text itself (browser error reports): a
     * NUL in its JSON body is passed through to it instead of refused.
     */
    keepNul?: boolean;
    /**
     * A probe route (health, readiness): no traffic-log row, and it is answered even when the
     * gate's lookup fails (a database outage must not make liveness fail).
     */
    probe?: boolean;
  }
}
