import { Type } from 'typebox';
import type { ApiKeyGuard } from '../auth/api-key.guard.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { App } from '../../platform/http/types.js';
import { ErrorBody } from '../../platform/http/error-body.js';

export const ApiKeyBody = Type.Object({ apikey: Type.String({ minLength: 1, maxLength: 256 }) });

const PingResponse = Type.Object({
  status: Type.Literal('success'),
  data: Type.Object({
    message: Type.Literal('pong'),
    /** The active broker of the key's account, null while none is connected. */
    broker: Type.Union([Type.String(), Type.Null()]),
  }),
});

/** `POST /api/v1/ping {apikey}`: proves the key works (OpenAlgo-compatible). */
export function pingRoutes(
  app: App,
  deps: {
    apiKeyGuard: ApiKeyGuard;
    rateLimit: RateLimitHook;
    /**
     * The broker of the user's live broker session, null while none is connected: `cached`
     * without I/O (undefined when it must be read), `read` otherwise.
     */
    activeBroker: {
      cached: (userId: number) => string | null | undefined;
      read: (userId: number) => Promise<string | null>;
    };
  },
): void {
  const pong = (broker: string | null) => ({
    status: 'success' as const,
    data: { message: 'pong' as const, broker },
  });
  app.post(
    '/api/v1/ping',
    {
      onRequest: deps.rateLimit,
      preHandler: deps.apiKeyGuard,
      schema: {
        summary: 'Check an API key',
        tags: ['openalgo-api'],
        body: ApiKeyBody,
        response: { 200: PingResponse, 400: ErrorBody, 403: ErrorBody, 429: ErrorBody },
      },
    },
    (req) => {
      const userId = req.apiPrincipal!.userId;
      // Answered at once when the session cache knows the broker (the common case): no promise.
      const known = deps.activeBroker.cached(userId);
      if (known !== undefined) return pong(known);
      // Ping proves the key; a broker session that cannot be read (sealed under another APP_KEY,
      // a database hiccup) is reported as none connected, not as a failure of the key.
      return deps.activeBroker.read(userId).then(pong, (err: unknown) => {
        req.log.warn({ err }, 'ping: the broker session could not be read; reported as none');
        return pong(null);
      });
    },
  );
}
