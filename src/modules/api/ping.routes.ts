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
    /** The broker of the user's live broker session, null while none is connected. */
    activeBroker: (userId: number) => Promise<string | null>;
  },
): void {
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
    async (req) => {
      // Ping proves the key; a broker session that cannot be read (sealed under another APP_KEY,
      // a database hiccup) is reported as none connected, not as a failure of the key.
      let broker: string | null = null;
      try {
        broker = await deps.activeBroker(req.apiPrincipal!.userId);
      } catch (err) {
        req.log.warn({ err }, 'ping: the broker session could not be read; reported as none');
      }
      return { status: 'success' as const, data: { message: 'pong' as const, broker } };
    },
  );
}
