import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { AppError } from '../../platform/errors.js';
import type { ApiKeysService } from '../auth/api-keys.service.js';

/** Called with the client IP and the key's digest (never the key) when a presented key is refused. */
export type InvalidKeyListener = (ip: string, keyDigest: string) => void;

/**
 * `/api/v1` authentication: the `apikey` field of the JSON body (already schema-checked to be a
 * string). Unknown or revoked keys get 403 "Invalid <service> apikey".
 */
export function createApiKeyGuard(
  apiKeys: ApiKeysService,
  serviceName: string,
  onInvalid: InvalidKeyListener[] = [],
): preHandlerAsyncHookHandler {
  const message = `Invalid ${serviceName} apikey`;
  return async function apiKeyGuard(req: FastifyRequest) {
    const apikey = (req.body as { apikey?: unknown } | undefined)?.apikey;
    const principal = typeof apikey === 'string' ? await apiKeys.verify(apikey) : undefined;
    if (principal === undefined) {
      if (typeof apikey === 'string') {
        const digest = apiKeys.digest(apikey.slice(0, 256));
        for (const listener of onInvalid) listener(req.clientIp, digest);
      }
      throw new AppError(403, 'invalid_api_key', message);
    }
    req.apiPrincipal = principal;
  };
}
